// The AVX-512 kernels: 512-bit registers, 16 float or 8 double lanes. Compiled with
// -mavx512f -mavx512vl (VL for the masked 256-bit load that feeds the widening conversion).
#include <immintrin.h>

#include "simd_kernels.hpp"
#include "simd_lanes.hpp"

namespace shootout::simd {
namespace {

struct Avx512 {
    using Floats = __m512;
    using Doubles = __m512d;

    static Floats add(Floats a, Floats b) { return _mm512_add_ps(a, b); }
    static Doubles add(Doubles a, Doubles b) { return _mm512_add_pd(a, b); }
    static Floats sub(Floats a, Floats b) { return _mm512_sub_ps(a, b); }

    static Floats load(const float* p) { return _mm512_loadu_ps(p); }
    static Floats load_first(const float* p, std::size_t count) {
        return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << count) - 1), p);
    }
    // widen() rather than _mm512_cvtps_pd, whose GCC 12 header trips -Wmaybe-uninitialized on its
    // _mm512_undefined_pd(); with every lane selected it compiles to the same plain vcvtps2pd.
    static Doubles widen(__m256 v) { return _mm512_maskz_cvtps_pd(0xFF, v); }
    static Doubles load_widened(const float* p) { return widen(_mm256_loadu_ps(p)); }
    static Doubles load_first_widened(const float* p, std::size_t count) {
        return widen(_mm256_maskz_loadu_ps(static_cast<__mmask8>((1u << count) - 1), p));
    }

    static Floats zero_where_not_finite(Floats t, Floats v) {
        return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(_mm512_abs_ps(t), _mm512_set1_ps(__builtin_inff()), _CMP_LT_OQ), v);
    }

    static void store(float* out, Floats v) { _mm512_storeu_ps(out, v); }
    static void store(double* out, Doubles v) { _mm512_storeu_pd(out, v); }
};

// 32 zmm registers: 8 accumulators for every kernel, Kahan's 16 (sum, compensation) registers too.
// Prefetch 4 KiB ahead: far enough to cover DRAM latency at one core's streaming rate (2 to 8 KiB
// measured the same).
struct Avx512Policy {
    static constexpr int f32_accumulators = 8, f64_accumulators = 8, kahan_accumulators = 8;
    static constexpr std::size_t prefetch_bytes = 4096;
};

}  // namespace

float sum_avx512_f32(const float* x, std::size_t n) { return sum_f32<Avx512, Avx512Policy>(x, n); }
float sum_avx512_kahan(const float* x, std::size_t n) { return sum_kahan<Avx512, Avx512Policy>(x, n); }
double sum_avx512_f64(const float* x, std::size_t n) { return sum_f64<Avx512, Avx512Policy>(x, n); }

}  // namespace shootout::simd
