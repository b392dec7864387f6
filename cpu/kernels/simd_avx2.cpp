// The AVX2 kernels: 256-bit registers, 8 float or 4 double lanes. Compiled with -mavx2 -mfma -mf16c.
#include <immintrin.h>

#include <cfloat>
#include <cstdint>
#include <cstring>

#include "cpu/kernels/simd_exact.hpp"
#include "cpu/kernels/simd_kernels.hpp"
#include "cpu/kernels/simd_lanes.hpp"

namespace shootout::simd {
namespace {

// For each 8-lane mask, the indices of its lanes packed to the front, one per byte: AVX2 has no
// compress instruction; a table lookup and one permute make one.
struct PackTable {
    std::uint64_t indices[256];
};
constexpr PackTable kPack = [] {
    PackTable table{};
    for (unsigned mask = 0; mask < 256; ++mask)
        for (unsigned lane = 0, packed = 0; lane < 8; ++lane)
            if (mask >> lane & 1) table.indices[mask] |= std::uint64_t{lane} << (8 * packed++);
    return table;
}();

struct Avx2 {
    using Floats = __m256;
    using Doubles = __m256d;
    using Fixed = __m256i;  // 4 int64 lanes

    static Floats add(Floats a, Floats b) { return _mm256_add_ps(a, b); }
    static Doubles add(Doubles a, Doubles b) { return _mm256_add_pd(a, b); }
    static Doubles fma_add(Doubles acc, Doubles v) { return _mm256_fmadd_pd(v, _mm256_set1_pd(1.0), acc); }
    static Floats sub(Floats a, Floats b) { return _mm256_sub_ps(a, b); }
    static Doubles sub(Doubles a, Doubles b) { return _mm256_sub_pd(a, b); }

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
    static Doubles load(const double* p) { return _mm256_loadu_pd(p); }
    static Doubles load_first(const double* p, std::size_t count) {
        const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
        return _mm256_maskload_pd(p, _mm256_cmpgt_epi64(_mm256_set1_epi64x(static_cast<long long>(count)), lane));
    }
    // 8 float16 values, converted by F16C; 8 bfloat16 values, zero-extended to 32 bits and shifted
    // into a float's upper half.
    static __m128i load_halves(const void* p) { return _mm_loadu_si128(static_cast<const __m128i*>(p)); }
    static Floats load(const Float16* p) { return _mm256_cvtph_ps(load_halves(p)); }
    static Floats load(const BFloat16* p) { return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(load_halves(p)), 16)); }
    // AVX2 has no 16-bit masked load: the last count (< 8) values are copied into a zeroed vector's
    // worth, then loaded. Once per call, after the vector loop.
    template <class Half>
    static Floats load_first(const Half* p, std::size_t count) {
        Half lane[8] = {};
        std::memcpy(lane, p, count * sizeof(Half));
        return load(lane);
    }

    struct Pair {
        Floats first, second;
    };
    // 16 16-bit values as two float vectors whose lanes hold them all, in an order only a sum may
    // rely on: float16 by two F16C conversions of 16 bytes each, straight from memory; bfloat16 from
    // one 32-byte load, the even values shifted into a float's upper half, the odd ones masked.
    static Pair load_pair(const Float16* p) { return {load(p), load(p + 8)}; }
    static Pair load_pair(const BFloat16* p) {
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
        return {_mm256_castsi256_ps(_mm256_slli_epi32(h, 16)),
                _mm256_castsi256_ps(_mm256_and_si256(h, _mm256_set1_epi32(static_cast<int>(0xFFFF0000u))))};
    }
    template <class Half>
    static Pair load_first_pair(const Half* p, std::size_t count) {
        Half lane[16] = {};
        std::memcpy(lane, p, count * sizeof(Half));
        return load_pair(lane);
    }

