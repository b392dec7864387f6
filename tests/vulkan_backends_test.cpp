// Every registered Vulkan backend against the exact sum, in every element type it takes, through the
// harness's timing layer. Without a Vulkan loader, driver or usable device every test reports
// skipped, with the reason the backend gives. On a CPU implementation (Mesa's lavapipe, what CI has) they run as on a GPU. Under
// VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation (ctest's vulkan_backends_test.validation) every
// error the layer reports fails the test it happened in.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "api/backend.hpp"
#include "api/device_api.hpp"
#include "exact/exact_sum.hpp"
#include "bench/inputs.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/device_suite_checks.hpp"
#include "tests/error_bounds.hpp"
#include "vulkan/runtime/context.hpp"
#include "vulkan/runtime/vulkan_api.hpp"
#include "vulkan/runtime/vulkan_reduction.hpp"

namespace shootout {
namespace {

std::vector<const Backend*> vulkan_backends() {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (b.device == vulkan::kDevice) list.push_back(&b);
    return list;
}

// The backends that sum: all but the launch floor (VulkanLaunchFloor below).
std::vector<const Backend*> vulkan_summing_backends() {
    std::vector<const Backend*> list = vulkan_backends();
    std::erase_if(list, [](const Backend* b) { return !sums(*b); });
    return list;
}

class EveryVulkanBackend : public ::testing::TestWithParam<const Backend*> {
protected:
    void SetUp() override {
        if (auto reason = GetParam()->why_unavailable()) GTEST_SKIP() << *reason;
        errors_before_ = vulkan::validation_errors().size();
    }
    void TearDown() override {
        if (GetParam()->why_unavailable()) return;
        const auto errors = vulkan::validation_errors();
        for (std::size_t e = errors_before_; e < errors.size(); ++e) ADD_FAILURE() << "Vulkan validation error: " << errors[e];
    }
    const Backend& backend() const { return *GetParam(); }
    template <class T>
    void expect_exact(std::span<const T> input, bool include_transfer = false) {
        EXPECT_EQ(device_sum(backend(), input, include_transfer), exact_sum_of(input).round())
            << "n=" << input.size() << (include_transfer ? " with transfer" : "");
    }
    bool on_cpu_implementation() const { return vulkan::context().facts().type == VK_PHYSICAL_DEVICE_TYPE_CPU; }

private:
    std::size_t errors_before_ = 0;
};

TEST_P(EveryVulkanBackend, EmptyIsZero) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        EXPECT_EQ(device_sum(backend(), std::span<const T>()), 0.0);
        EXPECT_EQ(device_sum(backend(), std::span<const T>(), true), 0.0);
    });
}

// One element, sizes with a tail of 1 to 3 elements past the last 16-byte vector, one and several
// workgroups, and inputs starting 3 elements into the host array.
TEST_P(EveryVulkanBackend, ExactOnSmallOddAndUnalignedSizes) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto data = small_integers<T>(1000003 + 3, kExactMagnitude<T>, 1);
        for (std::size_t n : {1u, 2u, 31u, 1000u, 4099u, 1000003u})
            for (std::size_t offset : {0u, 3u}) expect_exact(std::span<const T>(data).subspan(offset, n));
    });
}

TEST_P(EveryVulkanBackend, ExactOn2To22Plus5) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { expect_exact<T>(small_integers<T>((1u << 22) + 5, 1, 2)); });
}

// The grid at its cap (what the device keeps resident), each invocation one whole round of loads and
// then a last round cut short after two of its loads, with a tail of 3 elements: the sizes where the
// last round's loads past the end must add nothing and the last workgroup combines the most slots.
TEST_P(EveryVulkanBackend, ExactWhenTheGridIsCappedAndTheLastRoundIsCutShort) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        // The grid does not depend on how a workgroup reduces.
        const auto shape = [](std::size_t n) { return vulkan::launch_shape(vulkan::WorkgroupReduce::subgroup, n, sizeof(T)); };
        const vulkan::LaunchShape cap = shape(std::size_t{1} << 40);
        const std::size_t lanes = 16 / sizeof(T), invocations = std::size_t{cap.workgroups} * cap.workgroup_size;
        const std::size_t n = (cap.loads_in_flight + 2) * lanes * invocations + 3;
        ASSERT_EQ(shape(n).workgroups, cap.workgroups) << "n=" << n;
        expect_exact<T>(small_integers<T>(n, 1, 5));
    });
}

