// Every backend whose traits say Accumulator::exact, CPU and CUDA, against bench's exact_sum (an
// independent superaccumulator): the same bits, on the inputs where any other order of additions
// loses, for every thread count and call, and between CPU and GPU. Without a usable GPU the CUDA
// cases report skipped, with the reason the backend gives.
#include <gtest/gtest.h>

#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bench/backend.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/error_bounds.hpp"
#include "exact/exact_accumulator.hpp"
#include "bench/exact_sum.hpp"
#include "bench/inputs.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

std::vector<const Backend*> exact_backends() {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (b.traits.accumulator == Accumulator::exact) list.push_back(&b);
    return list;
}

std::string hex(double x) {
    char text[40];
    std::snprintf(text, sizeof text, "%a", x);
    return text;
}

// The same bits: NaN's included, +0 is not -0.
::testing::AssertionResult same_bits(double got, double want) {
    if (std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << hex(got) << ", the exact sum rounded is " << hex(want);
}

double exact(std::span<const float> input) { return exact_sum(input).round(); }

std::vector<float> generate(const std::string& input, std::size_t n, std::uint64_t seed = 42) {
    InputSpec spec;
    if (input == "normal") spec.distribution = Distribution::normal;
    else if (input == "wide") spec.distribution = Distribution::wide;
    else if (input == "cancel") spec.distribution = Distribution::cancel;
    else {
        spec.distribution = Distribution::ill_conditioned;
        spec.condition = std::stod(input.substr(4));  // "ill:1e16"
    }
    spec.seed = seed;
    std::vector<float> v(n);
    fill(v, spec);
    return v;
}

std::vector<float> random_bits(std::size_t n, std::uint32_t mask, std::uint32_t set, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = std::bit_cast<float>((static_cast<std::uint32_t>(rng()) & mask) | set);
    return v;
}

constexpr std::size_t kOdd = 1000003;

class EveryExactBackend : public ::testing::TestWithParam<const Backend*> {
protected:
    void SetUp() override {
        if (auto reason = GetParam()->why_unavailable()) GTEST_SKIP() << *reason;
    }
    const Backend& backend() const { return *GetParam(); }

    // Two calls on one prepared input: the second must give the same from scratch.
    double sum(std::span<const float> input, int threads = 2) const {
        auto reduction = backend().prepare(input, {.threads = threads});
        reduction->run();
        const double first = reduction->result();
        reduction->run();
        EXPECT_TRUE(same_bits(reduction->result(), first)) << "second call";
        return first;
    }
};

TEST_P(EveryExactBackend, EmptyIsPositiveZero) { EXPECT_TRUE(same_bits(sum({}), 0.0)); }

TEST_P(EveryExactBackend, OneElement) {
    for (float x : {1.0f, -3.5f, 0.1f, 0x1p-149f, -0x1p-126f, FLT_MAX, -FLT_MAX, 0.0f, -0.0f}) {
        const std::vector<float> one{x};
        EXPECT_TRUE(same_bits(sum(one), exact(one))) << x;
    }
}

TEST_P(EveryExactBackend, OddSizesAndUnalignedStarts) {
    const auto data = generate("normal", kOdd + 3);
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{31}, kOdd})
        for (std::size_t offset : {0u, 1u, 3u}) {
            const std::span<const float> input(data.data() + offset, n);
            EXPECT_TRUE(same_bits(sum(input), exact(input))) << "n=" << n << " offset=" << offset;
        }
}

TEST_P(EveryExactBackend, HardInputs) {
    for (const char* input : {"ill:1e8", "ill:1e16", "ill:1e30", "wide", "cancel"})
        for (std::size_t n : {std::size_t{1000}, kOdd}) {
            const auto v = generate(input, n);
            const double s = exact(v);
            const double got = sum(v);
            EXPECT_TRUE(same_bits(got, s)) << input << " n=" << n;
            // The promise in the harness's terms: at most half an ulp of S, 0 when S is a double.
            EXPECT_LE(relative_error(got, exact_sum(v)), bounds::kDoubleU) << input;
        }
}

TEST_P(EveryExactBackend, AllSubnormal) {
    const auto v = random_bits(kOdd, 0x807fffffu, 0, 1);  // biased exponent 0, both signs
    EXPECT_TRUE(same_bits(sum(v), exact(v)));
    const auto positive = random_bits(kOdd, 0x007fffffu, 0, 2);
    EXPECT_TRUE(same_bits(sum(positive), exact(positive)));
}

