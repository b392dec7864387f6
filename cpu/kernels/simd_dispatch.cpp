// Run-time choice of kernels from the CPU's features, and the portable fallbacks. Compiled for the
// baseline instruction set, on every architecture: each asks about its own instruction sets only.
#include <algorithm>

#include "exact/exact_accumulator.hpp"
#include "cpu/kernels/simd_kernels.hpp"

#include "platform/cpu_info.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace shootout::simd {
namespace {

// acc[j] takes every kNth element: independent chains the compiler may put in vector registers
// without reassociating anything, so the result does not depend on the compiler's choices.
template <class Accumulator, class T>
Accumulator sum_unrolled(const T* x, std::size_t n) {
    constexpr std::size_t k = kUnrolledAccumulators;
    Accumulator acc[k] = {};
    std::size_t i = 0;
    for (; i + k <= n; i += k)
        for (std::size_t j = 0; j < k; ++j) acc[j] += x[i + j];
    for (std::size_t j = 0; i + j < n; ++j) acc[j] += x[i + j];
    for (std::size_t width = k / 2; width > 0; width /= 2)
        for (std::size_t j = 0; j < width; ++j) acc[j] += acc[j + width];
    return acc[0];
}

}  // namespace

float sum_unrolled_f32(const float* x, std::size_t n) { return sum_unrolled<float>(x, n); }
float sum_unrolled_f32(const Float16* x, std::size_t n) { return sum_unrolled<float>(x, n); }
float sum_unrolled_f32(const BFloat16* x, std::size_t n) { return sum_unrolled<float>(x, n); }
double sum_unrolled_f64(const float* x, std::size_t n) { return sum_unrolled<double>(x, n); }
double sum_unrolled_f64(const double* x, std::size_t n) { return sum_unrolled<double>(x, n); }

void accumulate_exact_scalar(const float* x, std::size_t n, exact::Sum<float>& sum) { exact::accumulate(x, n, sum); }

namespace {

template <class Half>
void accumulate_widened(const Half* x, std::size_t n, exact::Sum<float>& sum) {
    constexpr std::size_t kBlock = 4096;  // 16 KiB of floats: the widened block stays in L1
    float block[kBlock];
    for (std::size_t begin = 0; begin < n; begin += kBlock) {
        const std::size_t count = std::min(kBlock, n - begin);
        std::copy(x + begin, x + begin + count, block);
        exact::accumulate(block, count, sum);
    }
}

}  // namespace

void accumulate_exact_scalar(const Float16* x, std::size_t n, exact::Sum<float>& sum) { accumulate_widened(x, n, sum); }
void accumulate_exact_scalar(const BFloat16* x, std::size_t n, exact::Sum<float>& sum) { accumulate_widened(x, n, sum); }

#if defined(__x86_64__)

namespace {

// CPUID leaf 1, ECX bit 29: Clang 16's __builtin_cpu_supports knows no "f16c".
bool cpu_has_f16c() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
}

}  // namespace

std::optional<std::string> avx2_unavailable() {
    __builtin_cpu_init();  // may run from static initialisers, before the runtime's own call
    if (!__builtin_cpu_supports("avx2")) return "CPU lacks AVX2";
    if (!__builtin_cpu_supports("fma")) return "CPU lacks FMA";  // the f64 kernel's alternate adds
    // float16 input's conversion; every AVX2 CPU has it (Intel since Ivy Bridge, AMD since
    // Piledriver, both before AVX2): checked all the same.
    if (!cpu_has_f16c()) return "CPU lacks F16C";
    return std::nullopt;
}

std::optional<std::string> avx512_unavailable() {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f")) return "CPU lacks AVX-512F";
    if (!__builtin_cpu_supports("avx512vl")) return "CPU lacks AVX-512VL";
    if (!__builtin_cpu_supports("avx512bw")) return "CPU lacks AVX-512BW";  // the masked 16-bit loads of float16 and bfloat16 input
    if (!__builtin_cpu_supports("fma")) return "CPU lacks FMA";  // every AVX-512 CPU has it; checked all the same
    return std::nullopt;
}

#else

std::optional<std::string> avx2_unavailable() { return "not an x86-64 build"; }
std::optional<std::string> avx512_unavailable() { return "not an x86-64 build"; }

#endif

#if defined(__aarch64__)

std::optional<std::string> neon_unavailable() {
    if (!platform::cpu_has_neon()) return "CPU lacks Advanced SIMD (NEON)";
    return std::nullopt;
}

std::optional<std::string> sve_unavailable() {
    if (!platform::cpu_has_sve()) return "CPU lacks SVE";
    return std::nullopt;
}

#else

std::optional<std::string> neon_unavailable() { return "not an aarch64 build"; }
std::optional<std::string> sve_unavailable() { return "not an aarch64 build"; }

#endif

// SVE before NEON: at 128 bits it has NEON's lanes (and the same adds per cycle on the cores that
// have both), and wider where the CPU has wider vectors.
const Best& best() {
    static const Best chosen = [] {
#if defined(__x86_64__)
        if (!avx512_unavailable())
            return Best{"avx512", sum_avx512_f32, sum_avx512_f64, sum_avx512_f64, sum_avx512_f32, sum_avx512_f32,
                        accumulate_avx512_exact, accumulate_avx512_exact, accumulate_avx512_exact, sum_avx512_f32_prefetched};
        if (!avx2_unavailable())
            return Best{"avx2", sum_avx2_f32, sum_avx2_f64, sum_avx2_f64, sum_avx2_f32, sum_avx2_f32, accumulate_avx2_exact,
                        accumulate_avx2_exact, accumulate_avx2_exact};
#elif defined(__aarch64__)
        // No NEON or SVE exact kernel (simd_exact.hpp) yet: the exact sum takes the portable loop.
        if (!sve_unavailable())
            return Best{"sve", sum_sve_f32, sum_sve_f64, sum_sve_f64, sum_sve_f32, sum_sve_f32, accumulate_exact_scalar,
                        accumulate_exact_scalar, accumulate_exact_scalar};
        if (!neon_unavailable())
            return Best{"neon", sum_neon_f32, sum_neon_f64, sum_neon_f64, sum_neon_f32, sum_neon_f32, accumulate_exact_scalar,
                        accumulate_exact_scalar, accumulate_exact_scalar};
#endif
        return Best{"portable", sum_unrolled_f32, sum_unrolled_f64, sum_unrolled_f64, sum_unrolled_f32, sum_unrolled_f32,
                    accumulate_exact_scalar, accumulate_exact_scalar, accumulate_exact_scalar};
    }();
    return chosen;
}

}  // namespace shootout::simd
