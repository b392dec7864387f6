// One thread, explicit SIMD: three AVX2 kernels (f32 lanes, f64 lanes, Kahan lanes), the same three
// with AVX-512, and on Arm with NEON and SVE. Each is available only where the CPU runs its
// instruction set; every build registers all four under their stable names, a build for the other
// architecture with the reason ("not an aarch64 build"; its kernels are simd_unbuilt.cpp's).
#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

struct InstructionSet {
    std::string name;   // in the backend's name: "avx2"
    std::string label;  // in its description: "AVX2"
    std::optional<std::string> (*unavailable)();
    simd::SumToFloat f32, kahan;
    simd::SumToDouble f64;
};

bool register_instruction_set(const InstructionSet& isa) {
    const std::string prefix = "cpu/" + isa.name + "/";
    register_backend(serial_backend(prefix + "f32", isa.label + ", float lanes, 8 independent vector accumulators",
                                    kSerial(Accumulator::f32, Order::lanes), isa.f32, isa.unavailable));
    register_backend(serial_backend(prefix + "kahan",
                                    isa.label + ", Kahan-compensated float lanes, combined by TwoSum and Neumaier summation",
                                    kSerial(Accumulator::compensated_f32, Order::lanes), isa.kahan, isa.unavailable));
    register_backend(serial_backend(prefix + "f64", isa.label + ", each float widened and added in double lanes",
                                    kSerial(Accumulator::f64, Order::lanes), isa.f64, isa.unavailable));
    return true;
}

[[maybe_unused]] const bool registered_avx2 = register_instruction_set(
    {"avx2", "AVX2", simd::avx2_unavailable, simd::sum_avx2_f32, simd::sum_avx2_kahan, simd::sum_avx2_f64});
[[maybe_unused]] const bool registered_avx512 = register_instruction_set(
    {"avx512", "AVX-512", simd::avx512_unavailable, simd::sum_avx512_f32, simd::sum_avx512_kahan, simd::sum_avx512_f64});
[[maybe_unused]] const bool registered_neon = register_instruction_set(
    {"neon", "NEON", simd::neon_unavailable, simd::sum_neon_f32, simd::sum_neon_kahan, simd::sum_neon_f64});
[[maybe_unused]] const bool registered_sve = register_instruction_set(
    {"sve", "SVE (any vector length)", simd::sve_unavailable, simd::sum_sve_f32, simd::sum_sve_kahan, simd::sum_sve_f64});

}  // namespace
}  // namespace shootout
