// simd::best(), whose kernels every parallel CPU backend runs: the widest instruction set of the CPU
// the tests run on, on either architecture; and, in the emulated SVE runs of an aarch64 build, the
// vector length asked for (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "api/backend.hpp"
#include "bench/inputs.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

struct InstructionSet {
    const char* name;
    std::optional<std::string> (*unavailable)();
};

// Widest first. A build runs one architecture's sets at most; the other's say "not an ... build".
const InstructionSet kWidestFirst[] = {
    {"avx512", simd::avx512_unavailable},
    {"avx2", simd::avx2_unavailable},
    {"sve", simd::sve_unavailable},
    {"neon", simd::neon_unavailable},
};

TEST(SimdDispatch, BestIsTheWidestInstructionSetThisCpuRuns) {
    std::string expected = "portable";
    for (const InstructionSet& isa : kWidestFirst)
        if (!isa.unavailable()) {
            expected = isa.name;
            break;
        }
    EXPECT_EQ(simd::best().isa, expected);
}

double sum_with(const char* name, std::span<const float> input) {
    const Backend* backend = find_backend(name);
    if (backend == nullptr) throw std::logic_error(std::string(name) + " is not registered");
    auto reduction = backend->prepare(input, {.threads = 1});
    reduction->run();
    return reduction->result();
}

// At one thread cpu/baseline/read is one of its loops over the whole input, whichever its prepare
// timed fastest: bit for bit the result of the backend that runs that loop alone, the instruction
// set's float-lane or f64 one or cpu/serial/unrolled (another lane count or order gives other
// bits; the portable build's f64 loop has no backend of its own); and cpu/pool/simd is the
// instruction set's f64 kernel.
TEST(SimdDispatch, TheParallelBackendsRunTheBestKernels) {
    std::vector<float> data(100003);
    fill(data, Distribution::uniform, 3);
    const std::span<const float> input(data.data() + 1, data.size() - 1);
    const std::string isa = simd::best().isa;
    const double ceiling = sum_with("cpu/baseline/read", input);
    const double unrolled = sum_with("cpu/serial/unrolled", input);
    if (isa == "portable") {
        EXPECT_TRUE(ceiling == unrolled || ceiling == simd::sum_unrolled_f64(input.data(), input.size())) << ceiling;
        return;
    }
    const double f32 = sum_with(("cpu/" + isa + "/f32").c_str(), input), f64 = sum_with(("cpu/" + isa + "/f64").c_str(), input);
    ASSERT_NE(f32, f64) << "the test cannot tell the loops apart on this input";
    EXPECT_TRUE(ceiling == f32 || ceiling == f64 || ceiling == unrolled)
        << isa << ": " << ceiling << " is none of f32 " << f32 << ", f64 " << f64 << ", unrolled " << unrolled;
    EXPECT_EQ(sum_with("cpu/pool/simd", input), f64) << isa;
}

#if defined(__aarch64__)
TEST(SimdDispatch, SveRunsAtTheLengthAsked) {
    const char* bits = std::getenv("SHOOTOUT_SVE_BITS");
    if (bits == nullptr)
        GTEST_SKIP() << "SHOOTOUT_SVE_BITS is unset: only the emulated SVE runs (tests/CMakeLists.txt) ask for a vector length";
    ASSERT_EQ(simd::sve_unavailable(), std::nullopt);
    EXPECT_EQ(simd::sve_vector_bits(), std::stoul(bits));
}
#endif

}  // namespace
}  // namespace shootout
