// The exact sum of a device array in one launch, up to the grid's unrounded total: cuda/exact's
// kernel, also nccl/exact's on each GPU. What the last block does with the total is the caller's
// Finish: round it to a double (cuda/exact), or write it as integer words for an all-reduce
// (nccl/exact). Integer additions do not depend on order, so the total is the same for any grid and
// block size.
//  1. Floats, and float16 and bfloat16 values (every one a float, widened as loaded: 8 of them a
//     16-byte load): each thread runs a grid-stride loop of 16-byte loads, several in flight
//     (grid_stride_agent.cuh's pattern). A float inside the thread's fixed-point window
//     (exact/exact_accumulator.hpp) costs a multiply, a conversion to int64 and a 64-bit add, all in
//     registers, without a branch. Once per 16 floats one branch takes the others, if any: those in
//     the window just below it go to a second register total the same way; the rest go one at a
//     time into the thread's own superaccumulator digits in shared memory: the thread's first float
//     (the window starts at the bottom) and any larger one, which also move the window up to them;
//     floats below both windows; NaN and Inf. Every round of 256 floats the register totals are
//     folded into the digits.
//     Doubles: each goes into the thread's digits one at a time (a grid-stride loop of 8-byte
//     loads): no window, the digits are 67 per thread and the blocks small. Correct, not fast.
//  2. The block's threads normalize their digits; after a barrier each warp sums digits over the
//     block's threads and adds them to the grid's total in global memory with 64-bit integer atomics,
//     which are exact and commutative: no order of blocks can change the total.
//  3. The last block to finish (a counter after a __threadfence, as in CUDA's threadFenceReduction
//     sample) takes the total, leaving zeros for the next call, and hands it to Finish.
#pragma once

#include <cuda_runtime.h>

#include <cfloat>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "exact/exact_accumulator.hpp"
#include "gpu/agents/grid_stride_agent.cuh"
#include "gpu/primitives/element_vector.cuh"
#include "gpu/runtime/cuda_check.hpp"
#include "gpu/runtime/device_buffer.cuh"
#include "gpu/runtime/launch_config.cuh"

namespace shootout::cuda::exact_agent {

// Window integers below 2^53: a window of 30 binades. Its lsb stays at or above -126, where its scale
// is a float (x * scale is one FMUL); floats below 2^-103 go to the digits.
inline constexpr int kWindowTopBit = 53, kWindowLowestLsb = -126;
inline constexpr int kWindowBinades = kWindowTopBit - 23;
// Loop trips per round: 256 floats, 16 x 4 loads x 4 floats or 8 x 4 loads x 8 16-bit values. With
// the unaligned head before the first round and the last vectors and tail after the last, at most
// 256 + 2 x 7 + 3 x 8 = 294 < 2^9 floats are added between folds, so the register total stays below
// 2^9 x 2^53 = 2^62.
template <class In>
inline constexpr int kTripsPerRound = 256 / (kLoadsInFlight * kVectorLanes<In>);
// A round adds at most 2 per float and 3 per fold to a digit (< 2^10): normalizing every 2^16
// rounds keeps every digit far from 2^63 however many floats a thread takes.
inline constexpr unsigned kRoundsPerNormalize = 1u << 16;
// A double adds at most once to a digit: normalizing every 2^20 keeps digits far below 2^63.
inline constexpr unsigned kDoublesPerNormalize = 1u << 20;

// The format whose superaccumulator digits sum In: double for doubles; float for floats and for the
// 16-bit types, whose every value is a float.
template <class In>
using ExactFormat = std::conditional_t<std::is_same_v<In, double>, double, float>;

// The grid's total between its blocks' atomics and the last block's Finish; all zeros between
// launches.
template <class T>
struct GridTotal {
    unsigned long long digit[exact::kDigits<T>];
    unsigned specials;
    unsigned blocks_done;
};

// The dynamic shared memory a block of `threads` takes: each thread's digits.
template <class T>
constexpr std::size_t shared_bytes_per_thread() {
    return exact::kDigits<T> * sizeof(std::int64_t);
}

// A thread's digits: column threadIdx.x of a [kDigits][blockDim.x] array in shared memory. A warp
// adding to any mix of digits touches 32 consecutive 8-byte words of each row it uses: 2 wavefronts,
// no bank conflict.
template <class T>
struct SharedDigits {
    using Element = T;
    static constexpr int kCount = exact::kDigits<T>;
    std::int64_t* column;
    unsigned stride;
    __device__ std::int64_t& operator[](int k) const { return column[k * stride]; }
};

class FloatThreadSum {
public:
    // The window starts at the bottom: the thread's first float moves it up.
    __device__ explicit FloatThreadSum(SharedDigits<float> digits) : digits_(digits) {
        for (int k = 0; k < exact::kDigits<float>; ++k) digits_[k] = 0;
        move_window(0.0f);
    }

