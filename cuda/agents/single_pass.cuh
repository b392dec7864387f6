// A one-launch reduction: every block reduces its grid-stride share, writes the block's state to its
// own slot, and takes a ticket; the block that draws the last ticket combines all slots in block order
// and writes the result. No second launch, no host synchronisation, no float atomics: the partition of
// the input (grid and block size, fixed by n and the device) and the combining tree are the same on
// every call, so the same input gives the same bits.
//
// The input is any element type of cuda/primitives/element_vector.cuh, read 16 bytes a load and widened
// to the accumulator's type. Tuning is a policy type (single_pass_policy.cuh), as CUB's agent
// policies and the CPU side's Avx2Policy: the backends take SinglePassTuning<Acc, In>::Policy,
// tools/single_pass_sweep.cu instantiates several and times them.
#pragma once

#include <cuda_runtime.h>

#include <cuda/atomic>

#include <cstddef>
#include <cstring>
#include <type_traits>

#include "cuda/primitives/block_reduce.cuh"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.cuh"
#include "cuda/agents/even_share_agent.cuh"
#include "cuda/agents/grid_stride_agent.cuh"
#include "cuda/agents/single_pass_policy.cuh"
#include "cuda/runtime/launch_config.cuh"
#include "cuda/runtime/programmatic_launch.cuh"
#include "cuda/primitives/stream_load.cuh"

namespace shootout::cuda {

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

// This thread's share of the input under the policy's partition and load.
template <class Acc, class Policy, class In>
__device__ typename Acc::State thread_partial(const In* __restrict__ in, std::size_t n) {
    static_assert(Policy::kPartition == Partition::even_share || !WarpCollective<Acc>,
                  "a warp-collective accumulator needs even_share, whose trips are the same for the whole block");
    if constexpr (Policy::kPartition == Partition::even_share)
        return even_share_partial<Acc, Policy::kBlockThreads, Policy::kLoadsInFlight, Policy::kLoad>(in, n);
    else
        return grid_stride_partial<Acc, Policy::kLoadsInFlight, Policy::kLoad>(in, n);
}

template <TicketFence Fence>
__device__ void ticket_fence() {
    if constexpr (Fence == TicketFence::sc) __threadfence();
    else ::cuda::atomic_thread_fence(::cuda::memory_order_acq_rel, ::cuda::thread_scope_device);
}

// slots: one per block; ticket: 0 before the launch, and 0 again after it (atomicInc wraps it).
template <class Acc, class Policy, class In>
__global__ void __launch_bounds__(Policy::kBlockThreads, Policy::kMinBlocksPerSm)
single_pass_sum(const In* __restrict__ in, std::size_t n, typename Acc::State* slots, unsigned* ticket,
                typename Acc::Result* out) {
    using State = typename Acc::State;
    constexpr bool kPdl = Policy::kLaunch == Launch::pdl;
    // Triggered first thing: the next call may be scheduled once every block of this one has
    // triggered, which (the grid never exceeds what is resident) is just after this one has started.
    // Its blocks take SM slots as this call's blocks free them (or ones this call left empty), load
    // and reduce their input, and touch nothing shared before their wait. No deadlock: a grid's
    // successor starts only once all of that grid's blocks have, so the oldest unfinished grid is
    // always wholly resident.
    if constexpr (kPdl) pdl_launch_dependents();
    const State block_state = block_reduce<Acc>(thread_partial<Acc, Policy, In>(in, n));
    // Everything below touches what the previous call on the stream may still be using: its last
    // block reading the slots, the ticket, *out. Every thread waits (griddepcontrol.wait orders the
    // executing thread only), block_reduce's shared-memory work already done.
    if constexpr (kPdl) pdl_wait();
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
// LoadsInFlight 16-byte loads (even_share: each block SmallGridPasses tiles, the same count), and
// never more than fit on the device at once (occupancy API x SMs; less a block an SM for a short
// call, ShortCallPasses), beyond which the grid-stride loop, or longer runs of tiles, take the rest.
// A function of n, the element type and the device only.
template <class Acc, class Policy, class In>
unsigned single_pass_grid(std::size_t n) {
    const unsigned resident = resident_blocks(single_pass_sum<Acc, Policy, In>, Policy::kBlockThreads);
    const std::size_t per_block =
        elements_per_block_pass(Policy::kBlockThreads, Policy::kLoadsInFlight, kVectorLanes<In>) * Policy::kSmallGridPasses;
    return overlapping_grid(n, per_block, resident, Policy::kShortCallPasses);
}

// The reduction of n > 0 elements, its slots and ticket made once: enqueue() allocates nothing. One
// enqueue at a time per object (calls on one stream, as the harness makes them): two launches in
// flight at once would share the ticket.
template <class Acc, class In = float, class Policy = typename SinglePassTuning<Acc, In>::Policy>
class SinglePass {
public:
    using State = typename Acc::State;
    using Result = typename Acc::Result;

    explicit SinglePass(std::size_t n)
        : n_(n), grid_(single_pass_grid<Acc, Policy, In>(n)), pdl_(Policy::kLaunch == Launch::pdl && kernel_has_griddepcontrol(single_pass_sum<Acc, Policy, In>)), slots_(grid_), ticket_(1) {
        // cudaMemset runs on the legacy default stream, which the harness's non-blocking stream does
        // not wait for: finish it here, once.
        SHOOTOUT_CUDA_CHECK(cudaMemset(ticket_.get(), 0, sizeof(unsigned)));
        SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    }

    void enqueue(const In* in, Result* out, cudaStream_t stream) const {
        launch(single_pass_sum<Acc, Policy, In>, grid_, Policy::kBlockThreads, 0, stream, pdl_, in, n_, slots_.get(), ticket_.get(), out);
    }

    unsigned grid() const { return grid_; }
    // Whether calls go out as programmatic dependent launches (a pdl policy, and the kernel built for
    // sm_90 or later).
    bool programmatic() const { return pdl_; }
    static constexpr unsigned block() { return Policy::kBlockThreads; }
    // For checks: the counter, which is 0 between calls.
    const unsigned* ticket() const { return ticket_.get(); }

private:
    std::size_t n_;
    unsigned grid_;
    bool pdl_;
    DeviceBuffer<State> slots_;
    DeviceBuffer<unsigned> ticket_;
};

}  // namespace shootout::cuda
