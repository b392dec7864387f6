// Dispatch level of cuda/exact: its kernel and the kernel's host launcher (ExactLaunch), as CUB's
// dispatch layer holds its kernels. The kernel composes the levels below: each thread's exact total
// (exact_agent.cuh), the warp's (warp_digit_sum.cuh) and the block's digits (block_digit_sum.cuh),
// all before the programmatic launch's wait; then the grid's: each block adds its digits to one of
// kStripes stripes of the grid's total with 64-bit integer atomics, exact and commutative, so that
// no order of blocks can change the total and no address takes more than one block in 32. The last
// block to finish (a ticket after a __threadfence, as in CUDA's threadFenceReduction sample) sums the
// stripes, a warp per digit, leaves zeros for the next call, and hands the total to the caller's
// Finish: rounded to a double (cuda/exact) or written as integer words for an all-reduce
// (nccl/exact). A grid of one block hands its own total over. The rule: one launch a call, nothing
// set or cleared between calls. The warp's and block's glue (their shared-memory writes, barriers
// and the unrolled loop over a warp's digits) stays in the kernel: behind one more call, nvcc
// assigns the kernel's registers differently, and the SASS changes with it.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "exact/exact_accumulator.hpp"
#include "cuda/agents/exact_agent.cuh"
#include "cuda/agents/exact_policy.cuh"
#include "cuda/agents/grid_stride_agent.cuh"
#include "cuda/primitives/accumulators.cuh"
#include "cuda/primitives/block_digit_sum.cuh"
#include "cuda/primitives/element_vector.cuh"
#include "cuda/primitives/exact_digits.cuh"
#include "cuda/primitives/warp_digit_sum.cuh"
#include "cuda/primitives/warp_reduce.cuh"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.cuh"
#include "cuda/runtime/launch_config.cuh"
#include "cuda/runtime/programmatic_launch.cuh"

namespace shootout::cuda::exact_agent {

// The grid's total is kept in this many copies (blockIdx.x % kStripes): one warp's lanes sum them.
inline constexpr unsigned kStripes = 32;

// The grid's total between its blocks' atomics and the last block's Finish: kStripes copies, all
// zeros between launches, and the ticket (atomicInc wraps it back to 0).
template <class T>
struct GridTotal {
    unsigned long long digit[kStripes][exact::kDigits<T>];
    unsigned specials[kStripes];
    unsigned ticket;
};

// The block's total (in the last block, the grid's) as Finish takes it.
template <class T, int Warps>
__device__ exact::Sum<T> sum_of(const BlockScratch<T, Warps>& scratch) {
    exact::Sum<T> sum;
    for (int k = 0; k < exact::kDigits<T>; ++k) sum.digits[k] = scratch.total[k];
    sum.specials = scratch.specials;
    return sum;
}

// The exact sum of in[0..n) into `grid`; the last block hands the total to finish(const
// exact::Sum<ExactFormat<In>>&) and leaves `grid` zeroed. Policy::kBlockThreads threads a block,
// shared_bytes<In>(Policy::kBlockThreads) of dynamic shared memory; at most as many blocks
// as are resident at once (a programmatic launch waits for the grid before it, below).
template <class In, class Policy, class Finish>
__global__ void __launch_bounds__(Policy::kBlockThreads, Policy::kMinBlocksPerSm)
exact_sum(const In* __restrict__ in, std::size_t n, GridTotal<ExactFormat<In>>* grid, Finish finish) {
    using T = ExactFormat<In>;
    constexpr int B = Policy::kBlockThreads, kWarps = B / 32, kDigits = exact::kDigits<T>;
    // The next call may be scheduled from here: it loads and sums its input, and touches nothing
    // global before its pdl_wait() below (cuda/agents/single_pass.cuh has the argument).
    pdl_launch_dependents();
    extern __shared__ std::int64_t digits[];
    __shared__ BlockScratch<T, kWarps> scratch;
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    constexpr int kColumns = digit_columns<In>(B), kDigitStride = digit_stride<In>(B);
    [[maybe_unused]] const SharedDigits<T> mine{digits + threadIdx.x, kDigitStride};  // floats and 16-bit types
    // The thread's part (the agent), then the warp's: the lanes' totals at the warp's highest window
    // (a lane below it folds its terms into its digits), summed. Doubles have no window: their
    // warp's digits hold everything.
    ThreadTotal own;
    int top = kNoWindow;
    if constexpr (std::is_same_v<In, double>) {
        own = add_thread_part(in, n, WarpDigits{digits + warp * kColumnStride<In>, kDigitStride});
    } else {
        own = add_thread_part(in, n, mine);
        top = join_warp_window(own, mine);
    }
    long long term[kTerms] = {};
    warp_sum_terms(own.term, term);
    const unsigned specials = __reduce_or_sync(kFullWarp, own.specials);
    if (lane == 0) {
        scratch.warp_lsb[warp] = top;
        for (int j = 0; j < kTerms; ++j) scratch.warp_term[warp][j] = term[j];
        scratch.warp_specials[warp] = specials;
    }
    // The block's: its digits warp, warp + kWarps, ..., summed side by side from every warp's terms
    // and, if any thread used them, every thread's digits.
    const bool block_digits = __syncthreads_or(own.digits_used);
    if constexpr (!std::is_same_v<In, double>) {
        if (block_digits) {  // the same in every thread: the columns never written are zeroed for the pass below
            if (!own.digits_used) mine.clear();
            __syncthreads();
        }
    }
    constexpr int kPerWarp = kDigitsPerWarp<T, kWarps>;
    long long block_digit[kPerWarp];
#pragma unroll
    for (int j = 0; j < kPerWarp; ++j)
        block_digit[j] = block_digit_part<T, kWarps, kColumns, kDigitStride, kColumnStride<In>>(scratch, digits, block_digits, warp + j * kWarps, lane);
#pragma unroll
    for (int j = 0; j < kPerWarp; ++j) {
        const int d = warp + j * kWarps;
        const long long s = warp_sum_int64(block_digit[j]);
        if (lane == 0 && d < kDigits) scratch.total[d] = s;
    }
    if (threadIdx.x == 0) scratch.specials = block_specials(scratch);
    __syncthreads();

    // The grid's. Everything below touches what the call before on the stream may still be using:
    // the grid's total, the ticket, Finish's output.
    pdl_wait();
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) finish(sum_of(scratch));
        return;
    }
    const unsigned stripe = blockIdx.x % kStripes;
    for (int d = threadIdx.x; d < kDigits; d += B)
        if (scratch.total[d] != 0) atomicAdd(&grid->digit[stripe][d], static_cast<unsigned long long>(scratch.total[d]));
    if (threadIdx.x == 0 && scratch.specials != 0) atomicOr(&grid->specials[stripe], scratch.specials);
    if (threadIdx.x < kDigits) __threadfence();  // this thread's atomics are seen before the block counts itself done
    __syncthreads();
    if (threadIdx.x == 0) {
        // atomicInc wraps: the block that finds gridDim.x - 1 stores 0, ready for the next launch.
        const bool drew_last = atomicInc(&grid->ticket, gridDim.x - 1) == gridDim.x - 1;
        if (drew_last) __threadfence();  // every other block's atomics are read after its ticket
        scratch.last = drew_last;
    }
    __syncthreads();
    if (!scratch.last) return;
    // The stripes' sum, a warp per digit, lane s reading stripe s (from L2: other SMs added to it),
    // every load issued before the first is summed, and zeros left behind. Each stripe digit is a
    // sum of blocks' digits: below 2^43 x blocks.
    static_assert(kStripes == 32, "a lane per stripe");
    long long stripe_digit[kPerWarp];