    // The main loop's two steps for a trip's floats, a 16-byte vector of In: every float inside the
    // window, returning whether all were; then, only if not, the others, judged by the window the
    // first step used.
    template <class In>
    __device__ bool add_inside(uint4 v) {
        if constexpr (kVectorLanes<In> == 4) return add_inside(float_quad<In, 0>(v));
        else return add_inside(float_quad<In, 0>(v)) & add_inside(float_quad<In, 1>(v));  // no branches
    }
    template <class In>
    __device__ void add_missed(uint4 v, const exact::Window& used) {
        add_missed(float_quad<In, 0>(v), used);
        if constexpr (kVectorLanes<In> == 8) add_missed(float_quad<In, 1>(v), used);
    }
    __device__ const exact::Window& window() const { return window_; }

    __device__ void add(float x) {
        if (!add_inside(x)) add_outside(x);
    }

    __device__ void end_round() {
        fold();
        if (++rounds_ % kRoundsPerNormalize == 0) exact::normalize(digits_);
    }
    // Leaves the digits normalized (each below 2^32), ready to be summed over the block.
    __device__ unsigned finish() {
        fold();
        exact::normalize(digits_);
        return specials_;
    }

private:
    __device__ bool add_inside(float4 v) {
        return add_inside(v.x) & add_inside(v.y) & add_inside(v.z) & add_inside(v.w);  // no branches
    }
    __device__ void add_missed(float4 v, const exact::Window& used) {
        add_missed(v.x, used);
        add_missed(v.y, used);
        add_missed(v.z, used);
        add_missed(v.w, used);
    }
    __device__ void fold() {
        if (total_ != 0) exact::add_fixed(digits_, total_, window_.lsb);
        if (total_below_ != 0) exact::add_fixed(digits_, total_below_, window_.lsb - kWindowBinades);
        total_ = total_below_ = 0;
    }
    __device__ bool add_inside(float x) {
        const bool inside = window_.contains(fabsf(x));
        if (inside) total_ += static_cast<long long>(x * scale_);  // exact: a predicated multiply, convert, add
        return inside;
    }
    __device__ void add_missed(float x, const exact::Window& used) {
        if (!used.contains(fabsf(x))) add_outside(x);
    }
    // Into the window just below the window, else into the digits; a float above the window also
    // moves the window up to it, for the floats after.
    __device__ void add_outside(float x) {
        const float magnitude = fabsf(x);
        if (magnitude == 0) return;
        // The window below: lsb 30 lower, [lo 2^-30, lo), as long as that lsb is not below -126.
        // It keeps data spanning up to 60 binades (ill:1e16) out of the digits.
        if (magnitude < window_.lo && magnitude >= window_.lo * 0x1p-30f && window_.lsb - kWindowBinades >= kWindowLowestLsb) {
            total_below_ += static_cast<long long>(x * (scale_ * 0x1p30f));  // exact
            return;
        }
        specials_ |= exact::add_value(digits_, x);
        if (magnitude >= window_.hi && magnitude <= FLT_MAX) {
            fold();
            move_window(magnitude);
        }
    }

    __device__ void move_window(float magnitude) {
        window_ = exact::window_for<kWindowTopBit, kWindowLowestLsb>(magnitude);
        scale_ = static_cast<float>(window_.scale);  // exact: 2^-lsb <= 2^126
    }

    SharedDigits<float> digits_;
    exact::Window window_;
    float scale_;
    long long total_ = 0, total_below_ = 0;  // the two windows' integers added since the last fold
    unsigned specials_ = 0, rounds_ = 0;
};

// Step 1 for floats and the 16-bit types: this thread's part of in[0..n) into its digits; returns
// its specials.
template <class In>
__device__ unsigned add_thread_part(const In* __restrict__ in, std::size_t n, SharedDigits<float> digits) {
    static_assert(kLoadsInFlight == 4, "the slow path below names the four vectors");
    FloatThreadSum sum(digits);
    const std::size_t thread = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const std::size_t threads = gridDim.x * std::size_t{blockDim.x};
    const AlignedBody<In> aligned(in, n);
    if (thread < aligned.head) sum.add(widen<float>(in[thread]));

    const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + aligned.head);
    const std::size_t vectors = aligned.vectors;
    std::size_t i = thread;
    while (i + (kLoadsInFlight - 1) * threads < vectors) {
        for (int trip = 0; trip < kTripsPerRound<In> && i + (kLoadsInFlight - 1) * threads < vectors;
             ++trip, i += kLoadsInFlight * threads) {
            uint4 v[kLoadsInFlight];
#pragma unroll
            for (int k = 0; k < kLoadsInFlight; ++k) v[k] = body[i + k * threads];
            const exact::Window used = sum.window();
            bool inside = true;
#pragma unroll
            for (int k = 0; k < kLoadsInFlight; ++k) inside &= sum.add_inside<In>(v[k]);
            if (!inside) [[unlikely]]
#pragma unroll 1
                for (int k = 0; k < kLoadsInFlight; ++k)  // one copy of the slow path, v still in registers
                    sum.add_missed<In>(k == 0 ? v[0] : k == 1 ? v[1] : k == 2 ? v[2] : v[3], used);
        }
        sum.end_round();
    }
    for (; i < vectors; i += threads) {
        const uint4 v = body[i];
        const exact::Window used = sum.window();
        if (!sum.add_inside<In>(v)) sum.add_missed<In>(v, used);
    }
    const std::size_t tail = aligned.tail() + thread;
    if (tail < n) sum.add(widen<float>(in[tail]));
    return sum.finish();
}

