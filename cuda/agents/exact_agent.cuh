// Agent level of cuda/exact (nccl/exact's kernel on each GPU too), as even_share_agent.cuh is
// cuda/single-pass's: a thread's exact sum of its part of a device array, before anything global is
// touched, so that a programmatic launch overlaps it with the call before. The partition is
// even_share_agent.cuh's (each block a contiguous run of whole tiles, each thread kLoadsInFlight
// 16-byte loads in flight); each type has its thread sum: a fixed-point window in registers for
// floats and bfloat16 (thread_window_sum.cuh), one int64 for float16 (thread_half_sum.cuh), an
// expansion of doubles (thread_expansion_sum.cuh); what leaves the fast path goes to digits in shared
// memory (exact_digits.cuh). The kernel (cuda/dispatch/exact_dispatch.cuh) adds the threads' totals
// by warp and block (warp_digit_sum.cuh, block_digit_sum.cuh) and then across the grid; the tuning
// is exact_policy.cuh's. The rule: every sum is of integers, whose order does not matter, so the
// total is the same for any grid and block size.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "exact/exact_accumulator.hpp"
#include "cuda/agents/exact_policy.cuh"
#include "cuda/agents/grid_stride_agent.cuh"
#include "cuda/primitives/element_vector.cuh"
#include "cuda/primitives/exact_digits.cuh"
#include "cuda/primitives/thread_expansion_sum.cuh"
#include "cuda/primitives/thread_half_sum.cuh"
#include "cuda/primitives/thread_window_sum.cuh"
#include "cuda/primitives/warp_digit_sum.cuh"

