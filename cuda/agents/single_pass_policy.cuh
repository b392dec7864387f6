// Tuning of cuda/single-pass's kernel (single_pass.cuh), kept apart from its logic as CUB keeps its
// tuning policies: SinglePassPolicy is the kernel's compile-time shape, which
// tools/single_pass_sweep.cu instantiates several of and times; SinglePassTuning<Acc, In> the one the
// backends run. The rule: each tuned constant has one line of provenance beside it, the card and the
// measurement it was chosen by; nothing here depends on a card at run time (the grid comes from the
// occupancy API, cuda/runtime/launch_config.cuh).
#pragma once

#include "cuda/primitives/stream_load.cuh"

namespace shootout::cuda {

// BlockThreads: threads per block, a multiple of 32 (a compile-time constant for __launch_bounds__).
// LoadsInFlight: 16-byte loads each thread issues before adding the first (bytes in flight per thread:
//   16 x LoadsInFlight).
// MinBlocksPerSm: __launch_bounds__'s second argument: caps registers at 64K / (BlockThreads x this),
//   so that at least this many blocks fit on an SM. The grid itself comes from the occupancy API.
// SmallGridPasses: below a full device, the grid is just large enough that each thread makes this many
//   passes of LoadsInFlight loads: fewer blocks, so fewer slots for the last block to combine.
// Fence: around the ticket, __threadfence() (fence.sc.gpu, MEMBAR.SC.GPU) or the lighter
//   fence.acq_rel.gpu, which the PTX memory model also makes enough for this pattern (a release fence
//   before the relaxed atomic, an acquire fence after it).
// Launch: plain <<<>>>, or programmatic dependent launch (sm_90 and later; plain elsewhere): the call
//   is launched with cudaLaunchAttributeProgrammaticStreamSerialization, lets the next call's blocks
//   be scheduled from its own start (griddepcontrol.launch_dependents), and loads and reduces its
//   input before griddepcontrol.wait, which it passes only once the call before it on the stream has
//   completed with its memory visible. Only then does a block write its slot, take a ticket or write
//   *out, all of which that call may still be using. Back-to-back calls thus overlap one call's
//   launch, input loads and block sums with the previous call's last blocks and combine, as any
//   stream of calls would get. The price, a precondition: `in` must not be written by the kernel
//   enqueued just before this call on the stream, whose completion the loads do not wait for (a copy
//   or memset just before is waited for as usual: programmatic serialization relaxes kernel-to-kernel
//   order only).
// ShortCallPasses: while the resident grid would make at most this many passes, the grid leaves one
//   block slot per SM to the next call (overlapping_grid, launch_config.cuh); 0: never.
// Partition: which elements a thread takes: grid_stride (grid_stride_agent.cuh) or even_share, a
//   contiguous run of whole tiles per block (even_share_agent.cuh). Both are fixed by n and the grid.
// Load: how the 16-byte loads are issued (stream_load.cuh): __ldg, or with an L2 256-byte prefetch hint.
enum class TicketFence { sc, acq_rel };
enum class Launch { plain, pdl };
enum class Partition { grid_stride, even_share };

template <int BlockThreads, int LoadsInFlight, int MinBlocksPerSm, int SmallGridPasses = 1, TicketFence Fence = TicketFence::sc,
          Launch LaunchKind = Launch::plain, Partition PartitionKind = Partition::grid_stride, LoadHint Load = LoadHint::ldg,
          int ShortCallPasses = 0>
struct SinglePassPolicy {
    static_assert(BlockThreads % 32 == 0 && BlockThreads >= 64 && BlockThreads <= 1024);
    static_assert(LoadsInFlight >= 1 && MinBlocksPerSm >= 1 && SmallGridPasses >= 1);
    static constexpr int kBlockThreads = BlockThreads;
    static constexpr int kLoadsInFlight = LoadsInFlight;
    static constexpr int kMinBlocksPerSm = MinBlocksPerSm;
    static constexpr int kSmallGridPasses = SmallGridPasses;
    static constexpr TicketFence kFence = Fence;
    static constexpr Launch kLaunch = LaunchKind;
    static constexpr Partition kPartition = PartitionKind;
    static constexpr LoadHint kLoad = Load;
    static constexpr int kShortCallPasses = ShortCallPasses;
};

// The policy each registered backend uses (cuda/PERFORMANCE.md, "cuda/single-pass", has the sweep).
// 256 threads x 4 loads: 64 B in flight per thread, 128 KiB per SM at full occupancy, several times
// what HBM's latency x bandwidth needs per SM; 256-thread blocks keep the small-n grid fine-grained
// (one block per 16 KiB) and the last block's combine short. One policy for every element type: a
// load is 16 bytes whatever the type, so the bytes in flight, the grid and the slots are the same.
// Each line of provenance is of the sweep on the H200 (results/tuning/single_pass_sweep_h200.txt,
// float32, batched) unless it says otherwise.
template <class Acc, class In = float>
struct SinglePassTuning {
    // H200: 128..1024 threads within 0.3% at 2^30 (4517-4528 GB/s); 1024 is 11% slower at 2^16 (4.59 vs 4.13 us)
    static constexpr int kBlockThreads = 256;
    // H200: 256x2/min8, 256x4/min4, 256x8/min2 4509 / 4520 / 4531 GB/s at 2^30; x8 3% slower at 2^24 (21.26 vs 20.57 us)
    static constexpr int kLoadsInFlight = 4;
    // sm_90, ptxas (nvcc 13.0): 62 / 62 / 46 registers (f32 / f64 / Kahan) within 64, no spills; at 32 f64 loads two at a time (PERFORMANCE.md)
    static constexpr int kMinBlocksPerSm = 4;
    // H200: two passes 12% slower at 2^16 (4.61 vs 4.13 us), the same at 2^30
    static constexpr int kSmallGridPasses = 1;
    // H200: acq_rel the same as sc at 2^16..2^30 (4.13 / 4.13 us at 2^16, 4520 / 4520 GB/s at 2^30): the stronger kept
    static constexpr TicketFence kFence = TicketFence::sc;
    // H200: 4.13 -> 3.02 us at 2^16, 5.84 -> 4.09 at 2^20
    static constexpr Launch kLaunch = Launch::pdl;
    // H200: pdl 4558 -> pdl/even 4585 GB/s at 2^30
    static constexpr Partition kPartition = Partition::even_share;
    // H200: the L2 256-byte hint 4272 against 4520 GB/s at 2^30 (-5%)
    static constexpr LoadHint kLoad = LoadHint::ldg;
    // H200, batched: 5.34 -> 4.75 us at 2^22, 17.56 -> 16.28 at 2^24 (cuda/PERFORMANCE.md, "Grid")
    static constexpr int kShortCallPasses = 8;
    using Policy = SinglePassPolicy<kBlockThreads, kLoadsInFlight, kMinBlocksPerSm, kSmallGridPasses, kFence, kLaunch, kPartition, kLoad,
                                    kShortCallPasses>;
};

}  // namespace shootout::cuda