// Step 1 for doubles: each into the digits.
__device__ inline unsigned add_thread_part(const double* __restrict__ in, std::size_t n, SharedDigits<double> digits) {
    for (int k = 0; k < exact::kDigits<double>; ++k) digits[k] = 0;
    unsigned specials = 0, added = 0;
    const std::size_t threads = gridDim.x * std::size_t{blockDim.x};
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += threads) {
        specials |= exact::add_value(digits, in[i]);
        if (++added % kDoublesPerNormalize == 0) exact::normalize(digits);
    }
    exact::normalize(digits);
    return specials;
}

// Sums each digit over the block's threads and adds it to the grid's total. After a barrier.
template <class T>
__device__ void add_block_to_grid(const std::int64_t* digits, unsigned specials, GridTotal<T>* grid) {
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    for (unsigned k = warp; k < exact::kDigits<T>; k += warps) {
        std::int64_t sum = 0;  // normalized digits: below blockDim.x x 2^32
        for (unsigned t = lane; t < blockDim.x; t += 32) sum += digits[k * blockDim.x + t];
#pragma unroll
        for (unsigned offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(kFullWarp, sum, offset);
        if (lane == 0 && sum != 0) atomicAdd(&grid->digit[k], static_cast<unsigned long long>(sum));
    }
    specials = __reduce_or_sync(kFullWarp, specials);
    if (lane == 0 && specials != 0) atomicOr(&grid->specials, specials);
}

// The exact sum of in[0..n) into `grid`; the last block hands the total to finish(const
// exact::Sum<ExactFormat<In>>&) and leaves `grid` zeroed. blockDim.x a multiple of 32;
// shared_bytes_per_thread<ExactFormat<In>>() x blockDim.x bytes of dynamic shared memory.
template <class In, class Finish>
__global__ void exact_sum(const In* __restrict__ in, std::size_t n, GridTotal<ExactFormat<In>>* grid, Finish finish) {
    using T = ExactFormat<In>;
    extern __shared__ std::int64_t digits[];
    const unsigned specials = add_thread_part(in, n, SharedDigits<T>{digits + threadIdx.x, blockDim.x});

    __syncthreads();
    add_block_to_grid(digits, specials, grid);
    __threadfence();  // this thread's atomics are seen before the block counts itself done
    __syncthreads();
    __shared__ bool last_block;
    if (threadIdx.x == 0) last_block = atomicAdd(&grid->blocks_done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last_block || threadIdx.x != 0) return;
    __threadfence();
    exact::Sum<T> total;
    for (int k = 0; k < exact::kDigits<T>; ++k) total.digits[k] = static_cast<std::int64_t>(atomicExch(&grid->digit[k], 0ull));
    total.specials = atomicExch(&grid->specials, 0u);
    grid->blocks_done = 0;
    finish(total);
}

// exact_sum<In, Finish> for n elements: its launch sizes and its grid total, zeroed once here and
// left zeroed by every launch.
template <class In, class Finish>
class ExactLaunch {
public:
    using T = ExactFormat<In>;

    explicit ExactLaunch(std::size_t n) : n_(n), grid_total_(1) {
        constexpr auto kernel = exact_sum<In, Finish>;
        launch_.block = power_of_two_block(kernel, shared_bytes_per_thread<T>());
        launch_.grid = covering_blocks(n, elements_per_block_pass(launch_.block, kLoadsInFlight, kVectorLanes<In>),
                                       resident_blocks(kernel, launch_.block, shared_bytes()));
        // Zeros, complete before any launch on the backend's (non-blocking) stream.
        SHOOTOUT_CUDA_CHECK(cudaMemset(grid_total_.get(), 0, sizeof(GridTotal<T>)));
        SHOOTOUT_CUDA_CHECK(cudaDeviceSynchronize());
    }

    // Enqueues the sum of in[0..n) on `stream`; with n = 0, reads nothing and finishes a zero sum.
    void enqueue(const In* in, Finish finish, cudaStream_t stream) {
        exact_sum<<<launch_.grid, launch_.block, shared_bytes(), stream>>>(in, n_, grid_total_.get(), finish);
        SHOOTOUT_CUDA_CHECK_LAUNCH(exact_sum);
    }

private:
    std::size_t shared_bytes() const { return launch_.block * shared_bytes_per_thread<T>(); }

    std::size_t n_;
    LaunchConfig launch_;
    DeviceBuffer<GridTotal<T>> grid_total_;
};

}  // namespace shootout::cuda::exact_agent