    static Floats zero_where_not_finite(Floats t, Floats v) {
        const Floats magnitude = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), t);
        return _mm256_and_ps(_mm256_cmp_ps(magnitude, _mm256_set1_ps(__builtin_inff()), _CMP_LT_OQ), v);
    }
    static Doubles zero_where_not_finite(Doubles t, Doubles v) {
        const Doubles magnitude = _mm256_andnot_pd(_mm256_set1_pd(-0.0), t);
        return _mm256_and_pd(_mm256_cmp_pd(magnitude, _mm256_set1_pd(__builtin_inf()), _CMP_LT_OQ), v);
    }

    static void store(float* out, Floats v) { _mm256_storeu_ps(out, v); }
    static void store(double* out, Doubles v) { _mm256_storeu_pd(out, v); }

    // The exact kernel's window (simd_exact.hpp). A mask is a vector of all-ones or zero lanes.
    static Floats broadcast(float v) { return _mm256_set1_ps(v); }
    static Doubles broadcast(double v) { return _mm256_set1_pd(v); }
    static Floats abs(Floats v) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), v); }
    static Floats max(Floats a, Floats b) { return _mm256_max_ps(a, b); }
    static Floats inside(Floats magnitude, Floats lo, Floats hi) {
        return _mm256_and_ps(_mm256_cmp_ps(magnitude, lo, _CMP_GE_OQ), _mm256_cmp_ps(magnitude, hi, _CMP_LT_OQ));
    }
    static bool all(Floats inside) { return _mm256_movemask_ps(inside) == 0xFF; }
    static unsigned outside_nonzero(Floats inside, Floats magnitude) {
        return static_cast<unsigned>(_mm256_movemask_ps(_mm256_andnot_ps(inside, _mm256_cmp_ps(magnitude, Floats{}, _CMP_NEQ_UQ))));
    }
    static Floats keep(Floats inside, Floats v) { return _mm256_and_ps(inside, v); }
    static unsigned not_finite(Floats magnitude) {
        return static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(magnitude, _mm256_set1_ps(FLT_MAX), _CMP_NLE_UQ)));
    }
    // Writes the lanes in `bits` to out[0, popcount) (and anything to the rest of out[0, 8)).
    static unsigned append(float* out, Floats v, unsigned bits) {
        const __m256i index = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(kPack.indices[bits])));
        _mm256_storeu_ps(out, _mm256_permutevar8x32_ps(v, index));
        return static_cast<unsigned>(__builtin_popcount(bits));
    }
    // No FMA in plain AVX2: a multiply and an add, both exact here.
    static Fixed fixed(__m128 v, Doubles scale) {
        return _mm256_castpd_si256(_mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(v), scale), _mm256_set1_pd(kFixedBias)));
    }
    static void add_fixed(Fixed& lower, Fixed& upper, Floats v, Doubles scale) {
        lower = _mm256_add_epi64(lower, fixed(_mm256_castps256_ps128(v), scale));
        upper = _mm256_add_epi64(upper, fixed(_mm256_extractf128_ps(v, 1), scale));
    }
    // A 16-bit value's integer in its window (simd_exact.hpp): v * 2^-lsb, exact, converted into one of
    // 8 int32 lanes.
    static void add_integers(Fixed& acc, Floats v, Floats scale) { acc = _mm256_add_epi32(acc, _mm256_cvtps_epi32(_mm256_mul_ps(v, scale))); }
    static void store(std::uint64_t* out, Fixed v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v); }
    static Fixed add(Fixed a, Fixed b) { return _mm256_add_epi64(a, b); }
    // A round's magnitude range (simd_exact.hpp): |v|'s bits as 8 unsigned 32-bit lanes.
    static Fixed magnitude_bits(Floats v) { return _mm256_castps_si256(abs(v)); }
    static Fixed max_u32(Fixed a, Fixed b) { return _mm256_max_epu32(a, b); }
    static Fixed min_u32(Fixed a, Fixed b) { return _mm256_min_epu32(a, b); }
    static Fixed minus_one(Fixed v) { return _mm256_sub_epi32(v, _mm256_set1_epi32(1)); }
    static void store(std::uint32_t* out, Fixed v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v); }
    // The same on 16-bit patterns, 16 lanes (no masked 16-bit load: the last count < 16 copied into a
    // zeroed vector's worth).
    template <class Half>
    static Fixed load_bits(const Half* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
    template <class Half>
    static Fixed load_first_bits(const Half* p, std::size_t count) {
        Half lane[16] = {};
        std::memcpy(lane, p, count * sizeof(Half));
        return load_bits(lane);
    }
    static Fixed magnitude_bits16(Fixed v) { return _mm256_and_si256(v, _mm256_set1_epi16(0x7fff)); }
    static Fixed max_u16(Fixed a, Fixed b) { return _mm256_max_epu16(a, b); }
    static Fixed min_u16(Fixed a, Fixed b) { return _mm256_min_epu16(a, b); }
    static Fixed minus_one16(Fixed v) { return _mm256_sub_epi16(v, _mm256_set1_epi16(1)); }
    static void store(std::uint16_t* out, Fixed v) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), v); }
};