namespace shootout::cuda::exact_agent {

// The format whose superaccumulator digits sum In: double for doubles; float for floats and for the
// 16-bit types, whose every value is a float.
template <class In>
using ExactFormat = std::conditional_t<std::is_same_v<In, double>, double, float>;

// Columns of digits a block keeps in shared memory: one per thread for floats and the 16-bit types
// (a thread adds to its own without atomics); one per warp for doubles (67 digits a thread would
// take 137 KiB a block; a warp's lanes add to theirs with shared-memory atomics, off the fast path).
template <class In>
__host__ __device__ constexpr int digit_columns(int block_threads) {
    return std::is_same_v<In, double> ? block_threads / 32 : block_threads;
}

// Where digit d of column c lies: d * digit_stride + c * column_stride words into the block's digits.
// Floats and 16-bit types [kDigits][columns]: a warp's lanes add to one row side by side. Doubles
// [columns][kDigits]: a warp's 67 digits consecutive, so that its lanes' atomics on different digits
// fall in different banks (a column of a [kDigits][warps] array sits in two banks: 16-way conflicts).
template <class In>
__host__ __device__ constexpr int digit_stride(int block_threads) {
    return std::is_same_v<In, double> ? 1 : digit_columns<In>(block_threads);
}
template <class In>
inline constexpr int kColumnStride = std::is_same_v<In, double> ? exact::kDigits<double> : 1;

// The dynamic shared memory a block of `threads` takes: its columns of digits.
template <class In>
__host__ __device__ constexpr std::size_t shared_bytes(int block_threads) {
    return std::size_t{exact::kDigits<ExactFormat<In>>} * sizeof(std::int64_t) * digit_columns<In>(block_threads);
}

// Loop trips per round: 256 floats, 16 x 4 loads x 4 floats or 8 x 4 loads x 8 16-bit values. With
// the unaligned head before the first round and the last vectors and tail after the last, at most
// 256 + 2 x 7 + 4 x 8 = 302 < 2^9 floats are added between carry-saves, so the register total stays
// below 2^9 x 2^53 = 2^62.
template <class In>
inline constexpr int kTripsPerRound = 256 / (kLoadsInFlight * kVectorLanes<In>);

// One trip of a thread: the first `valid` of v (all but in the last block's part of a tile) through
// the thread sum's fast path (begin_trip, add_fast, end_trip), and again through its slow path
// (redo) when any value missed the fast one.
template <class ThreadSum>
__device__ void add_trip(ThreadSum& sum, const uint4 (&v)[kLoadsInFlight], int valid) {
    static_assert(kLoadsInFlight == 4, "the slow path below names the four vectors");
    sum.begin_trip(v);
#pragma unroll
    for (int k = 0; k < kLoadsInFlight; ++k)
        if (k < valid) sum.add_fast(v[k]);
    if (!sum.end_trip()) [[unlikely]]
#pragma unroll 1
        for (int k = 0; k < valid; ++k)  // one copy of the slow path, v still in registers
            sum.redo(k == 0 ? v[0] : k == 1 ? v[1] : k == 2 ? v[2] : v[3]);
}

// The loop every type shares: this thread's part of in[0..n), partitioned as
// even_share_agent.cuh's: each block a contiguous run of whole tiles of kLoadsInFlight vectors a
// thread, a trip a tile, and a round's end every kTripsPerRound<In> trips. Blocks with one tile fewer
// finish early and free their slot for the next call while the others read. The last block also
// takes the vectors after the last whole tile, loaded together; head and tail values, one a thread,
// go to add_one.
template <class In, class ThreadSum>
__device__ void add_part(const In* __restrict__ in, std::size_t n, ThreadSum& sum) {
    const std::size_t thread = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    const AlignedBody<In> aligned(in, n);
    if (thread < aligned.head) sum.add_one(widen<ExactFormat<In>>(in[thread]));

    const uint4* __restrict__ body = reinterpret_cast<const uint4*>(in + aligned.head);
    const std::size_t vectors = aligned.vectors, step = blockDim.x, tile = step * kLoadsInFlight;
    const std::size_t tiles = vectors / tile, block = blockIdx.x, grid = gridDim.x;
    const std::size_t base = tiles / grid, extra = tiles % grid;
    std::size_t count = base + (block < extra ? 1 : 0);
    const uint4* __restrict__ p = body + (block * base + (block < extra ? block : extra)) * tile + threadIdx.x;
    while (count != 0) {
        for (int trip = 0; trip < kTripsPerRound<In> && count != 0; ++trip, --count, p += tile) {
            uint4 v[kLoadsInFlight];
#pragma unroll
            for (int k = 0; k < kLoadsInFlight; ++k) v[k] = p[k * step];
            add_trip(sum, v, kLoadsInFlight);
        }
        sum.end_round();
    }
    if (block == grid - 1) {
        const std::size_t rest = tiles * tile + threadIdx.x;
        uint4 v[kLoadsInFlight] = {};
        int valid = 0;
#pragma unroll
        for (int k = 0; k < kLoadsInFlight; ++k)
            if (rest + k * step < vectors) {
                v[k] = body[rest + k * step];
                ++valid;
            }
        if (valid != 0) add_trip(sum, v, valid);
    }
    const std::size_t tail = aligned.tail() + thread;
    if (tail < n) sum.add_one(widen<ExactFormat<In>>(in[tail]));
}

// This thread's part of in[0..n) through its type's thread sum: its register total and, if it used
// them, its digits, normalized. Floats and 16-bit types: the thread's own digits; doubles: its warp's
// digits, shared with its lanes, which every lane of the warp calls together, each digit then below
// 2^33 (normalize_warp_digits).
__device__ inline ThreadTotal add_thread_part(const float* __restrict__ in, std::size_t n, SharedDigits<float> digits) {
    FloatThreadSum sum(digits);
    FloatTrips trips(sum);
    add_part(in, n, trips);
    return sum.finish();
}

__device__ inline ThreadTotal add_thread_part(const __nv_bfloat16* __restrict__ in, std::size_t n, SharedDigits<float> digits) {
    FloatThreadSum sum(digits);
    BfloatTrips trips(sum);
    add_part(in, n, trips);
    return sum.finish();
}

__device__ inline ThreadTotal add_thread_part(const __half* __restrict__ in, std::size_t n, SharedDigits<float> digits) {
    HalfThreadSum sum(digits);
    add_part(in, n, sum);
    return sum.finish();
}

__device__ inline ThreadTotal add_thread_part(const double* __restrict__ in, std::size_t n, WarpDigits digits) {
    for (int k = threadIdx.x % 32; k < exact::kDigits<double>; k += 32) digits.word(k) = 0;
    __syncwarp();
    DoubleThreadSum<kExpansionTerms> sum(digits);
    add_part(in, n, sum);
    __syncwarp();  // every lane's atomics are in
#pragma unroll
    for (int j = 0; j < kExpansionTerms; ++j) add_warp_doubles(digits, sum.term(j));
    __syncwarp();
    normalize_warp_digits(digits);
    return {.specials = sum.specials(), .digits_used = true};
}

}  // namespace shootout::cuda::exact_agent