// 2^20 floats near FLT_MAX: their sum, about 2^148, overflows any float accumulator but is a
// finite double.
TEST_P(EveryExactBackend, NearFltMaxOverflowsFloatsNotDouble) {
    const auto v = random_bits(std::size_t{1} << 20, 0x007fffffu, 0x7f000000u, 3);  // [2^127, 2^128)
    const double s = exact(v);
    ASSERT_GT(s, FLT_MAX);
    ASSERT_TRUE(std::isfinite(s));
    EXPECT_TRUE(same_bits(sum(v), s));
}

// Exact sums halfway between two doubles round to the even one; a lower bit breaks the tie.
TEST_P(EveryExactBackend, TiesRoundToEven) {
    const std::vector<std::vector<float>> cases = {
        {1.0f, 0x1p-53f},                 // 1 + 2^-53: halfway, down to 1
        {1.0f, 0x1p-52f, 0x1p-53f},       // 1 + 3 2^-53: halfway, up to 1 + 2^-51
        {1.0f, 0x1p-53f, 0x1p-100f},      // just above halfway: up
        {-1.0f, -0x1p-53f, -0x1p-100f},   // and below -halfway: down
        {0x1p60f, 0x1p7f, -0x1p-60f},     // 2^60 + 2^7 - 2^-60: just below halfway, down to 2^60
    };
    const double want[] = {1.0, 1.0 + 0x1p-51, 1.0 + 0x1p-52, -1.0 - 0x1p-52, 0x1p60};
    for (std::size_t c = 0; c < cases.size(); ++c) {
        ASSERT_TRUE(same_bits(exact(cases[c]), want[c])) << "case " << c;
        EXPECT_TRUE(same_bits(sum(cases[c]), want[c])) << "case " << c;
        // The same values spread over a long input of zeros, so that threads and vector lanes split them.
        std::vector<float> spread(kOdd, 0.0f);
        for (std::size_t k = 0; k < cases[c].size(); ++k) spread[k * (kOdd / cases[c].size())] = cases[c][k];
        EXPECT_TRUE(same_bits(sum(spread, 3), want[c])) << "case " << c << ", spread";
    }
}

TEST_P(EveryExactBackend, NanAndInfinityAsIeeeAdditionGivesThem) {
    constexpr float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const double dinf = std::numeric_limits<double>::infinity();
    for (std::size_t n : {std::size_t{1}, std::size_t{33}, kOdd})
        for (std::size_t where : {std::size_t{0}, n / 2, n - 1}) {
            std::vector<float> v = generate("ill:1e16", n);
            v[where] = nan;
            EXPECT_TRUE(std::isnan(sum(v))) << "NaN at " << where << " of " << n;
            v[where] = inf;
            EXPECT_TRUE(same_bits(sum(v), dinf)) << "+Inf at " << where << " of " << n;
            v[where] = -inf;
            EXPECT_TRUE(same_bits(sum(v), -dinf)) << "-Inf at " << where << " of " << n;
            if (n == 1) continue;
            v[n - 1 - where == where ? 0 : n - 1 - where] = inf;
            EXPECT_TRUE(std::isnan(sum(v))) << "+Inf and -Inf";
            v[where] = nan;
            EXPECT_TRUE(std::isnan(sum(v))) << "NaN and +Inf";
        }
}

