// Error bounds from the error analysis of each way of summing, chosen by a backend's traits for the
// element type it sums (accumulator and order): the CPU and CUDA suites check every backend against
// the bound its traits promise, so a new backend needs no entry here.
//
// u is the unit roundoff of the arithmetic the sum is carried in: 2^-24 for float, 2^-53 for double,
// 2^-11 for float16, 2^-8 for bfloat16 (the accumulator's type, not the input's: every narrower
// value is exact in a wider type, and no accumulator is narrower than the input it takes). gamma_k = k u / (1 - k u) bounds the relative error of k
// successive roundings (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Lemma 3.1)
// while k u < 1; past that there is no a priori bound, and gamma is infinite.
#pragma once

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "api/backend.hpp"

namespace shootout::bounds {

inline constexpr double kFloatU = 0x1p-24, kDoubleU = 0x1p-53, kFloat16U = 0x1p-11, kBFloat16U = 0x1p-8;

// The unit roundoff of T's arithmetic: 2^-p for its p significand bits.
template <class T>
inline constexpr double kUnitRoundoff = 1.0 / static_cast<double>(std::uint64_t{1} << std::numeric_limits<T>::digits);

// The unit roundoff of the additions an accumulator makes. Tensor cores truncate (see tensor_core()):
// 2^-23, twice a float's round to nearest.
inline double unit_roundoff(Accumulator accumulator) {
    switch (accumulator) {
        case Accumulator::f32:
        case Accumulator::compensated_f32: return kFloatU;
        case Accumulator::f16: return kFloat16U;
        case Accumulator::bf16: return kBFloat16U;
        case Accumulator::tf32:
        case Accumulator::tf32_split: return 2 * kFloatU;
        default: return kDoubleU;
    }
}

inline double gamma(double k, double u) { return k * u < 1 ? k * u / (1 - k * u) : INFINITY; }

// What the bound is applied to: n inputs, sum |x|, the exact sum S, and the thread count used.
struct Problem {
    std::size_t n;
    double abs_sum, exact;
    int threads;
};

// Any order of n - 1 additions with unit roundoff u: gamma_{n-1} sum |x| (Higham eq. 4.4 holds for
// every summation order). Floats summed in double are exact in it, so this is double accumulation's
// bound for either element type; the result stays a double.
inline double any_order(const Problem& p, double u) { return gamma(static_cast<double>(p.n - 1), u) * p.abs_sum; }

// Kahan, and Neumaier's variant, whose bound is the same or better (Higham, section 4.3), with the
// sum and compensation in a type of unit roundoff u: |E| <= (2u + O(n u^2)) sum |x| (Higham eq. 4.8;
// Goldberg, "What every computer scientist should know about floating-point arithmetic", 1991,
// Theorem 8). Neither source states the O() term's constant: we take it as 2, i.e. 2 n u^2 sum |x|
// (2u at n = u^-1). Plus u |S| for the final rounding of sum + compensation (compensated.hpp: sum +
// compensation ~ total).
inline double kahan(const Problem& p, double u) {
    const double n = static_cast<double>(p.n);
    return u * std::abs(p.exact) + (2 * u + 2 * n * u * u) * p.abs_sum;
}

// The SIMD Kahan kernels: Kahan in each lane over at most n elements (the bound above, with n for
// n / lanes), then the lanes' (sum, compensation) pairs combined: on x86 and NEON (simd_lanes.hpp)
// the accumulators' pairs folded into one by TwoSum (exact) with their compensations, each
// O(u sum |x|), added in the same type, then one Neumaier sum over that pair's 2 x (at most 16)
// lanes; on SVE one Neumaier sum over the 2 x (at most 512: 8 accumulators of SVE's longest,
// 2048-bit vectors) lane sums and compensations. Both are inside gamma_{1023}^2 sum |x|, the bound
// of one Neumaier sum over up to 1024 values (Neumaier's sum is Ogita, Rump and Oishi's Sum2: SIAM
// J. Sci. Comput. 26(6), 2005, Prop. 4.5).
inline double kahan_lanes(const Problem& p, double u) { return kahan(p, u) + std::pow(gamma(1023, u), 2) * p.abs_sum; }

// Blocked pairwise (cpu/serial/pairwise) in a type of unit roundoff u: an element goes through at
// most 25 roundings inside its block of <= 128 (15 accumulator additions, 3 combining the 8
// accumulators, 7 remainder additions) and one per halving above it; halves are rounded down to
// multiples of 8, which can add one level. Higham eq. 4.6 in its blocked form: |E| <= gamma_D sum
// |x|, D = 25 + ceil(log2(n / 128)) + 1.
inline double pairwise(const Problem& p, double u) {
    const double levels = p.n > 128 ? std::ceil(std::log2(static_cast<double>(p.n) / 128)) + 1 : 0;
    return gamma(25 + levels, u) * p.abs_sum;
}

// OpenMP's reduction clause, static schedule: each thread adds its ceil(n / T) elements in order
// into a private float, then the T private sums are added in some order: at most ceil(n / T) + T
// roundings on any element's path, |E| <= gamma_{ceil(n/T) + T} sum |x| (Higham eq. 4.4). Weak: at
// n = 2^24 it says nothing for one thread and a third of S for four.
inline double openmp_float_chunks(const Problem& p) {
    const double per_thread = std::ceil(static_cast<double>(p.n) / p.threads);
    return gamma(per_thread + p.threads, kFloatU) * p.abs_sum;
}

// The exact sum rounded once to double: at most half an ulp of S.
inline double exact_rounded_once(const Problem& p) { return kDoubleU * std::abs(p.exact); }

// How far the terms a sum adds for one float may be from it, relatively: 0 where the float is added
// as it is. TF32 (cuda/primitives/tf32_mma.cuh) keeps 11 significant bits: one term rounded to
// nearest errs by at most 2^-11; a truncated head and the rest rounded to nearest by at most 2 ulps
// of the float, 2^-22 (normal floats; those within half a TF32 ulp, or 2 ulps for the split, of 2^128
// round to infinity).
inline double input_rounding(Accumulator accumulator) {
    return accumulator == Accumulator::tf32 ? 0x1p-11 : accumulator == Accumulator::tf32_split ? 0x1p-22 : 0;
}

// The value a finite float is added as: the sum of its TF32 terms in float, else the float. Written
// with integer operations, apart from the device's conversion instructions.
inline double as_added(float x, Accumulator accumulator) {
    const auto tf32_round = [](float f) {  // to nearest, ties away from zero: half a TF32 ulp, then truncate
        return std::bit_cast<float>((std::bit_cast<std::uint32_t>(f) + 0x1000u) & 0xffffe000u);
    };
    if (accumulator == Accumulator::tf32) return tf32_round(x);
    if (accumulator != Accumulator::tf32_split) return x;
    const float hi = std::bit_cast<float>(std::bit_cast<std::uint32_t>(x) & 0xffffe000u);
    return hi + tf32_round(x - hi);
}

// Tensor-core sums: the terms x' of each float (|x' - x| <= rho |x|, input_rounding) added by chains
// of MMAs and then by float additions. An MMA adds its m addends (8 products by one, and the
// accumulator) aligned to the largest, truncating what falls below its significand: it errs by less
// than m 2^-23 sum |addends|, as m roundings of unit u = 2^-23 would (Fasi, Higham, Mikaitis and
// Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ Comput. Sci. 7:e330, 2021, measured on
// Volta, Turing and Ampere; Hopper is taken to do the same, and the tests hold it to this bound). A
// term passes through at most 16 chained MMAs of 9 addends (a tile's loads, up to 8, times the
// split's 2 terms: accumulators.cuh, Tf32Sum), then float additions, also counted at u:
// |E| <= rho sum |x| + gamma_{n - 1 + 144}(u) (1 + rho) sum |x|.
inline double tensor_core(const Problem& p, double rho, double u) {
    constexpr double kMmaRoundings = 9 * 16;
    return rho * p.abs_sum + gamma(static_cast<double>(p.n - 1) + kMmaRoundings, u) * (1 + rho) * p.abs_sum;
}

// The bound a backend's traits for one element type (Backend::traits_for) promise on this problem;
// nullopt where they promise none (a copy) and infinity where the analysis says nothing at this size.
inline std::optional<double> for_traits(const Traits& traits, const Problem& p) {
    const double u = unit_roundoff(traits.accumulator);
    switch (traits.accumulator) {
        case Accumulator::none: return std::nullopt;
        case Accumulator::exact: return exact_rounded_once(p);
        case Accumulator::compensated_f32:
        case Accumulator::compensated_f64: return traits.order == Order::sequential ? kahan(p, u) : kahan_lanes(p, u);
        case Accumulator::f32:
            if (traits.order == Order::thread_chunks) return openmp_float_chunks(p);
            [[fallthrough]];
        case Accumulator::f64:
        case Accumulator::f16:
        case Accumulator::bf16: return traits.order == Order::pairwise ? pairwise(p, u) : any_order(p, u);
        case Accumulator::tf32:
        case Accumulator::tf32_split: return tensor_core(p, input_rounding(traits.accumulator), u);
    }
    return std::nullopt;
}

}  // namespace shootout::bounds
