// Tuning of cuda/exact's kernel, kept apart from its logic as CUB keeps its tuning policies:
// ExactPolicy is the kernel's compile-time shape, ExactTuning<In> the shape each element type runs,
// kExpansionTerms the length of the doubles' expansion. The rule: each tuned constant has one line of
// provenance beside it, the card and the measurement it was chosen by; nothing here depends on a
// card at run time (the grid comes from the occupancy API, cuda/runtime/launch_config.cuh).
#pragma once

#include <type_traits>

namespace shootout::cuda::exact_agent {

// Threads per block and __launch_bounds__'s minimum blocks per SM (which caps registers at
// 64K / (BlockThreads x MinBlocksPerSm)). The grid is just large enough that each thread makes one
// pass of kLoadsInFlight loads, never more than are resident at once, and leaves a block slot per
// SM to the next call while the resident grid would make at most ShortCallPasses passes
// (overlapping_grid, launch_config.cuh).
template <int BlockThreads, int MinBlocksPerSm, int ShortCallPasses>
struct ExactPolicy {
    static_assert(BlockThreads % 32 == 0 && BlockThreads >= 64 && BlockThreads <= 1024 && MinBlocksPerSm >= 1 && ShortCallPasses >= 0);
    static constexpr int kBlockThreads = BlockThreads;
    static constexpr int kMinBlocksPerSm = MinBlocksPerSm;
    static constexpr int kShortCallPasses = ShortCallPasses;
};

// 256 threads as cuda/single-pass: one block per 4096 floats keeps a small grid fine-grained; 4
// blocks of 256 per SM hold 64 KiB of loads in flight (HBM needs about 29 KiB) within 64 registers a
// thread, which the float and 16-bit kernels fit without spilling. Doubles: 3 blocks (48 KiB in
// flight) and 80 registers, for the expansion, its copy from before the trip and the four loads. A
// free slot per SM up to 8 passes: the block's finish then overlaps the next call's loads
// (cuda/PERFORMANCE.md, "cuda/exact" and "Grid").
template <class In>
struct ExactTuning {
    static constexpr bool kDoubles = std::is_same_v<In, double>;
    // H200: single-pass's sweep, 256x4/min4/pdl/even 4585 GB/s at 2^30, plain 128..1024 threads within 0.3% (results/tuning/single_pass_sweep_h200.txt)
    static constexpr int kBlockThreads = 256;
    // sm_90, ptxas (nvcc 13.0): 64 registers f32 (16 bytes spilled, outside the loop) and bf16, 58 f16, f64 at 80 no spill
    static constexpr int kMinBlocksPerSm = kDoubles ? 3 : 4;
    // H200, batched: 7.58 -> 5.85 us at 2^22, 19.23 -> 15.29 at 2^24, f64 18.75 -> 14.38 at 2^22 (cuda/PERFORMANCE.md, "Grid")
    static constexpr int kShortCallPasses = 8;
    using Policy = ExactPolicy<kBlockThreads, kMinBlocksPerSm, kShortCallPasses>;
};

// Doubles per thread's expansion (DoubleThreadSum): three hold inputs spanning about 106 binades
// below the running sum, ill:1e30 included, for 18 DADDs a double, 64% of the FP64 pipes at HBM
// speed (cuda/PERFORMANCE.md, "Element types").
// H200, batched: f64 exact 0.93x / 0.95x of single-pass at 2^28 / 2^30 (results/h200-dtypes.csv)
inline constexpr int kExpansionTerms = 3;

}  // namespace shootout::cuda::exact_agent
