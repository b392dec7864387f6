// Every registered CPU backend against the exact sum.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "bench/backend.hpp"
#include "tests/backend_test_support.hpp"
#include "bench/exact_sum.hpp"
#include "bench/inputs.hpp"

namespace shootout {
namespace {

std::vector<const Backend*> available_cpu_backends() {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (b.device == Device::cpu && !b.why_unavailable()) list.push_back(&b);
    return list;
}

double sum_with(const Backend& backend, std::span<const float> input, int threads = 2) {
    auto reduction = backend.prepare(input, {.threads = threads});
    reduction->run();
    reduction->run();  // a second call must give the same, from scratch
    return reduction->result();
}

class EveryCpuBackend : public ::testing::TestWithParam<const Backend*> {};

TEST_P(EveryCpuBackend, EmptyIsZero) {
    EXPECT_EQ(sum_with(*GetParam(), {}), 0.0);
}

TEST_P(EveryCpuBackend, ExactOnLaneRemaindersAndUnalignedStarts) {
    const auto data = small_integers(1000003 + 16, 8, 1);
    for (std::size_t n : {1u, 7u, 9u, 15u, 17u, 33u, 1000u, 1000003u})
        for (std::size_t offset : {0u, 1u, 3u}) {
            const std::span<const float> input(data.data() + offset, n);
            EXPECT_EQ(sum_with(*GetParam(), input), exact_sum(input).round()) << "n=" << n << " offset=" << offset;
        }
}

TEST_P(EveryCpuBackend, NanAndInfinityPropagate) {
    for (std::size_t n : {1u, 33u, 1000003u})
        for (std::size_t where : {std::size_t{0}, n / 2, n - 1}) {
            std::vector<float> v(n, 1.0f);
            v[where] = std::numeric_limits<float>::quiet_NaN();
            EXPECT_TRUE(std::isnan(sum_with(*GetParam(), v))) << "NaN at " << where << " of " << n;
            v[where] = std::numeric_limits<float>::infinity();
            EXPECT_EQ(sum_with(*GetParam(), v), std::numeric_limits<double>::infinity()) << "Inf at " << where << " of " << n;
        }
}

// Any order of n - 1 float additions is within (n - 1) u / (1 - (n - 1) u) * sum |x| of S
// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 4.4), u = 2^-24.
TEST_P(EveryCpuBackend, WithinTheRecursiveSummationBoundOnUniformData) {
    std::vector<float> v(1 << 20);
    fill(v, Distribution::uniform, 5);
    const double s = exact_sum(v).round();  // all positive: sum |x| = S
    const double nu = (v.size() - 1) * std::ldexp(1.0, -24);
    EXPECT_LE(std::abs(sum_with(*GetParam(), v) - s), nu / (1 - nu) * s);
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryCpuBackend, ::testing::ValuesIn(available_cpu_backends()), backend_test_name);

}  // namespace
}  // namespace shootout
