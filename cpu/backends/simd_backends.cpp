// One thread, explicit SIMD: three AVX2 kernels (f32 lanes, f64 lanes, Kahan lanes), the same three
// with AVX-512, and on Arm with NEON and SVE. Each takes the element types its lanes keep: float
// lanes float32 and the 16-bit types (widened as loaded), double lanes float32 and float64, Kahan
// lanes all four (in double lanes for float64). Each is available only where the CPU runs its
// instruction set; every build registers all four under their stable names, a build for the other
// architecture with the reason ("not an aarch64 build"; its kernels are simd_unbuilt.cpp's).
#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

// f32(x, n), kahan(x, n) and f64(x, n): the instruction set's kernels, called on x of each element
// type the backend takes.
template <class F32, class Kahan, class F64>
bool register_instruction_set(const std::string& name, const std::string& label, UnavailableReason unavailable, F32 f32,
                              Kahan kahan, F64 f64) {
    const std::string prefix = "cpu/" + name + "/";
    register_backend(serial_backend<float, Float16, BFloat16>(
        prefix + "f32", label + ", float lanes, 8 independent vector accumulators (float16 and bfloat16 widened into them)",
        kSerial(Accumulator::f32, Order::lanes), f32, unavailable));
    Backend compensated = serial_backend<float, double, Float16, BFloat16>(
        prefix + "kahan",
        label + ", Kahan-compensated float lanes (double lanes for doubles; 16-bit values widened), combined by TwoSum and Neumaier summation",
        kSerial(Accumulator::compensated_f32, Order::lanes), kahan, unavailable);
    compensated.traits_by_type = {{ElementType::f64, kSerial(Accumulator::compensated_f64, Order::lanes)}};
    register_backend(std::move(compensated));
    register_backend(serial_backend<float, double>(prefix + "f64", label + ", double lanes: each float widened, doubles as they are",
                                                   kSerial(Accumulator::f64, Order::lanes), f64, unavailable));
    return true;
}

[[maybe_unused]] const bool registered_avx2 = register_instruction_set(
    "avx2", "AVX2", simd::avx2_unavailable, [](const auto* x, std::size_t n) { return simd::sum_avx2_f32(x, n); },
    [](const auto* x, std::size_t n) { return simd::sum_avx2_kahan(x, n); },
    [](const auto* x, std::size_t n) { return simd::sum_avx2_f64(x, n); });
[[maybe_unused]] const bool registered_avx512 = register_instruction_set(
    "avx512", "AVX-512", simd::avx512_unavailable, [](const auto* x, std::size_t n) { return simd::sum_avx512_f32(x, n); },
    [](const auto* x, std::size_t n) { return simd::sum_avx512_kahan(x, n); },
    [](const auto* x, std::size_t n) { return simd::sum_avx512_f64(x, n); });
[[maybe_unused]] const bool registered_neon = register_instruction_set(
    "neon", "NEON", simd::neon_unavailable, [](const auto* x, std::size_t n) { return simd::sum_neon_f32(x, n); },
    [](const auto* x, std::size_t n) { return simd::sum_neon_kahan(x, n); },
    [](const auto* x, std::size_t n) { return simd::sum_neon_f64(x, n); });
[[maybe_unused]] const bool registered_sve = register_instruction_set(
    "sve", "SVE (any vector length)", simd::sve_unavailable, [](const auto* x, std::size_t n) { return simd::sum_sve_f32(x, n); },
    [](const auto* x, std::size_t n) { return simd::sum_sve_kahan(x, n); },
    [](const auto* x, std::size_t n) { return simd::sum_sve_f64(x, n); });

}  // namespace
}  // namespace shootout
