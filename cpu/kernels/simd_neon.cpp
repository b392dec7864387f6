// The NEON (Advanced SIMD) kernels: 128-bit registers, 4 float or 2 double lanes. NEON is part of
// every aarch64 CPU's baseline, so this file needs no target flag; it is compiled in aarch64 builds
// only (cpu/CMakeLists.txt).
#include <arm_neon.h>

#include <array>
#include <cstdint>

#include "cpu/kernels/simd_kernels.hpp"
#include "cpu/kernels/simd_lanes.hpp"

namespace shootout::simd {
namespace {

struct Neon {
    using Floats = float32x4_t;
    using Doubles = float64x2_t;

    static Floats add(Floats a, Floats b) { return vaddq_f32(a, b); }
    static Doubles add(Doubles a, Doubles b) { return vaddq_f64(a, b); }
    // acc + v * 1: one rounding, the same bits as add (for a policy with f64_alternates_fma).
    static Doubles fma_add(Doubles acc, Doubles v) { return vfmaq_f64(acc, v, vdupq_n_f64(1.0)); }
    static Floats sub(Floats a, Floats b) { return vsubq_f32(a, b); }
    static Doubles sub(Doubles a, Doubles b) { return vsubq_f64(a, b); }

    static Floats load(const float* p) { return vld1q_f32(p); }
    static Doubles load_widened(const float* p) { return vcvt_f64_f32(vld1_f32(p)); }
    static Doubles load(const double* p) { return vld1q_f64(p); }
    // 4 float16 values, converted by FCVTL (Armv8's base conversion; float16 arithmetic would need
    // FEAT_FP16); 4 bfloat16 values, shifted left by 16 into 32-bit lanes.
    static uint16x4_t load_halves(const void* p) { return vld1_u16(static_cast<const std::uint16_t*>(p)); }
    static Floats load(const Float16* p) { return vcvt_f32_f16(vreinterpret_f16_u16(load_halves(p))); }
    static Floats load(const BFloat16* p) { return vreinterpretq_f32_u32(vshll_n_u16(load_halves(p), 16)); }
    struct Pair {
        Floats first, second;
    };
    // 8 16-bit values (16 bytes) as two float vectors: FCVTL and FCVTL2, or SHLL and SHLL2.
    static Pair load_pair(const Float16* p) {
        const float16x8_t h = vreinterpretq_f16_u16(vld1q_u16(reinterpret_cast<const std::uint16_t*>(p)));
        return {vcvt_f32_f16(vget_low_f16(h)), vcvt_high_f32_f16(h)};
    }
    static Pair load_pair(const BFloat16* p) {
        const uint16x8_t h = vld1q_u16(reinterpret_cast<const std::uint16_t*>(p));
        return {vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h), 16)), vreinterpretq_f32_u32(vshll_high_n_u16(h, 16))};
    }
    // NEON has no masked load: the last count (< Lanes) values are copied into a zeroed array, then
    // loaded, so nothing past the end is read. Once per call, after the vector loop.
    template <std::size_t Lanes, class T>
    static std::array<T, Lanes> first(const T* p, std::size_t count) {
        std::array<T, Lanes> lane{};
        for (std::size_t i = 0; i < count; ++i) lane[i] = p[i];
        return lane;
    }
    static Floats load_first(const float* p, std::size_t count) { return vld1q_f32(first<4>(p, count).data()); }
    static Doubles load_first_widened(const float* p, std::size_t count) {
        return vcvt_f64_f32(vld1_f32(first<2>(p, count).data()));
    }
    static Doubles load_first(const double* p, std::size_t count) { return vld1q_f64(first<2>(p, count).data()); }
    template <class Half>
    static Floats load_first(const Half* p, std::size_t count) { return load(first<4>(p, count).data()); }
    template <class Half>
    static Pair load_first_pair(const Half* p, std::size_t count) { return load_pair(first<8>(p, count).data()); }

    // vcaltq: |t| < |inf|, false for infinities and NaN.
    static Floats zero_where_not_finite(Floats t, Floats v) {
        const uint32x4_t finite = vcaltq_f32(t, vdupq_n_f32(__builtin_inff()));
        return vreinterpretq_f32_u32(vandq_u32(finite, vreinterpretq_u32_f32(v)));
    }
    static Doubles zero_where_not_finite(Doubles t, Doubles v) {
        const uint64x2_t finite = vcaltq_f64(t, vdupq_n_f64(__builtin_inf()));
        return vreinterpretq_f64_u64(vandq_u64(finite, vreinterpretq_u64_f64(v)));
    }

    static void store(float* out, Floats v) { vst1q_f32(out, v); }
    static void store(double* out, Doubles v) { vst1q_f64(out, v); }
};

// 32 vector registers: 8 accumulators for every kernel, Kahan's 16 (sum, compensation) registers too.
// That covers the add latency times the FP pipes of the common server cores (Neoverse N1: 2-cycle
// FADD on 2 pipes; V1/V2: 2 cycles on 4), per Arm's software optimization guides: not measured here,
// this project has no Arm machine yet. The prefetch distance is the x86 kernels' first (cpu/PERFORMANCE.md),
// likewise unmeasured on Arm; Arm cores' hardware prefetchers may make it redundant, not harmful.
// Every kernel prefetches at every size, as the x86 kernels did before their per-kernel tuning
// (simd_lanes.hpp's Loop), 4 KiB ahead. Neither the f64 nor the Kahan adds go to FMAs: on these cores
// FADD and FMLA issue to the same pipes, FMLA with the longer latency, so it could only lengthen the chains.
struct NeonPolicy {
    static constexpr Loop f32{.accumulators = 8, .prefetch_bytes = 4096};
    static constexpr Loop f64{.accumulators = 8, .prefetch_bytes = 4096};
    static constexpr Loop halves = f32;
    static constexpr Loop doubles = f32;
    static constexpr Loop kahan{.accumulators = 8, .prefetch_bytes = 4096};
    static constexpr bool f64_alternates_fma = false;
    static constexpr bool kahan_uses_fma = false;
};

}  // namespace

float sum_neon_f32(const float* x, std::size_t n) { return sum_f32<Neon, NeonPolicy>(x, n); }
float sum_neon_kahan(const float* x, std::size_t n) { return sum_kahan<Neon, NeonPolicy>(x, n); }
float sum_neon_f32(const Float16* x, std::size_t n) { return sum_f32<Neon, NeonPolicy>(x, n); }
float sum_neon_f32(const BFloat16* x, std::size_t n) { return sum_f32<Neon, NeonPolicy>(x, n); }
float sum_neon_kahan(const Float16* x, std::size_t n) { return sum_kahan<Neon, NeonPolicy>(x, n); }
float sum_neon_kahan(const BFloat16* x, std::size_t n) { return sum_kahan<Neon, NeonPolicy>(x, n); }
double sum_neon_kahan(const double* x, std::size_t n) { return sum_kahan<Neon, NeonPolicy>(x, n); }
double sum_neon_f64(const float* x, std::size_t n) { return sum_f64<Neon, NeonPolicy>(x, n); }
double sum_neon_f64(const double* x, std::size_t n) { return sum_f64<Neon, NeonPolicy>(x, n); }

}  // namespace shootout::simd
