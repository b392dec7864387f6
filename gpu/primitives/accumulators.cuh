// How a thread adds floats into its running state, and how two states combine. Kernels are written
// once over this policy: plain float, double, or Kahan-compensated float.
#pragma once

#include <cuda_runtime.h>

#include "bench/backend.hpp"

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

// Adds a 16-byte vector's four lanes.
template <class Acc>
__device__ void add4(typename Acc::State& s, float4 v) {
    Acc::add(s, v.x);
    Acc::add(s, v.y);
    Acc::add(s, v.z);
    Acc::add(s, v.w);
}

}  // namespace shootout::cuda
