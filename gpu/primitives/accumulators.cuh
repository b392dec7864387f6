// How a thread adds values into its running state, and how two states combine. Kernels are written
// once over this policy: plain float or double, or Kahan-compensated float or double. Value is the
// type the additions are carried in; inputs reach add() widened to it (element_vector.cuh).
#pragma once

#include <cuda_runtime.h>

#include "bench/backend.hpp"

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

}  // namespace shootout::cuda
