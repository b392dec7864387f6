// How a thread adds floats into its running state, and how two states combine. Kernels are written
// once over this policy: plain float, double, Kahan-compensated float, or TF32 terms added by the
// tensor cores.
#pragma once

#include <cuda_runtime.h>

#include "bench/backend.hpp"
#include "gpu/primitives/tf32_mma.cuh"

namespace shootout::cuda {

using shootout::Accumulator;

constexpr unsigned kFullWarp = 0xffffffffu;

template <class T>
struct PlainSum {
    using State = T;
    using Result = T;
    static constexpr Accumulator kAccumulator = sizeof(T) == sizeof(double) ? Accumulator::f64 : Accumulator::f32;
    __device__ static State zero() { return T(0); }
    __device__ static void add(State& s, float x) { s += static_cast<T>(x); }
    __device__ static State combine(State a, State b) { return a + b; }
    __device__ static State shuffle_down(State s, unsigned offset) { return __shfl_down_sync(kFullWarp, s, offset); }
    __device__ static Result result(State s) { return s; }
};

// sum + error approximates the true sum of what was added; error holds what rounding took off sum
// (the project's one sign convention, as in cpu/kernels/compensated.hpp).
struct Compensated {
    float sum;
    float error;
};

// Kahan's compensated summation, and for combining two partial states the exact error of adding
// their sums (Knuth's TwoSum) plus both carried errors. Once the sum overflows or meets a NaN, the
// error is dropped (it would be NaN) so that Inf and NaN come out as the plain sum would.
struct KahanSum {
    using State = Compensated;
    using Result = float;
    static constexpr Accumulator kAccumulator = Accumulator::compensated_f32;
    __device__ static State zero() { return {0.0f, 0.0f}; }
    __device__ static void add(State& s, float x) {
        const float y = x + s.error;
        const float t = s.sum + y;
        s.error = isfinite(t) ? y - (t - s.sum) : 0.0f;
        s.sum = t;
    }
    __device__ static State combine(State a, State b) {
        const float s = a.sum + b.sum;
        if (!isfinite(s)) return {s, 0.0f};
        const float b_part = s - a.sum;
        const float rounding = (a.sum - (s - b_part)) + (b.sum - b_part);
        return {s, a.error + b.error + rounding};
    }
    __device__ static State shuffle_down(State s, unsigned offset) {
        return {__shfl_down_sync(kFullWarp, s.sum, offset), __shfl_down_sync(kFullWarp, s.error, offset)};
    }
    __device__ static Result result(State s) { return isfinite(s.sum) ? s.sum + s.error : s.sum; }
};

// Tensor-core sums: each float becomes Terms TF32 terms (1: tf32_round, 2: tf32_split), which MMAs
// add (mma_ones_column) into a float state; states combine as floats. Where every lane of the warp
// adds vectors at the same point, add_warp adds the warp's 128 floats of each vector with one MMA
// per term, all of them chained through the MMA's float accumulator, and the first lane of each group
// of four adds the group's two row sums to its state. Where lanes add alone (heads, tails, partial
// tiles), add adds the float the terms make, exact in float: each float is added as the same terms
// on either path.
template <int Terms>
struct Tf32Sum {
    static_assert(Terms == 1 || Terms == 2);
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
    template <int N>
    __device__ static void add_warp(State& s, const float4 (&v)[N]) {
        static_assert(N <= 8, "tests/error_bounds.hpp bounds chains of up to 8 loads' MMAs");
        float4 d{};
#pragma unroll
        for (int k = 0; k < N; ++k) {
            if constexpr (Terms == 1) {
                d = mma_ones_column(make_float4(tf32_round(v[k].x), tf32_round(v[k].y), tf32_round(v[k].z), tf32_round(v[k].w)), d);
            } else {
                // Row g gets each lane's hi and lo of x (then z), row g + 8 those of y (then w).
                const Tf32Pair x = tf32_split(v[k].x), y = tf32_split(v[k].y), z = tf32_split(v[k].z), w = tf32_split(v[k].w);
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
concept WarpCollective = requires(typename Acc::State& s, const float4 (&v)[1]) { Acc::add_warp(s, v); };

// Adds a 16-byte vector's four lanes.
template <class Acc>
__device__ void add4(typename Acc::State& s, float4 v) {
    Acc::add(s, v.x);
    Acc::add(s, v.y);
    Acc::add(s, v.z);
    Acc::add(s, v.w);
}

// Adds N vectors where every lane of the warp adds its N at this point (a loop whose trip count is
// the block's): with the whole warp when the accumulator can.
template <class Acc, int N>
__device__ void add_converged(typename Acc::State& s, const float4 (&v)[N]) {
    if constexpr (WarpCollective<Acc>) {
        Acc::add_warp(s, v);
    } else {
#pragma unroll
        for (int k = 0; k < N; ++k) add4<Acc>(s, v[k]);
    }
}

}  // namespace shootout::cuda