TEST_P(EveryVulkanBackend, ExactWithHostToDeviceTransfer) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        expect_exact<T>(small_integers<T>(1000003, kExactMagnitude<T>, 3), true);
    });
}

// Above 2^31 elements (8 GiB), on a GPU only (a CPU implementation would take minutes): past the
// 4 GiB the shaders address, the backends refuse the size, named, rather than sum what wrapped.
TEST_P(EveryVulkanBackend, ExactAbove2To31Elements) {
    if (on_cpu_implementation()) GTEST_SKIP() << vulkan::context().facts().name << " is a CPU implementation: 8 GiB would take minutes";
    std::vector<float> data((std::size_t{1} << 31) + 1001, 0.0f);
    for (std::size_t i = 0; i < data.size(); i += 257) data[i] = 1.0f;
    std::fill(data.end() - 1000, data.end(), 1.0f);
    try {
        EXPECT_EQ(device_sum(backend(), data), exact_sum(data).round());
    } catch (const ResourceExhausted& e) {
        EXPECT_NE(std::string(e.what()).find("the shaders address at most 4 GiB"), std::string::npos) << e.what();
    }
}

// The bound the backend's traits for the type promise (tests/error_bounds.hpp).
TEST_P(EveryVulkanBackend, WithinTheBoundOfItsTraitsOnUniformData) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        device_checks::within_the_bound_of_its_traits<T>(backend(), (1u << 22) + 3);
    });
}

TEST_P(EveryVulkanBackend, ReproducibleBackendsGiveTheSameBitsOnEveryCall) {
    if (backend().traits.reproducibility == Reproducibility::none) GTEST_SKIP() << "declares no reproducibility";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { device_checks::the_same_bits_on_every_call<T>(backend(), 10); });
}

// A batch longer than one submission's commands leaves the same sum as one call.
TEST_P(EveryVulkanBackend, BatchedCallsSumTheInputEachTime) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        device_checks::every_batched_call_sums_the_input<T>(backend(), small_integers<T>(100003, kExactMagnitude<T>, 4), 70, 2);
    });
}

TEST_P(EveryVulkanBackend, NanAndInfinityPropagate) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { device_checks::nan_and_infinity_propagate<T>(backend()); });
}

// The CSV's gpu column names the device, its type, driver and Vulkan version: a CPU
// implementation's rows say CPU.
TEST_P(EveryVulkanBackend, NamesItsDeviceDriverAndVersion) {
    ASSERT_TRUE(backend().device_info);
    const std::string name = backend().device_info().name;
    const vulkan::DeviceFacts& facts = vulkan::context().facts();
    EXPECT_TRUE(name.starts_with(facts.name)) << name;
    EXPECT_NE(name.find("driver "), std::string::npos) << name;
    EXPECT_NE(name.find(", Vulkan 1."), std::string::npos) << name;
    if (on_cpu_implementation()) {
        EXPECT_NE(name.find("(CPU, "), std::string::npos) << name;
    }
    EXPECT_EQ(backend().timing, Timing::device_events);
    EXPECT_EQ(backend().cache, Cache::cold);
    EXPECT_TRUE(backend().supports_transfer);
    EXPECT_TRUE(backend().batches);
    EXPECT_FALSE(backend().prepare(std::vector<float>(100), {})->configuration().empty());
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryVulkanBackend, ::testing::ValuesIn(vulkan_summing_backends()), backend_test_name);

