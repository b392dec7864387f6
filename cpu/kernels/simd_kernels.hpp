// The summing kernels every SIMD and parallel CPU backend is built from: plain functions over one
// contiguous range (any length, any alignment), and the run-time choice of the widest one this CPU
// runs.
//
// Each instruction set's kernels live in their own source file compiled with that set's target flags
// (simd_avx2.cpp, simd_avx512.cpp on x86-64; simd_neon.cpp, simd_sve.cpp on aarch64), and only in a
// build for that architecture: the other architecture's are stand-ins that throw (simd_unbuilt.cpp).
// Only call them after the matching *_unavailable() said nullopt.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>

#include "api/float16.hpp"

namespace shootout::exact {
template <class T>
struct Sum;  // exact/exact_accumulator.hpp
}

namespace shootout::simd {

using SumToFloat = float (*)(const float* x, std::size_t n);
using SumFloat16ToFloat = float (*)(const Float16* x, std::size_t n);
using SumBFloat16ToFloat = float (*)(const BFloat16* x, std::size_t n);
using SumToDouble = double (*)(const float* x, std::size_t n);
using SumDoublesToDouble = double (*)(const double* x, std::size_t n);
using AccumulateExact = void (*)(const float* x, std::size_t n, exact::Sum<float>& sum);
using AccumulateExactFloat16 = void (*)(const Float16* x, std::size_t n, exact::Sum<float>& sum);
using AccumulateExactBFloat16 = void (*)(const BFloat16* x, std::size_t n, exact::Sum<float>& sum);

// Float lanes, several independent vector accumulators: fast, rounding error grows with n / lanes.
// float16 and bfloat16 values are widened into the float lanes as they are loaded: float16 by the
// ISA's conversion (F16C's vcvtph2ps, AVX-512's, NEON's fcvtl, SVE's fcvt), bfloat16 by a 16-bit
// left shift, or in odd lanes a mask (it is a float's upper half).
float sum_avx2_f32(const float* x, std::size_t n);
float sum_avx512_f32(const float* x, std::size_t n);
float sum_neon_f32(const float* x, std::size_t n);
float sum_sve_f32(const float* x, std::size_t n);
float sum_avx2_f32(const Float16* x, std::size_t n);
float sum_avx512_f32(const Float16* x, std::size_t n);
float sum_neon_f32(const Float16* x, std::size_t n);
float sum_sve_f32(const Float16* x, std::size_t n);
float sum_avx2_f32(const BFloat16* x, std::size_t n);
float sum_avx512_f32(const BFloat16* x, std::size_t n);
float sum_neon_f32(const BFloat16* x, std::size_t n);
float sum_sve_f32(const BFloat16* x, std::size_t n);
// sum_avx512_f32 with software prefetch 8 KiB ahead: the read ceiling's second candidate loop
// (AVX2's f32 loop already prefetches once a range leaves L2).
float sum_avx512_f32_prefetched(const float* x, std::size_t n);

// Kahan-compensated float lanes (16-bit values widened into them), or double lanes for doubles; the
// lanes' sums and compensations are combined with Neumaier's compensated summation at the end.
float sum_avx2_kahan(const float* x, std::size_t n);
float sum_avx512_kahan(const float* x, std::size_t n);
float sum_neon_kahan(const float* x, std::size_t n);
float sum_sve_kahan(const float* x, std::size_t n);
float sum_avx2_kahan(const Float16* x, std::size_t n);
float sum_avx512_kahan(const Float16* x, std::size_t n);
float sum_neon_kahan(const Float16* x, std::size_t n);
float sum_sve_kahan(const Float16* x, std::size_t n);
float sum_avx2_kahan(const BFloat16* x, std::size_t n);
float sum_avx512_kahan(const BFloat16* x, std::size_t n);
float sum_neon_kahan(const BFloat16* x, std::size_t n);
float sum_sve_kahan(const BFloat16* x, std::size_t n);
double sum_avx2_kahan(const double* x, std::size_t n);
double sum_avx512_kahan(const double* x, std::size_t n);
double sum_neon_kahan(const double* x, std::size_t n);
double sum_sve_kahan(const double* x, std::size_t n);

// Double lanes, several independent accumulators: each float widened to double before it is added,
// or doubles as they are.
double sum_avx2_f64(const float* x, std::size_t n);
double sum_avx512_f64(const float* x, std::size_t n);
double sum_neon_f64(const float* x, std::size_t n);
double sum_sve_f64(const float* x, std::size_t n);
double sum_avx2_f64(const double* x, std::size_t n);
double sum_avx512_f64(const double* x, std::size_t n);
double sum_neon_f64(const double* x, std::size_t n);
double sum_sve_f64(const double* x, std::size_t n);

// Adds x[0, n) to an exact sum, in fixed-point windows fitted to the data, as 64-bit integer lanes
// (simd_exact.hpp); leaves its digits normalized. float16 and bfloat16 values are widened to floats
// as they are loaded (their values exactly), float16 into one window that takes every finite one.
void accumulate_avx2_exact(const float* x, std::size_t n, exact::Sum<float>& sum);
void accumulate_avx512_exact(const float* x, std::size_t n, exact::Sum<float>& sum);
void accumulate_avx2_exact(const Float16* x, std::size_t n, exact::Sum<float>& sum);
void accumulate_avx512_exact(const Float16* x, std::size_t n, exact::Sum<float>& sum);
void accumulate_avx2_exact(const BFloat16* x, std::size_t n, exact::Sum<float>& sum);
void accumulate_avx512_exact(const BFloat16* x, std::size_t n, exact::Sum<float>& sum);

// Portable loops with independent accumulators (the compiler vectorises them for the baseline ISA):
// the fallbacks on CPUs with none of the instruction sets above.
inline constexpr std::size_t kUnrolledAccumulators = 16;
float sum_unrolled_f32(const float* x, std::size_t n);
float sum_unrolled_f32(const Float16* x, std::size_t n);
float sum_unrolled_f32(const BFloat16* x, std::size_t n);
double sum_unrolled_f64(const float* x, std::size_t n);
double sum_unrolled_f64(const double* x, std::size_t n);
// One float at a time into the exact sum's digits (Neal's small superaccumulator); leaves them
// normalized. float16 and bfloat16 values widened to floats first, a block at a time.
void accumulate_exact_scalar(const float* x, std::size_t n, exact::Sum<float>& sum);
void accumulate_exact_scalar(const Float16* x, std::size_t n, exact::Sum<float>& sum);
void accumulate_exact_scalar(const BFloat16* x, std::size_t n, exact::Sum<float>& sum);

// Why this CPU cannot run the kernels of that instruction set, or nullopt when it can. In a build
// for another architecture: "not an x86-64 build", "not an aarch64 build".
std::optional<std::string> avx2_unavailable();
std::optional<std::string> avx512_unavailable();
std::optional<std::string> neon_unavailable();
std::optional<std::string> sve_unavailable();

// SVE's vector length on this CPU, in bits (128 to 2048); only where sve_unavailable() said nullopt.
std::size_t sve_vector_bits();

// The widest kernels this CPU runs: on x86-64 AVX-512, else AVX2; on aarch64 SVE, else NEON; else
// the portable loops.
struct Best {
    const char* isa;  // "avx512", "avx2", "sve", "neon" or "portable"
    SumToFloat sum_f32;
    SumToDouble sum_f64;
    SumDoublesToDouble sum_f64_doubles;
    SumFloat16ToFloat sum_f32_f16;
    SumBFloat16ToFloat sum_f32_bf16;
    AccumulateExact accumulate_exact;
    AccumulateExactFloat16 accumulate_exact_f16;
    AccumulateExactBFloat16 accumulate_exact_bf16;
    // The same float lanes in another loop (the same bits), for the read ceiling to time against
    // sum_f32; nullptr where there is none.
    SumToFloat sum_f32_prefetched = nullptr;

    // The kernel the parallel backends run on a range of T: double lanes for floats (widened) and
    // doubles; float lanes for float16 and bfloat16 (widened: what frameworks sum them in).
    template <class T>
    auto lanes_of() const {
        if constexpr (std::is_same_v<T, double>) return sum_f64_doubles;
        else if constexpr (std::is_same_v<T, Float16>) return sum_f32_f16;
        else if constexpr (std::is_same_v<T, BFloat16>) return sum_f32_bf16;
        else return sum_f64;
    }
    // The exact kernel for a range of T: float, float16 or bfloat16.
    template <class T>
    auto exact_of() const {
        if constexpr (std::is_same_v<T, Float16>) return accumulate_exact_f16;
        else if constexpr (std::is_same_v<T, BFloat16>) return accumulate_exact_bf16;
        else return accumulate_exact;
    }
};
const Best& best();

}  // namespace shootout::simd