#pragma unroll
    for (int j = 0; j < kPerWarp; ++j) {
        const int d = warp + j * kWarps;
        stripe_digit[j] = d < kDigits ? static_cast<long long>(__ldcg(&grid->digit[lane][d])) : 0;
    }
    const unsigned stripe_specials = warp == 0 ? __ldcg(&grid->specials[lane]) : 0u;
#pragma unroll
    for (int j = 0; j < kPerWarp; ++j) {
        const int d = warp + j * kWarps;
        if (d >= kDigits) break;  // the same for the whole warp
        grid->digit[lane][d] = 0;
        const long long s = warp_sum_int64(stripe_digit[j]);
        if (lane == 0) scratch.total[d] = s;
    }
    if (warp == 0) {
        grid->specials[lane] = 0;
        const unsigned s = __reduce_or_sync(kFullWarp, stripe_specials);
        if (lane == 0) scratch.specials = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) finish(sum_of(scratch));
}

// exact_sum<In, Policy, Finish> for n elements: its launch sizes and its grid total, zeroed once here
// and left zeroed by every launch. One enqueue at a time per object (calls on one stream): two
// launches in flight at once would share the total.
template <class In, class Finish, class Policy = typename ExactTuning<In>::Policy>
class ExactLaunch {
public:
    using T = ExactFormat<In>;

    explicit ExactLaunch(std::size_t n)
        : n_(n), programmatic_(kernel_has_griddepcontrol(exact_sum<In, Policy, Finish>)), grid_total_(1) {
        grid_ = overlapping_grid(n, elements_per_block_pass(Policy::kBlockThreads, kLoadsInFlight, kVectorLanes<In>),
                                 resident_blocks(exact_sum<In, Policy, Finish>, Policy::kBlockThreads, shared_bytes<In>(Policy::kBlockThreads)),
                                 Policy::kShortCallPasses);
        // Zeros, complete before any launch on the backend's (non-blocking) stream.
        SHOOTOUT_CUDA_CHECK(cudaMemset(grid_total_.get(), 0, sizeof(GridTotal<T>)));
        SHOOTOUT_CUDA_CHECK(cudaDeviceSynchronize());
    }

    // Enqueues the sum of in[0..n) on `stream`; with n = 0, reads nothing and finishes a zero sum.
    // A programmatic launch (programmatic_launch.cuh): `in` must not be written by the kernel
    // enqueued just before on the stream.
    void enqueue(const In* in, Finish finish, cudaStream_t stream) {
        launch(exact_sum<In, Policy, Finish>, grid_, Policy::kBlockThreads, shared_bytes<In>(Policy::kBlockThreads), stream, programmatic_, in, n_,
               grid_total_.get(), finish);
    }

    unsigned grid() const { return grid_; }

private:
    std::size_t n_;
    unsigned grid_ = 1;
    bool programmatic_;
    DeviceBuffer<GridTotal<T>> grid_total_;
};

}  // namespace shootout::cuda::exact_agent
