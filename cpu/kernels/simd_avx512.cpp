// The AVX-512 kernels: 512-bit registers, 16 float or 8 double lanes. Compiled with
// -mavx512f -mavx512vl -mavx512bw -mfma (VL for the masked 256-bit load that feeds the widening
// conversion, BW for the masked 16-bit loads of float16 and bfloat16 input, FMA for the f64 kernel's
// alternate adds: -mavx512f does not imply it in GCC 12).
#include <immintrin.h>

#include <cfloat>
#include <cstdint>

#include "cpu/kernels/simd_exact.hpp"
#include "cpu/kernels/simd_kernels.hpp"
#include "cpu/kernels/simd_lanes.hpp"

namespace shootout::simd {
namespace {

struct Avx512 {
    using Floats = __m512;
    using Doubles = __m512d;
    using Fixed = __m512i;  // 8 int64 lanes

    static Floats add(Floats a, Floats b) { return _mm512_add_ps(a, b); }
    static Doubles add(Doubles a, Doubles b) { return _mm512_add_pd(a, b); }
    static Doubles fma_add(Doubles acc, Doubles v) { return _mm512_fmadd_pd(v, _mm512_set1_pd(1.0), acc); }
    static Floats fma_add(Floats acc, Floats v) { return _mm512_fmadd_ps(v, _mm512_set1_ps(1.0f), acc); }
    // a - b as -(b * 1) + a: one rounding, the bits of sub(a, b), on the FMA units.
    static Floats fma_sub(Floats a, Floats b) { return _mm512_fnmadd_ps(b, _mm512_set1_ps(1.0f), a); }
    static Doubles fma_sub(Doubles a, Doubles b) { return _mm512_fnmadd_pd(b, _mm512_set1_pd(1.0), a); }
    static Floats sub(Floats a, Floats b) { return _mm512_sub_ps(a, b); }
    static Doubles sub(Doubles a, Doubles b) { return _mm512_sub_pd(a, b); }

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
    static Doubles load(const double* p) { return _mm512_loadu_pd(p); }
    static Doubles load_first(const double* p, std::size_t count) {
        return _mm512_maskz_loadu_pd(static_cast<__mmask8>((1u << count) - 1), p);
    }
    // 16 float16 values, converted by vcvtph2ps; 16 bfloat16 values, zero-extended to 32 bits and
    // shifted into a float's upper half. The masked forms for the reason widen() gives.
    static Floats from_halves(const Float16*, __m256i h) { return _mm512_maskz_cvtph_ps(0xFFFF, h); }
    static Floats from_halves(const BFloat16*, __m256i h) {
        return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xFFFF, _mm512_maskz_cvtepu16_epi32(0xFFFF, h), 16));
    }
    template <class Half>
    static Floats load(const Half* p) { return from_halves(p, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
    template <class Half>
    static Floats load_first(const Half* p, std::size_t count) {
        return from_halves(p, _mm256_maskz_loadu_epi16(static_cast<__mmask16>((1u << count) - 1), p));
    }

    struct Pair {
        Floats first, second;
    };
    // 32 16-bit values as two float vectors whose lanes hold them all, in an order only a sum may
    // rely on. float16: two vcvtph2ps of 32 bytes each, straight from memory. bfloat16: one 64-byte
    // load; the even values shifted into a float's upper half (vpslld), the odd ones already there
    // (vpandd clears the even ones beside them): two operations per 32 values, against four for two
    // zero-extending loads.
    static Pair load_pair(const Float16* p) { return {load(p), load(p + 16)}; }
    static Pair load_first_pair(const Float16* p, std::size_t count) {
        return {load_first(p, count < 16 ? count : 16), count > 16 ? load_first(p + 16, count - 16) : Floats{}};
    }
    static Pair split(__m512i h) {
        return {_mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xFFFF, h, 16)),
                _mm512_castsi512_ps(_mm512_and_si512(h, _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))))};
    }
    static Pair load_pair(const BFloat16* p) { return split(_mm512_loadu_si512(p)); }
    static Pair load_first_pair(const BFloat16* p, std::size_t count) {
        return split(_mm512_maskz_loadu_epi16(static_cast<__mmask32>((std::uint64_t{1} << count) - 1), p));
    }

    static Floats zero_where_not_finite(Floats t, Floats v) {
        return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(_mm512_abs_ps(t), _mm512_set1_ps(__builtin_inff()), _CMP_LT_OQ), v);
    }
    static Doubles zero_where_not_finite(Doubles t, Doubles v) {
        return _mm512_maskz_mov_pd(_mm512_cmp_pd_mask(_mm512_abs_pd(t), _mm512_set1_pd(__builtin_inf()), _CMP_LT_OQ), v);
    }

    static void store(float* out, Floats v) { _mm512_storeu_ps(out, v); }
    static void store(double* out, Doubles v) { _mm512_storeu_pd(out, v); }

    // The exact kernel's window (simd_exact.hpp), with mask registers.
    static Floats broadcast(float v) { return _mm512_set1_ps(v); }
    static Doubles broadcast(double v) { return _mm512_set1_pd(v); }
    static Floats abs(Floats v) { return _mm512_abs_ps(v); }
    // max() and half() in their all-lanes masked forms, for the reason widen() gives (GCC 12's
    // _mm512_castps512_ps256 is such an extract too); they compile to vmaxps, and to nothing or one
    // vextractf64x4.
    static Floats max(Floats a, Floats b) { return _mm512_maskz_max_ps(0xFFFF, a, b); }
    template <int Upper>
    static __m256 half(Floats v) { return _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xF, _mm512_castps_pd(v), Upper)); }
    static __mmask16 inside(Floats magnitude, Floats lo, Floats hi) {
        return _mm512_mask_cmp_ps_mask(_mm512_cmp_ps_mask(magnitude, lo, _CMP_GE_OQ), magnitude, hi, _CMP_LT_OQ);
    }
    static bool all(__mmask16 inside) { return inside == 0xFFFF; }
    static unsigned outside_nonzero(__mmask16 inside, Floats magnitude) {
        return _mm512_mask_cmp_ps_mask(static_cast<__mmask16>(~inside), magnitude, _mm512_setzero_ps(), _CMP_NEQ_UQ);
    }
    static Floats keep(__mmask16 inside, Floats v) { return _mm512_maskz_mov_ps(inside, v); }
    static unsigned not_finite(Floats magnitude) { return _mm512_cmp_ps_mask(magnitude, _mm512_set1_ps(FLT_MAX), _CMP_NLE_UQ); }
    // Writes the lanes in `bits` to out[0, popcount) (and anything to the rest of out[0, 16)). The
    // register form of compress and a store: the memory form is far slower on AMD Zen 4.
    static unsigned append(float* out, Floats v, unsigned bits) {
        _mm512_storeu_ps(out, _mm512_maskz_compress_ps(static_cast<__mmask16>(bits), v));
        return static_cast<unsigned>(__builtin_popcount(bits));
    }
    static Fixed fixed(__m256 v, Doubles scale) {
        return _mm512_castpd_si512(_mm512_fmadd_pd(widen(v), scale, _mm512_set1_pd(kFixedBias)));
    }
    static void add_fixed(Fixed& lower, Fixed& upper, Floats v, Doubles scale) {
        lower = _mm512_add_epi64(lower, fixed(half<0>(v), scale));
        upper = _mm512_add_epi64(upper, fixed(half<1>(v), scale));
    }
    // A 16-bit value's integer in its window (simd_exact.hpp): v * 2^-lsb, exact, converted into one of
    // 16 int32 lanes.
    static void add_integers(Fixed& acc, Floats v, Floats scale) {
        acc = _mm512_add_epi32(acc, _mm512_maskz_cvtps_epi32(0xFFFF, _mm512_mul_ps(v, scale)));  // masked: see widen()
    }
    static void store(std::uint64_t* out, Fixed v) { _mm512_storeu_si512(out, v); }
    static Fixed add(Fixed a, Fixed b) { return _mm512_add_epi64(a, b); }
    // A round's magnitude range (simd_exact.hpp): |v|'s bits as 16 unsigned 32-bit lanes.
    static Fixed magnitude_bits(Floats v) { return _mm512_castps_si512(abs(v)); }
    static Fixed max_u32(Fixed a, Fixed b) { return _mm512_maskz_max_epu32(0xFFFF, a, b); }
    static Fixed min_u32(Fixed a, Fixed b) { return _mm512_maskz_min_epu32(0xFFFF, a, b); }
    static Fixed minus_one(Fixed v) { return _mm512_sub_epi32(v, _mm512_set1_epi32(1)); }
    static void store(std::uint32_t* out, Fixed v) { _mm512_storeu_si512(out, v); }
    // The same on 16-bit patterns, 32 lanes.
    template <class Half>
    static Fixed load_bits(const Half* p) { return _mm512_loadu_si512(p); }
    template <class Half>
    static Fixed load_first_bits(const Half* p, std::size_t count) {
        return _mm512_maskz_loadu_epi16(static_cast<__mmask32>((std::uint64_t{1} << count) - 1), p);
    }
    static Fixed magnitude_bits16(Fixed v) { return _mm512_and_si512(v, _mm512_set1_epi16(0x7fff)); }
    static Fixed max_u16(Fixed a, Fixed b) { return _mm512_maskz_max_epu16(0xFFFFFFFF, a, b); }
    static Fixed min_u16(Fixed a, Fixed b) { return _mm512_maskz_min_epu16(0xFFFFFFFF, a, b); }
    static Fixed minus_one16(Fixed v) { return _mm512_sub_epi16(v, _mm512_set1_epi16(1)); }
    static void store(std::uint16_t* out, Fixed v) { _mm512_storeu_si512(out, v); }
};

