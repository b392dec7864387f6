// A one-launch reduction: every block reduces its grid-stride share, writes the block's state to its
// own slot, and takes a ticket; the block that draws the last ticket combines all slots in block order
// and writes the result. No second launch, no host synchronisation, no float atomics: the partition of
// the input (grid and block size, fixed by n and the device) and the combining tree are the same on
// every call, so the same input gives the same bits.
//
// Tuning is a policy type, as CUB's agent policies and the CPU side's Avx2Policy: the backends take
// SinglePassTuning<Acc>::Policy, tools/single_pass_sweep.cu instantiates several and times them.
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "block_reduce.cuh"
#include "cuda_check.hpp"
#include "device_buffer.cuh"
#include "grid_stride_agent.cuh"
#include "launch_config.cuh"

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
enum class TicketFence { sc, acq_rel };

template <int BlockThreads, int LoadsInFlight, int MinBlocksPerSm, int SmallGridPasses = 1, TicketFence Fence = TicketFence::sc>
struct SinglePassPolicy {
    static_assert(BlockThreads % 32 == 0 && BlockThreads >= 64 && BlockThreads <= 1024);
    static_assert(LoadsInFlight >= 1 && MinBlocksPerSm >= 1 && SmallGridPasses >= 1);
    static constexpr int kBlockThreads = BlockThreads;
    static constexpr int kLoadsInFlight = LoadsInFlight;
    static constexpr int kMinBlocksPerSm = MinBlocksPerSm;
    static constexpr int kSmallGridPasses = SmallGridPasses;
    static constexpr TicketFence kFence = Fence;
};

// The policy each registered backend uses (gpu/PERFORMANCE.md, "Single pass", says why). 256 threads
// x 4 loads: 64 B in flight per thread, 128 KiB per SM at full occupancy, several times what HBM's
// latency x bandwidth needs per SM; 256-thread blocks keep the small-n grid fine-grained (one block
// per 16 KiB) and the last block's combine short. At most 64 registers per thread.
template <class Acc>
struct SinglePassTuning {
    using Policy = SinglePassPolicy<256, 4, 4>;
};

// An acquire-side load that goes to L2, not L1: the last block reads slots other SMs wrote, and a
// line of them could sit stale in this SM's L1 (ld.global.cg). Word by word, so any 4-byte-aligned
// State works.
template <class T>
__device__ T load_cg(const T* p) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % sizeof(unsigned) == 0);
    unsigned words[sizeof(T) / sizeof(unsigned)];
#pragma unroll
    for (std::size_t k = 0; k < sizeof(T) / sizeof(unsigned); ++k) words[k] = __ldcg(reinterpret_cast<const unsigned*>(p) + k);
    T value;
    std::memcpy(&value, words, sizeof value);
    return value;
}

template <TicketFence Fence>
__device__ void ticket_fence() {
    if constexpr (Fence == TicketFence::sc) __threadfence();
    else ::cuda::atomic_thread_fence(::cuda::memory_order_acq_rel, ::cuda::thread_scope_device);
}

// slots: one per block; ticket: 0 before the launch, and 0 again after it (atomicInc wraps it).
template <class Acc, class Policy>
__global__ void __launch_bounds__(Policy::kBlockThreads, Policy::kMinBlocksPerSm)
single_pass_sum(const float* __restrict__ in, std::size_t n, typename Acc::State* slots, unsigned* ticket,
                typename Acc::Result* out) {
    using State = typename Acc::State;
    const State block_state = block_reduce<Acc>(grid_stride_partial<Acc, Policy::kLoadsInFlight>(in, n));
    if (gridDim.x == 1) {  // nobody to wait for
        if (threadIdx.x == 0) *out = Acc::result(block_state);
        return;
    }

    __shared__ bool last;
    if (threadIdx.x == 0) {
        slots[blockIdx.x] = block_state;
        ticket_fence<Policy::kFence>();  // the slot is visible device-wide before the ticket is taken
        // atomicInc wraps: the block that finds gridDim.x - 1 stores 0, leaving the counter ready for
        // the next launch with no reset of its own.
        const bool drew_last = atomicInc(ticket, gridDim.x - 1) == gridDim.x - 1;
        if (drew_last) ticket_fence<Policy::kFence>();  // every other block's slot is read after its ticket
        last = drew_last;
    }
    __syncthreads();  // also separates block_reduce's two uses of its shared slots
    if (!last) return;

    // Thread t combines slots t, t + B, t + 2B, ... in that order, then the block's fixed tree: the
    // same assignment and order on every call. The loads of a round are all issued before the first
    // is combined: each round costs one L2 round trip, not kSlotsInFlight of them.
    constexpr unsigned B = Policy::kBlockThreads, kSlotsInFlight = 8;
    State s = Acc::zero();
    for (unsigned base = threadIdx.x; base < gridDim.x; base += kSlotsInFlight * B) {
        State v[kSlotsInFlight];
#pragma unroll
        for (unsigned k = 0; k < kSlotsInFlight; ++k)
            if (base + k * B < gridDim.x) v[k] = load_cg(slots + base + k * B);
#pragma unroll
        for (unsigned k = 0; k < kSlotsInFlight; ++k)
            if (base + k * B < gridDim.x) s = Acc::combine(s, v[k]);
    }
    s = block_reduce<Acc>(s);
    if (threadIdx.x == 0) *out = Acc::result(s);
}

// The grid for n elements: enough blocks that each thread makes SmallGridPasses passes of
// LoadsInFlight 16-byte loads, and never more than fit on the device at once (occupancy API x SMs),
// beyond which the grid-stride loop takes the rest. A function of n and the device only.
template <class Acc, class Policy>
unsigned single_pass_grid(std::size_t n) {
    const unsigned resident = resident_blocks(single_pass_sum<Acc, Policy>, Policy::kBlockThreads);
    const std::size_t per_block = elements_per_block_pass(Policy::kBlockThreads, Policy::kLoadsInFlight) * Policy::kSmallGridPasses;
    return covering_blocks(n, per_block, resident);
}

// The reduction of n > 0 elements, its slots and ticket made once: enqueue() allocates nothing. One
// enqueue at a time per object (calls on one stream, as the harness makes them): two launches in
// flight at once would share the ticket.
template <class Acc, class Policy = typename SinglePassTuning<Acc>::Policy>
class SinglePass {
public:
    using State = typename Acc::State;
    using Result = typename Acc::Result;

    explicit SinglePass(std::size_t n) : n_(n), grid_(single_pass_grid<Acc, Policy>(n)), slots_(grid_), ticket_(1) {
        // cudaMemset runs on the legacy default stream, which the harness's non-blocking stream does
        // not wait for: finish it here, once.
        SHOOTOUT_CUDA_CHECK(cudaMemset(ticket_.get(), 0, sizeof(unsigned)));
        SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    }

    void enqueue(const float* in, Result* out, cudaStream_t stream) const {
        single_pass_sum<Acc, Policy><<<grid_, Policy::kBlockThreads, 0, stream>>>(in, n_, slots_.get(), ticket_.get(), out);
        SHOOTOUT_CUDA_CHECK_LAUNCH(single_pass_sum);
    }

    unsigned grid() const { return grid_; }
    static constexpr unsigned block() { return Policy::kBlockThreads; }
    // For checks: the counter, which is 0 between calls.
    const unsigned* ticket() const { return ticket_.get(); }

private:
    std::size_t n_;
    unsigned grid_;
    DeviceBuffer<State> slots_;
    DeviceBuffer<unsigned> ticket_;
};

}  // namespace shootout::cuda
