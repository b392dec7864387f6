// Every registered OpenCL backend against the exact sum, in every element type it takes, on whatever
// OpenCL device the process finds (PoCL's CPU device in CI). Without a driver or device every test reports skipped, with the reason
// the backend gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "api/backend.hpp"
#include "api/device_api.hpp"
#include "exact/exact_sum.hpp"
#include "bench/inputs.hpp"
#include "opencl/runtime/opencl_api.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/device_suite_checks.hpp"
#include "tests/error_bounds.hpp"

namespace shootout {
namespace {

std::vector<const Backend*> opencl_backends() {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (b.device == opencl::kDevice) list.push_back(&b);
    return list;
}

// The backends that sum: all but the launch floor (OpenCLLaunchFloor below).
std::vector<const Backend*> opencl_summing_backends() {
    std::vector<const Backend*> list = opencl_backends();
    std::erase_if(list, [](const Backend* b) { return !sums(*b); });
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
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        EXPECT_EQ(device_sum(backend(), std::span<const T>()), 0.0);
        EXPECT_EQ(device_sum(backend(), std::span<const T>(), true), 0.0);
    });
}

// Sizes around the vector width and the launch shape, and inputs whose first element is not on a
// 16-byte boundary (offsets 1 and 3 elements).
TEST_P(EveryOpenCLBackend, ExactOnSmallOddAndUnalignedInputs) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto data = small_integers<T>(1000003 + 3, kExactMagnitude<T>, 1);
        for (std::size_t n : {1u, 3u, 31u, 1000u, 1000003u})
            for (std::size_t offset : {0u, 1u, 3u}) {
                const auto input = std::span<const T>(data).subspan(offset, n);
                EXPECT_EQ(device_sum(backend(), input), exact_sum_of(input).round()) << "n=" << n << " offset=" << offset;
            }
    });
}

TEST_P(EveryOpenCLBackend, ExactWithHostToDeviceTransfer) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto data = small_integers<T>(100003, kExactMagnitude<T>, 3);
        EXPECT_EQ(device_sum(backend(), std::span<const T>(data), true), exact_sum_of(data).round());
    });
}

// Above 2^31 elements, where 32-bit indices wrap: ones every 257 elements and in the last 1000, so
// that the sum is exact in any order and a lost or repeated stretch changes it. On GPUs only: a CPU
// device (PoCL) would take minutes. Floats: the indices, not the bytes, are what wrap.
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

// The bound the backend's traits for the type promise (tests/error_bounds.hpp).
TEST_P(EveryOpenCLBackend, WithinTheBoundOfItsTraitsOnUniformData) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        device_checks::within_the_bound_of_its_traits<T>(backend(), (1u << 20) + 3);
    });
}

TEST_P(EveryOpenCLBackend, ReproducibleBackendsGiveTheSameBitsOnEveryCall) {
    if (backend().traits.reproducibility == Reproducibility::none) GTEST_SKIP() << "declares no reproducibility";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { device_checks::the_same_bits_on_every_call<T>(backend(), 5); });
}

TEST_P(EveryOpenCLBackend, BatchedCallsSumTheInputEachTime) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        device_checks::every_batched_call_sums_the_input<T>(backend(), small_integers<T>(1000003, kExactMagnitude<T>, 4), 5, 2);
    });
}

TEST_P(EveryOpenCLBackend, NanAndInfinityPropagate) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { device_checks::nan_and_infinity_propagate<T>(backend()); });
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

INSTANTIATE_TEST_SUITE_P(Registry, EveryOpenCLBackend, ::testing::ValuesIn(opencl_summing_backends()), backend_test_name);
// A build without OpenCL has no OpenCL backends to instantiate the suite with.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EveryOpenCLBackend);

// The floating-point sums take doubles and sum them in double, where the device has cl_khr_fp64, and
// say why not where it has not; the read ceiling takes floats only.
TEST(OpenCLElementTypes, DoublesWhereTheDeviceHasThem) {
    if (const auto missing = find_device_api(opencl::kDevice)->unbuilt) GTEST_SKIP() << *missing;
    for (const char* name : {"opencl/single-pass", "opencl/single-pass-subgroup", "opencl/tree"}) {
        const Backend* backend = find_backend(name);
        ASSERT_NE(backend, nullptr) << name;
        EXPECT_TRUE(backend->takes(ElementType::f64)) << name;
        EXPECT_EQ(backend->traits_for(ElementType::f64).accumulator, Accumulator::f64) << name;
        EXPECT_EQ(backend->traits_for(ElementType::f32).accumulator, Accumulator::f32) << name;
        if (backend->why_unavailable()) continue;
        if (const auto reason = backend->why_type_unavailable(ElementType::f64)) {
            EXPECT_NE(reason->find("lacks cl_khr_fp64"), std::string::npos) << *reason;
        }
        EXPECT_FALSE(backend->why_type_unavailable(ElementType::f32)) << name;
    }
    EXPECT_FALSE(find_backend("opencl/baseline/read")->takes(ElementType::f64));
}

TEST(OpenCLBuild, SaysWhyItHasNoOpenCLBackends) {
    if (const auto missing = find_device_api(opencl::kDevice)->unbuilt) {
        EXPECT_TRUE(opencl_backends().empty());
        GTEST_SKIP() << *missing;
    }
    EXPECT_EQ(opencl_backends().size(), 6u);
    EXPECT_EQ(opencl_summing_backends().size(), 5u);
}

// opencl/baseline/launch: one empty kernel per call on the reductions' queue, result NaN, its rows
// timed isolated and batched like theirs; unavailable, with the API's reason, wherever they are.
class OpenCLLaunchFloor : public ::testing::Test {
protected:
    void SetUp() override {
        if (const auto missing = find_device_api(opencl::kDevice)->unbuilt) GTEST_SKIP() << *missing;
        floor_ = find_backend("opencl/baseline/launch");
        ASSERT_NE(floor_, nullptr);
        const auto reason = floor_->why_unavailable();
        EXPECT_EQ(reason, find_backend("opencl/single-pass")->why_unavailable());
        if (reason) GTEST_SKIP() << *reason;
    }
    const Backend* floor_ = nullptr;
};

TEST_F(OpenCLLaunchFloor, SumsNothingAndTakesTime) { device_checks::a_launch_floor_sums_nothing(*floor_, 5); }

TEST_F(OpenCLLaunchFloor, MeasuresIsolatedAndBatchedRows) { device_checks::a_launch_floor_measures_rows(floor_->name); }

TEST_F(OpenCLLaunchFloor, OneWorkGroupOnTheReductionsDevice) {
    EXPECT_EQ(floor_->device_info().name, find_backend("opencl/single-pass")->device_info().name);
    const std::string configuration = floor_->prepare(small_integers(1000, 1, 6), {})->configuration();
    EXPECT_NE(configuration.find("groups=1 "), std::string::npos) << configuration;
}

}  // namespace
}  // namespace shootout