TEST_P(EveryExactBackend, SameBitsForEveryThreadCountAndCall) {
    const auto v = generate("ill:1e16", (std::size_t{1} << 20) + 7);
    const double s = exact(v);
    for (int threads : {1, 2, 3, 7}) {
        if (!backend().parallel && threads > 1) break;
        auto reduction = backend().prepare(v, {.threads = threads});
        for (int call = 0; call < 5; ++call) {
            reduction->run();
            EXPECT_TRUE(same_bits(reduction->result(), s)) << threads << " threads, call " << call;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryExactBackend, ::testing::ValuesIn(exact_backends()), backend_test_name);

TEST(ExactBackends, OnEveryDeviceThisBuildHas) {
    int cpu = 0, cuda = 0, scale_out = 0;
    for (const Backend* b : exact_backends()) {
        if (b->distributed || b->multi_gpu) ++scale_out;  // mpi/exact, nccl/exact: one process, one GPU here
        else (b->device == Device::cpu ? cpu : cuda) += 1;
    }
    EXPECT_EQ(cpu, 3);
    if (auto missing = cuda_unbuilt()) GTEST_SKIP() << *missing;
    EXPECT_EQ(cuda, 1);
    EXPECT_EQ(scale_out, 2);
}

// The test can fail: a plain float sum of ill:1e16 is nowhere near the exact sum's bits.
TEST(ExactBackends, AWrongOrderDiffersOnIllConditionedInput) {
    const auto v = generate("ill:1e16", kOdd);
    float plain = 0;
    for (float x : v) plain += x;
    EXPECT_FALSE(same_bits(plain, exact(v)));
    EXPECT_GT(relative_error(plain, exact_sum(v)), 1.0);
}

// Above 2^31 elements, where 32-bit indices wrap, on the GPU where its memory allows (the CPU
// backends index with size_t from end to end).
TEST(ExactBackends, AboveTwoTo31ElementsOnTheGpu) {
    if (auto missing = cuda_unbuilt()) GTEST_SKIP() << *missing;
    for (const Backend* b : exact_backends()) {
        if (b->device != cuda::kDevice) continue;
        if (auto reason = b->why_unavailable()) GTEST_SKIP() << b->name << ": " << *reason;
        static const std::vector<float> data = generate("ill:1e16", (std::size_t{1} << 31) + 1001);
        static const double s = exact(data);
        try {
            auto reduction = b->prepare(data, {});
            reduction->run();
            EXPECT_TRUE(same_bits(reduction->result(), s)) << b->name;
        } catch (const ResourceExhausted& e) {
            GTEST_SKIP() << "the device lacks the memory: " << e.what();
        }
    }
}

// The same bits from a CPU and a GPU exact backend on the same input.
TEST(ExactBackends, CpuAndGpuGiveTheSameBits) {
    std::vector<const Backend*> cpu, gpu;
    for (const Backend* b : exact_backends()) (b->device == Device::cpu ? cpu : gpu).push_back(b);
    if (auto missing = cuda_unbuilt()) GTEST_SKIP() << *missing;
    ASSERT_FALSE(gpu.empty());
    for (const Backend* g : gpu)
        if (auto reason = g->why_unavailable()) GTEST_SKIP() << g->name << ": " << *reason;
    for (const char* input : {"ill:1e16", "ill:1e30", "wide", "cancel", "normal"}) {
        const auto v = generate(input, (std::size_t{1} << 22) + 5);
        for (const Backend* c : cpu)
            for (const Backend* g : gpu) {
                auto on_cpu = c->prepare(v, {.threads = 3}), on_gpu = g->prepare(v, {});
                on_cpu->run();
                on_gpu->run();
                EXPECT_TRUE(same_bits(on_gpu->result(), on_cpu->result())) << input << ": " << g->name << " vs " << c->name;
            }
    }
}

// The run-time dispatch picks one exact kernel; every one this CPU runs must agree with it, so that
// an AVX-512 machine tests the AVX2 kernel too.
TEST(ExactKernels, EveryKernelThisCpuRunsGivesTheSameBits) {
    struct Kernel {
        const char* name;
        simd::AccumulateExact accumulate;
        std::optional<std::string> (*unavailable)();
    };
    const Kernel kernels[] = {{"scalar", simd::accumulate_exact_scalar, [] { return std::optional<std::string>(); }},
                              {"avx2", simd::accumulate_avx2_exact, simd::avx2_unavailable},
                              {"avx512", simd::accumulate_avx512_exact, simd::avx512_unavailable}};
    for (const char* input : {"ill:1e16", "ill:1e30", "wide", "cancel", "normal"}) {
        const auto v = generate(input, kOdd);
        for (std::size_t offset : {0u, 3u}) {
            const std::span<const float> x(v.data() + offset, v.size() - offset);
            const double s = exact(x);
            for (const Kernel& k : kernels) {
                if (auto why = k.unavailable()) {
                    std::cout << "not checked here: " << k.name << ": " << *why << '\n';
                    continue;
                }
                exact::Sum total;
                k.accumulate(x.data(), x.size(), total);
                EXPECT_TRUE(same_bits(total.round(), s)) << k.name << " on " << input << ", offset " << offset;
            }
        }
    }
}

}  // namespace
}  // namespace shootout
