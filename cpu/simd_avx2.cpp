// The AVX2 kernels: 256-bit registers, 8 float or 4 double lanes. Compiled with -mavx2 -mfma.
#include <immintrin.h>

#include "simd_kernels.hpp"
#include "simd_lanes.hpp"

namespace shootout::simd {
namespace {

struct Avx2 {
    using Floats = __m256;
    using Doubles = __m256d;

    static Floats add(Floats a, Floats b) { return _mm256_add_ps(a, b); }
    static Doubles add(Doubles a, Doubles b) { return _mm256_add_pd(a, b); }
    static Doubles fma_add(Doubles acc, Doubles v) { return _mm256_fmadd_pd(v, _mm256_set1_pd(1.0), acc); }
    static Floats sub(Floats a, Floats b) { return _mm256_sub_ps(a, b); }

    static Floats load(const float* p) { return _mm256_loadu_ps(p); }
    static Floats load_first(const float* p, std::size_t count) {
        const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        return _mm256_maskload_ps(p, _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), lane));
    }
    static Doubles load_widened(const float* p) { return _mm256_cvtps_pd(_mm_loadu_ps(p)); }
    static Doubles load_first_widened(const float* p, std::size_t count) {
        const __m128i lane = _mm_setr_epi32(0, 1, 2, 3);
        return _mm256_cvtps_pd(_mm_maskload_ps(p, _mm_cmpgt_epi32(_mm_set1_epi32(static_cast<int>(count)), lane)));
    }

    static Floats zero_where_not_finite(Floats t, Floats v) {
        const Floats magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), t);
        return _mm256_and_ps(_mm256_cmp_ps(magnitude, _mm256_set1_ps(__builtin_inff()), _CMP_LT_OQ), v);
    }

    static void store(float* out, Floats v) { _mm256_storeu_ps(out, v); }
    static void store(double* out, Doubles v) { _mm256_storeu_pd(out, v); }
};

// 16 ymm registers. Tuned on Zen 5 as Avx512Policy (simd_avx512.cpp), with these differences:
//   f32: twice the loads per cache line of AVX-512, and then software prefetch pays once a range
//        leaves the 1 MiB L2: 102 -> 130 GB/s in L3, 41 -> 45 from DRAM; in L2 it costs 7%.
//   f64: the same alternating adds: 67 -> 89 GB/s in L1/L2.
//   kahan: 6 chains (12 registers, the rest for temporaries and constants) against 4: 35 -> 45
//        GB/s; 7 and 8 spill and are slower. Latency-bound: 6 x 32 bytes per 4 dependent adds.
struct Avx2Policy {
    static constexpr Loop f32{.accumulators = 8, .prefetch_bytes = 4096, .prefetch_from_bytes = std::size_t{1} << 20};
    static constexpr Loop f64{.accumulators = 8, .prefetch_bytes = 4096};
    static constexpr Loop kahan{.accumulators = 6, .prefetch_bytes = 4096};
    static constexpr bool f64_alternates_fma = true;
};

}  // namespace

float sum_avx2_f32(const float* x, std::size_t n) { return sum_f32<Avx2, Avx2Policy>(x, n); }
float sum_avx2_kahan(const float* x, std::size_t n) { return sum_kahan<Avx2, Avx2Policy>(x, n); }
double sum_avx2_f64(const float* x, std::size_t n) { return sum_f64<Avx2, Avx2Policy>(x, n); }

}  // namespace shootout::simd