// Tuned on Zen 5 (the 2-core EPYC VM; one core, GB/s in L1 / L2 / L3 / DRAM, cpu/PERFORMANCE.md):
//   f32: 8 accumulators reach two 64-byte loads a cycle in L1 (486 GB/s; 12 and 16 no faster). No
//        software prefetch: on huge pages the hardware prefetchers alone keep a core streaming, and
//        prefetches cost load slots (-13% in L1, -10% in L2, +-3% beyond).
//   f32_prefetched: the same, prefetching 8 KiB ahead as f64: not a backend, the read ceiling's second
//        candidate (baseline_read.cpp): from this VM's DRAM (2^25-2^28) the prefetching f64 and
//        Kahan kernels read 3-12% faster than the f32 loop at times, and not at others: which loop
//        reads fastest moves with the machine.
//   f64: one float->double conversion per 8 floats bounds it in the caches; alternating the adds
//        between the add and FMA units took it from 118 to 145 GB/s in L1/L2. Prefetch at every
//        size: 4 KiB ahead took it from 107 to 125 GB/s in L3, +5% from DRAM, -2% in L1/L2, and a
//        caller's small chunk (oneTBB's 256 KiB leaves) may come from DRAM; 8 KiB ahead against 4,
//        at the L3's size and twice it (2^23, 2^24 floats): 52 -> 62 and 45 -> 50 GB/s, the same
//        elsewhere (prefetcht0; prefetchnta the same, prefetcht1 -40% in L3).
//   halves (float16, bfloat16): 8 accumulators of 64-byte loads, each widened into two float vectors
//        (Avx512::load_pair), prefetching 8 KiB ahead as f64: without prefetch the 16-bit loops read
//        0.56-0.64 of the f32 loop's GB/s from the Xeon's DRAM at one thread, where f64 (prefetched,
//        as many instructions a line) reads 0.9-1.0 (cpu/PERFORMANCE.md, "Element types").
//   doubles: the f32 loop prefetching 8 KiB ahead, as f64.
//   kahan: each accumulator is a dependency chain of 4 adds; 12 chains (24 of the 32 registers)
//        give 124 GB/s in L2 against 108 for 8 (14 no better), guarded. Unguarded first
//        (simd_lanes.hpp): 4 adds a vector on the two add units, 126-131 GB/s in L2 and L3, 12
//        and 8 chains alike. Two of the four on the FMA units (kahan_uses_fma): 128 -> 184 GB/s in
//        L2, 113 -> 149 in L1; all four of odd chains there: 150. Prefetch as f64: 100 -> 120 in
//        L3 (4 KiB), 47 -> 51 at 2^24 (8 KiB).
//   exact: 4 accumulators take 2 registers each (the lower and upper 8 lanes of a vector); level 0
//        prefetches 4 KiB ahead (2 to 8 KiB measured the same), later levels read L1 and prefetch
//        nothing (simd_exact.hpp).
//   exact_halves: 16-bit input's level 0, in int32 lanes: 8 accumulators leave each lane at most 72
//        of a round's vectors, so its integers may reach 2^24 (simd_exact.hpp's half_window_bits):
//        every float16 below 1 in one window.
struct Avx512Policy {
    static constexpr Loop f32{.accumulators = 8};
    static constexpr Loop f32_prefetched{.accumulators = 8, .prefetch_bytes = 8192};
    static constexpr Loop f64{.accumulators = 8, .prefetch_bytes = 8192};
    static constexpr Loop halves{.accumulators = 8, .prefetch_bytes = 8192};
    static constexpr Loop doubles{.accumulators = 8, .prefetch_bytes = 8192};
    static constexpr Loop kahan{.accumulators = 12, .prefetch_bytes = 8192};
    static constexpr Loop exact{.accumulators = 4, .prefetch_bytes = 4096};
    static constexpr Loop exact_halves{.accumulators = 8, .prefetch_bytes = 4096};
    static constexpr bool f64_alternates_fma = true;
    static constexpr bool kahan_uses_fma = true;
};

}  // namespace

