// How a thread adds values into its running state, and how two states combine. Kernels are written
// once over this policy: plain float or double, Kahan-compensated float or double, or TF32 terms
// added by the tensor cores. Value is the type the additions are carried in; inputs reach add()
// widened to it (element_vector.cuh).
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "api/backend.hpp"
#include "cuda/primitives/element_vector.cuh"
#include "cuda/primitives/tf32_mma.cuh"

namespace shootout::cuda {

using shootout::Accumulator;

constexpr unsigned kFullWarp = 0xffffffffu;

template <class T>
struct PlainSum {
    using Value = T;
    using State = T;
    using Result = T;
    static constexpr Accumulator kAccumulator = sizeof(T) == sizeof(double) ? Accumulator::f64 : Accumulator::f32;
    __device__ static State zero() { return T(0); }
    __device__ static void add(State& s, T x) { s += x; }
    __device__ static State combine(State a, State b) { return a + b; }
    __device__ static State shuffle_down(State s, unsigned offset) { return __shfl_down_sync(kFullWarp, s, offset); }
    __device__ static Result result(State s) { return s; }
};

// sum + error approximates the true sum of what was added; error holds what rounding took off sum
// (the project's one sign convention, as in cpu/kernels/compensated.hpp).
template <class T>
struct Compensated {
    T sum;
    T error;
};

// Kahan's compensated summation in T, and for combining two partial states the exact error of adding
// their sums (Knuth's TwoSum) plus both carried errors. Once the sum overflows or meets a NaN, the
// error is dropped (it would be NaN) so that Inf and NaN come out as the plain sum would.
template <class T>
struct KahanSum {
    using Value = T;
    using State = Compensated<T>;
    using Result = T;
    static constexpr Accumulator kAccumulator = sizeof(T) == sizeof(double) ? Accumulator::compensated_f64 : Accumulator::compensated_f32;
    __device__ static State zero() { return {T(0), T(0)}; }
    __device__ static void add(State& s, T x) {
        const T y = x + s.error;
        const T t = s.sum + y;
        s.error = isfinite(t) ? y - (t - s.sum) : T(0);
        s.sum = t;
    }
    __device__ static State combine(State a, State b) {
        const T s = a.sum + b.sum;
        if (!isfinite(s)) return {s, T(0)};
        const T b_part = s - a.sum;
        const T rounding = (a.sum - (s - b_part)) + (b.sum - b_part);
        return {s, a.error + b.error + rounding};
    }
    __device__ static State shuffle_down(State s, unsigned offset) {
        return {__shfl_down_sync(kFullWarp, s.sum, offset), __shfl_down_sync(kFullWarp, s.error, offset)};
    }
    __device__ static Result result(State s) { return isfinite(s.sum) ? s.sum + s.error : s.sum; }
};

// Tensor-core sums of floats: each float becomes Terms TF32 terms (1: tf32_round, 2: tf32_split),
// which MMAs add (mma_ones_column) into a float state; states combine as floats. Where every lane of
// the warp adds vectors at the same point, add_warp adds the warp's 128 floats of each vector with
// one MMA per term, all of them chained through the MMA's float accumulator, and the first lane of
// each group of four adds the group's two row sums to its state. Where lanes add alone (heads, tails,
// partial tiles), add adds the float the terms make, exact in float: each float is added as the same
// terms on either path.
template <int Terms>
struct Tf32Sum {
    static_assert(Terms == 1 || Terms == 2);
    using Value = float;
    using State = float;
    using Result = float;
    static constexpr Accumulator kAccumulator = Terms == 1 ? Accumulator::tf32 : Accumulator::tf32_split;
    __device__ static State zero() { return 0.0f; }
    __device__ static float terms(float x) {
        if constexpr (Terms == 1) {
            return tf32_round(x);
        } else {
            const Tf32Pair p = tf32_split(x);
            return p.hi + p.lo;
        }
    }
    __device__ static void add(State& s, float x) { s += terms(x); }
    // N 16-byte vectors of In (float: the backends declare f32 input alone).
    template <class In, int N>
    __device__ static void add_warp(State& s, const uint4 (&v)[N]) {
        static_assert(std::is_same_v<In, float>, "the tensor-core sums take float input");
        static_assert(N <= 8, "tests/error_bounds.hpp bounds chains of up to 8 loads' MMAs");
        float4 d{};
#pragma unroll
        for (int k = 0; k < N; ++k) {
            const float4 q = float_quad<In, 0>(v[k]);
            if constexpr (Terms == 1) {
                d = mma_ones_column(make_float4(tf32_round(q.x), tf32_round(q.y), tf32_round(q.z), tf32_round(q.w)), d);
            } else {
                // Row g gets each lane's hi and lo of x (then z), row g + 8 those of y (then w).
                const Tf32Pair x = tf32_split(q.x), y = tf32_split(q.y), z = tf32_split(q.z), w = tf32_split(q.w);
                d = mma_ones_column(make_float4(x.hi, y.hi, x.lo, y.lo), d);
                d = mma_ones_column(make_float4(z.hi, w.hi, z.lo, w.lo), d);
            }
        }
        if (threadIdx.x % 4 == 0) s += d.x + d.z;
    }
    __device__ static State combine(State a, State b) { return a + b; }
    __device__ static State shuffle_down(State s, unsigned offset) { return __shfl_down_sync(kFullWarp, s, offset); }
    __device__ static Result result(State s) { return s; }
};

// An accumulator that adds vectors with the whole warp at once (Tf32Sum).
template <class Acc>
concept WarpCollective = requires(typename Acc::State& s, const uint4 (&v)[1]) { Acc::template add_warp<float>(s, v); };

// Adds N vectors of In where every lane of the warp adds its N at this point (a loop whose trip
// count is the block's): with the whole warp when the accumulator can.
template <class Acc, class In, int N>
__device__ void add_converged(typename Acc::State& s, const uint4 (&v)[N]) {
    if constexpr (WarpCollective<Acc>) {
        Acc::template add_warp<In>(s, v);
    } else {
#pragma unroll
        for (int k = 0; k < N; ++k) add_vector<Acc, In>(s, v[k]);
    }
}

}  // namespace shootout::cuda