TEST(VulkanBuild, HasItsBackendsAndOneCeiling) {
    ASSERT_FALSE(find_device_api(vulkan::kDevice)->unbuilt);
    EXPECT_EQ(vulkan_backends().size(), 4u);
    EXPECT_EQ(vulkan_summing_backends().size(), 3u);
}

// vulkan/baseline/launch: one empty dispatch per call, recorded as the reductions' are, result NaN,
// its rows timed isolated and batched like theirs (a batch longer than one submission's commands);
// unavailable, with the API's reason, wherever they are. Validation errors fail it too.
class VulkanLaunchFloor : public ::testing::Test {
protected:
    void SetUp() override {
        floor_ = find_backend("vulkan/baseline/launch");
        ASSERT_NE(floor_, nullptr);
        const auto reason = floor_->why_unavailable();
        EXPECT_EQ(reason, vulkan::why_no_device());
        if (reason) GTEST_SKIP() << *reason;
        errors_before_ = vulkan::validation_errors().size();
    }
    void TearDown() override {
        if (!floor_ || floor_->why_unavailable()) return;
        const auto errors = vulkan::validation_errors();
        for (std::size_t e = errors_before_; e < errors.size(); ++e) ADD_FAILURE() << "Vulkan validation error: " << errors[e];
    }
    const Backend* floor_ = nullptr;

private:
    std::size_t errors_before_ = 0;
};

TEST_F(VulkanLaunchFloor, SumsNothingAndTakesTime) { device_checks::a_launch_floor_sums_nothing(*floor_, 70); }

TEST_F(VulkanLaunchFloor, MeasuresIsolatedAndBatchedRows) { device_checks::a_launch_floor_measures_rows(floor_->name); }

TEST_F(VulkanLaunchFloor, OneWorkgroupOfOneSubgroupOnTheReductionsDevice) {
    EXPECT_EQ(floor_->device_info().name, find_backend("vulkan/single-pass")->device_info().name);
    EXPECT_EQ(floor_->prepare(std::vector<float>(100), {})->configuration(),
              "workgroups=1 workgroup=" + std::to_string(vulkan::context().facts().subgroup_size));
}

// The single-pass backends take doubles and sum them in double where the device has shaderFloat64,
// and say why not where it has not; the read ceiling adds floats only.
TEST(VulkanElementTypes, DoublesWhereTheDeviceHasThem) {
    for (const char* name : {"vulkan/single-pass", "vulkan/single-pass-shared"}) {
        const Backend* backend = find_backend(name);
        ASSERT_NE(backend, nullptr) << name;
        EXPECT_TRUE(backend->takes(ElementType::f64)) << name;
        EXPECT_EQ(backend->traits_for(ElementType::f64).accumulator, Accumulator::f64) << name;
        EXPECT_EQ(backend->traits_for(ElementType::f32).accumulator, Accumulator::f32) << name;
        if (backend->why_unavailable()) continue;
        EXPECT_EQ(backend->why_type_unavailable(ElementType::f64).has_value(), !vulkan::context().facts().shader_float64) << name;
        EXPECT_FALSE(backend->why_type_unavailable(ElementType::f32)) << name;
    }
    EXPECT_FALSE(find_backend("vulkan/baseline/read")->takes(ElementType::f64));
}

// Asked for, the validation layer must be there: a run that silently went without it would pass
// every check above unchecked.
TEST(VulkanValidation, TheLayerRunsWhenAskedFor) {
    const char* layers = std::getenv("VK_INSTANCE_LAYERS");
    if (!layers || std::string(layers).find("VK_LAYER_KHRONOS_validation") == std::string::npos)
        GTEST_SKIP() << "VK_INSTANCE_LAYERS does not name VK_LAYER_KHRONOS_validation";
    if (auto reason = vulkan::why_no_device()) GTEST_SKIP() << *reason;
    EXPECT_TRUE(vulkan::validation_enabled()) << "VK_INSTANCE_LAYERS names the validation layer, and the loader does not have it";
}

}  // namespace
}  // namespace shootout