float sum_avx512_f32(const float* x, std::size_t n) { return sum_f32<Avx512, Avx512Policy>(x, n); }
float sum_avx512_f32_prefetched(const float* x, std::size_t n) { return sum_f32_prefetched<Avx512, Avx512Policy>(x, n); }
float sum_avx512_kahan(const float* x, std::size_t n) { return sum_kahan<Avx512, Avx512Policy>(x, n); }
float sum_avx512_f32(const Float16* x, std::size_t n) { return sum_f32<Avx512, Avx512Policy>(x, n); }
float sum_avx512_f32(const BFloat16* x, std::size_t n) { return sum_f32<Avx512, Avx512Policy>(x, n); }
float sum_avx512_kahan(const Float16* x, std::size_t n) { return sum_kahan<Avx512, Avx512Policy>(x, n); }
float sum_avx512_kahan(const BFloat16* x, std::size_t n) { return sum_kahan<Avx512, Avx512Policy>(x, n); }
double sum_avx512_kahan(const double* x, std::size_t n) { return sum_kahan<Avx512, Avx512Policy>(x, n); }
double sum_avx512_f64(const float* x, std::size_t n) { return sum_f64<Avx512, Avx512Policy>(x, n); }
double sum_avx512_f64(const double* x, std::size_t n) { return sum_f64<Avx512, Avx512Policy>(x, n); }
void accumulate_avx512_exact(const float* x, std::size_t n, exact::Sum<float>& sum) { accumulate_exact<Avx512, Avx512Policy>(x, n, sum); }
void accumulate_avx512_exact(const Float16* x, std::size_t n, exact::Sum<float>& sum) { accumulate_exact<Avx512, Avx512Policy>(x, n, sum); }
void accumulate_avx512_exact(const BFloat16* x, std::size_t n, exact::Sum<float>& sum) { accumulate_exact<Avx512, Avx512Policy>(x, n, sum); }

}  // namespace shootout::simd