// 16 ymm registers. Tuned on Zen 5 as Avx512Policy (simd_avx512.cpp), with these differences:
//   f32: twice the loads per cache line of AVX-512, and then software prefetch pays once a range
//        leaves the 1 MiB L2: 102 -> 130 GB/s in L3, 41 -> 45 from DRAM; in L2 it costs 7%. 8 KiB
//        ahead, as f64 and kahan here: 57 -> 67 GB/s at 2^23 floats against 4 KiB.
//   f64: the same alternating adds: 67 -> 89 GB/s in L1/L2.
//   halves, doubles: the f32 loop (32-byte loads of 16-bit values widened into two vectors, as
//        AVX-512's 64-byte ones): the same prefetch a line.
//   kahan: 6 chains (12 registers, the rest for temporaries and constants) against 4: 35 -> 45
//        GB/s guarded; 7 and 8 spill and are slower. Unguarded first (simd_lanes.hpp), 4 adds a
//        vector on the two add units: 60 GB/s in L1/L2/L3, where 4 chains read 0.94 of it and 8
//        0.99. Prefetch from 1 MiB on, as f32: in L1 the prefetches cost 3%. No FMAs: 6 chains
//        are latency-bound, and an FMA's 4 cycles against an add's 2 lengthen them (61 -> 56 GB/s).
//   exact: its 64-bit integer adds take one cycle: 2 accumulators (4 registers) beside its window
//        constants; level 0 prefetches 4 KiB ahead, later levels read L1 and prefetch nothing
//        (simd_exact.hpp).
//   exact_halves: as AVX-512's, 8 accumulators: at most 136 of a round's vectors a lane, integers
//        below 2^23.
struct Avx2Policy {
    static constexpr Loop f32{.accumulators = 8, .prefetch_bytes = 8192, .prefetch_from_bytes = std::size_t{1} << 20};
    static constexpr Loop f64{.accumulators = 8, .prefetch_bytes = 8192};
    static constexpr Loop halves = f32;
    static constexpr Loop doubles = f32;
    static constexpr Loop kahan{.accumulators = 6, .prefetch_bytes = 8192, .prefetch_from_bytes = std::size_t{1} << 20};
    static constexpr Loop exact{.accumulators = 2, .prefetch_bytes = 4096};
    static constexpr Loop exact_halves{.accumulators = 8, .prefetch_bytes = 4096};
    static constexpr bool f64_alternates_fma = true;
    static constexpr bool kahan_uses_fma = false;
};

}  // namespace

float sum_avx2_f32(const float* x, std::size_t n) { return sum_f32<Avx2, Avx2Policy>(x, n); }
float sum_avx2_f32(const Float16* x, std::size_t n) { return sum_f32<Avx2, Avx2Policy>(x, n); }
float sum_avx2_f32(const BFloat16* x, std::size_t n) { return sum_f32<Avx2, Avx2Policy>(x, n); }
float sum_avx2_kahan(const float* x, std::size_t n) { return sum_kahan<Avx2, Avx2Policy>(x, n); }
float sum_avx2_kahan(const Float16* x, std::size_t n) { return sum_kahan<Avx2, Avx2Policy>(x, n); }
float sum_avx2_kahan(const BFloat16* x, std::size_t n) { return sum_kahan<Avx2, Avx2Policy>(x, n); }
double sum_avx2_kahan(const double* x, std::size_t n) { return sum_kahan<Avx2, Avx2Policy>(x, n); }
double sum_avx2_f64(const float* x, std::size_t n) { return sum_f64<Avx2, Avx2Policy>(x, n); }
double sum_avx2_f64(const double* x, std::size_t n) { return sum_f64<Avx2, Avx2Policy>(x, n); }
void accumulate_avx2_exact(const float* x, std::size_t n, exact::Sum<float>& sum) { accumulate_exact<Avx2, Avx2Policy>(x, n, sum); }
void accumulate_avx2_exact(const Float16* x, std::size_t n, exact::Sum<float>& sum) { accumulate_exact<Avx2, Avx2Policy>(x, n, sum); }
void accumulate_avx2_exact(const BFloat16* x, std::size_t n, exact::Sum<float>& sum) { accumulate_exact<Avx2, Avx2Policy>(x, n, sum); }

}  // namespace shootout::simd
