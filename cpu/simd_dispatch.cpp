// Run-time choice of kernels from the CPU's features, and the portable fallbacks. Compiled for the
// baseline instruction set.
#include "simd_kernels.hpp"

namespace shootout::simd {
namespace {

// acc[j] takes every kNth element: independent chains the compiler may put in vector registers
// without reassociating anything, so the result does not depend on the compiler's choices.
template <class Accumulator>
Accumulator sum_unrolled(const float* x, std::size_t n) {
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
double sum_unrolled_f64(const float* x, std::size_t n) { return sum_unrolled<double>(x, n); }

std::optional<std::string> avx2_unavailable() {
    __builtin_cpu_init();  // may run from static initialisers, before the runtime's own call
    if (!__builtin_cpu_supports("avx2")) return "CPU lacks AVX2";
    if (!__builtin_cpu_supports("fma")) return "CPU lacks FMA";  // the f64 kernel's alternate adds
    return std::nullopt;
}

std::optional<std::string> avx512_unavailable() {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f")) return "CPU lacks AVX-512F";
    if (!__builtin_cpu_supports("avx512vl")) return "CPU lacks AVX-512VL";
    if (!__builtin_cpu_supports("fma")) return "CPU lacks FMA";  // every AVX-512 CPU has it; checked all the same
    return std::nullopt;
}

const Best& best() {
    static const Best chosen = [] {
        if (!avx512_unavailable()) return Best{"avx512", sum_avx512_f32, sum_avx512_f64};
        if (!avx2_unavailable()) return Best{"avx2", sum_avx2_f32, sum_avx2_f64};
        return Best{"portable", sum_unrolled_f32, sum_unrolled_f64};
    }();
    return chosen;
}

}  // namespace shootout::simd
