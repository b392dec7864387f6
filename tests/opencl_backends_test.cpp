// Every registered OpenCL backend against the exact sum, on whatever OpenCL device the process finds
// (PoCL's CPU device in CI). Without a driver or device every test reports skipped, with the reason
// the backend gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "bench/backend.hpp"
#include "bench/device_api.hpp"
#include "bench/exact_sum.hpp"
#include "bench/inputs.hpp"
#include "opencl/runtime/opencl_api.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/error_bounds.hpp"

namespace shootout {
namespace {

std::vector<const Backend*> opencl_backends() {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (b.device == opencl::kDevice) list.push_back(&b);
    return list;
}

class EveryOpenCLBackend : public ::testing::TestWithParam<const Backend*> {
protected:
    void SetUp() override {
        if (auto reason = GetParam()->why_unavailable()) GTEST_SKIP() << *reason;
    }
    const Backend& backend() const { return *GetParam(); }
};

TEST_P(EveryOpenCLBackend, EmptyIsZero) {
    EXPECT_EQ(device_sum(backend(), {}), 0.0);
    EXPECT_EQ(device_sum(backend(), {}, true), 0.0);
}

// Sizes around the vector width and the launch shape, and inputs whose first element is not on a
// 16-byte boundary (offsets 1 and 3 floats).
TEST_P(EveryOpenCLBackend, ExactOnSmallOddAndUnalignedInputs) {
    const auto data = small_integers(1000003 + 3, 1, 1);
    for (std::size_t n : {1u, 3u, 31u, 1000u, 1000003u})
        for (std::size_t offset : {0u, 1u, 3u}) {
            const auto input = std::span<const float>(data).subspan(offset, n);
            EXPECT_EQ(device_sum(backend(), input), exact_sum(input).round()) << "n=" << n << " offset=" << offset;
        }
}

TEST_P(EveryOpenCLBackend, ExactWithHostToDeviceTransfer) {
    const auto data = small_integers(100003, 1, 3);
    EXPECT_EQ(device_sum(backend(), data, true), exact_sum(data).round());
}

// Above 2^31 elements, where 32-bit indices wrap: ones every 257 elements and in the last 1000, so
// that the sum is exact in any order and a lost or repeated stretch changes it. On GPUs only: a CPU
// device (PoCL) would take minutes.
TEST_P(EveryOpenCLBackend, ExactAbove2To31ElementsOnAGpu) {
    if (backend().device_info().name.find("[GPU;") == std::string::npos) GTEST_SKIP() << "not a GPU: " << backend().device_info().name;
    static const std::vector<float> data = [] {
        std::vector<float> v((std::size_t{1} << 31) + 1001, 0.0f);
        for (std::size_t i = 0; i < v.size(); i += 257) v[i] = 1.0f;
        std::fill(v.end() - 1000, v.end(), 1.0f);
        return v;
    }();
    static const double exact = exact_sum(data).round();
    try {
        EXPECT_EQ(device_sum(backend(), data), exact);
    } catch (const ResourceExhausted& e) {
        GTEST_SKIP() << "the device lacks the memory: " << e.what();
    }
}

// The bound the backend's traits promise (tests/error_bounds.hpp).
TEST_P(EveryOpenCLBackend, WithinTheBoundOfItsTraitsOnUniformData) {
    std::vector<float> v((1 << 20) + 3);
    fill(v, Distribution::uniform, 5);
    const double s = exact_sum(v).round();  // all positive: sum |x| = S
    const double bound = bounds::for_traits(backend().traits, {.n = v.size(), .abs_sum = s, .exact = s, .threads = 1}).value();
    ASSERT_TRUE(std::isfinite(bound));
    EXPECT_LE(std::abs(device_sum(backend(), v) - s), bound)
        << "accumulator " << to_string(backend().traits.accumulator) << ", order " << to_string(backend().traits.order);
}

TEST_P(EveryOpenCLBackend, ReproducibleBackendsGiveTheSameBitsOnEveryCall) {
    if (backend().traits.reproducibility == Reproducibility::none) GTEST_SKIP() << "declares no reproducibility";
    std::vector<float> v(1000003);
    fill(v, Distribution::normal, 9);
    auto reduction = backend().prepare(v, {.batch = 3});
    reduction->run();
    const double first = reduction->result();
    for (int call = 0; call < 5; ++call) {
        reduction->run();
        ASSERT_EQ(reduction->result(), first) << "call " << call;
    }
    reduction->run_batch(3);
    EXPECT_EQ(reduction->result(), first) << "after a batch";
}

TEST_P(EveryOpenCLBackend, BatchedCallsSumTheInputEachTime) {
    const auto data = small_integers(1000003, 1, 4);
    auto reduction = backend().prepare(data, {.batch = 5});
    for (int batch = 0; batch < 2; ++batch) {
        EXPECT_GT(reduction->run_batch(5), 0);
        EXPECT_EQ(reduction->result(), exact_sum(data).round()) << "batch " << batch;
    }
}

TEST_P(EveryOpenCLBackend, NanAndInfinityPropagate) {
    for (std::size_t n : {1u, 33u, 1000003u})
        for (std::size_t where : {std::size_t{0}, n / 2, n - 1}) {
            std::vector<float> v(n, 1.0f);
            v[where] = std::numeric_limits<float>::quiet_NaN();
            EXPECT_TRUE(std::isnan(device_sum(backend(), v))) << "NaN at " << where << " of " << n;
            v[where] = std::numeric_limits<float>::infinity();
            EXPECT_EQ(device_sum(backend(), v), std::numeric_limits<double>::infinity()) << "Inf at " << where << " of " << n;
            v[where] = -std::numeric_limits<float>::infinity();
            EXPECT_EQ(device_sum(backend(), v), -std::numeric_limits<double>::infinity()) << "-Inf at " << where << " of " << n;
        }
}

// The row names the device, its platform, OpenCL version and driver, and says when it is not a GPU;
// the launch shape is in the configuration column.
TEST_P(EveryOpenCLBackend, NamesItsDeviceAndLaunchShape) {
    ASSERT_TRUE(backend().device_info);
    const std::string name = backend().device_info().name;
    EXPECT_NE(name.find("platform "), std::string::npos) << name;
    EXPECT_NE(name.find("OpenCL "), std::string::npos) << name;
    EXPECT_NE(name.find("driver "), std::string::npos) << name;
    if (name.find("PoCL") != std::string::npos) {
        EXPECT_NE(name.find("CPU device, not a GPU"), std::string::npos) << name;
    }
    EXPECT_EQ(backend().timing, Timing::device_events);
    EXPECT_TRUE(backend().supports_transfer);
    EXPECT_TRUE(backend().batches);
    const auto data = small_integers(1000, 1, 6);
    const std::string configuration = backend().prepare(data, {})->configuration();
    EXPECT_NE(configuration.find("group_size="), std::string::npos) << configuration;
    EXPECT_NE(configuration.find("rotation_cache="), std::string::npos) << configuration;
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryOpenCLBackend, ::testing::ValuesIn(opencl_backends()), backend_test_name);
// A build without OpenCL has no OpenCL backends to instantiate the suite with.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EveryOpenCLBackend);

TEST(OpenCLBuild, SaysWhyItHasNoOpenCLBackends) {
    if (const auto missing = find_device_api(opencl::kDevice)->unbuilt) {
        EXPECT_TRUE(opencl_backends().empty());
        GTEST_SKIP() << *missing;
    }
    EXPECT_EQ(opencl_backends().size(), 5u);
}

}  // namespace
}  // namespace shootout
