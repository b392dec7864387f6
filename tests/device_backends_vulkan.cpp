// What the Vulkan backends promise beyond every device backend's checks (tests/device_backends_test.cpp):
// exact sums where the grid is capped and the last round of loads cut short, inputs past the 4 GiB
// the shaders address refused by name, rows that name the device, its driver and Vulkan version (a
// CPU implementation's say CPU), doubles exactly where the device has shaderFloat64, the four
// backends of a build with Vulkan. On a CPU implementation (Mesa's lavapipe, what CI has) they run
// as on a GPU, but for inputs of gigabytes. Under VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation
// (ctest's device_backends_test.vulkan_validation) every error the layer reports fails the test it
// happened in, whichever suite's test of a Vulkan backend that is.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "api/device_api.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/device_suite_checks.hpp"
#include "vulkan/runtime/context.hpp"
#include "vulkan/runtime/vulkan_api.hpp"
#include "vulkan/runtime/vulkan_reduction.hpp"

namespace shootout {
namespace {

bool on_cpu_implementation() { return vulkan::context().facts().type == VK_PHYSICAL_DEVICE_TYPE_CPU; }

[[maybe_unused]] const bool hooks_registered = device_checks::register_api_hooks(vulkan::kDevice, {
    .on_cpu = [](const Backend&) { return on_cpu_implementation(); },
    .launch_space = [](const Backend& backend) -> std::optional<LaunchSpace> {
        if (!backend.name.starts_with("vulkan/single-pass")) return std::nullopt;  // the tuned reductions
        return vulkan::launch_space();
    },
    .watch = []() -> std::function<void()> {
        return [before = vulkan::validation_errors().size()] {
            const auto errors = vulkan::validation_errors();
            for (std::size_t e = before; e < errors.size(); ++e) ADD_FAILURE() << "Vulkan validation error: " << errors[e];
        };
    },
});

class VulkanBackend : public device_checks::DeviceBackendTest {};

// The grid at its cap (what the device keeps resident), each invocation one whole round of loads and
// then a last round cut short after two of its loads, with a tail of 3 elements: the sizes where the
// last round's loads past the end must add nothing and the last workgroup combines the most slots.
TEST_P(VulkanBackend, ExactWhenTheGridIsCappedAndTheLastRoundIsCutShort) {
    if (!sums(backend())) GTEST_SKIP() << "sums nothing";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        // The grid does not depend on how a workgroup reduces.
        const auto shape = [](std::size_t n) { return vulkan::launch_shape(vulkan::WorkgroupReduce::subgroup, n, sizeof(T)); };
        const vulkan::LaunchShape cap = shape(std::size_t{1} << 40);
        const std::size_t lanes = 16 / sizeof(T), invocations = std::size_t{cap.workgroups} * cap.workgroup_size;
        const std::size_t n = (cap.loads_in_flight + 2) * lanes * invocations + 3;
        ASSERT_EQ(shape(n).workgroups, cap.workgroups) << "n=" << n;
        const auto data = small_integers<T>(n, 1, 5);
        EXPECT_EQ(device_sum(backend(), std::span<const T>(data)), exact_sum_of(data).round()) << "n=" << n;
    });
}

// Above 2^31 elements (8 GiB of floats), on a GPU only: past the 4 GiB the shaders address, the
// backends refuse the size, named, rather than sum what wrapped.
TEST_P(VulkanBackend, RefusesInputsPastThe4GiBItsShadersAddress) {
    if (!sums(backend())) GTEST_SKIP() << "sums nothing";
    if (on_cpu_implementation()) GTEST_SKIP() << vulkan::context().facts().name << " is a CPU implementation: 8 GiB would take minutes";
    try {
        EXPECT_EQ(device_sum(backend(), device_checks::above_2_to_31<float>()), device_checks::kAbove2To31Sum);
    } catch (const ResourceExhausted& e) {
        EXPECT_NE(std::string(e.what()).find("the shaders address at most 4 GiB"), std::string::npos) << e.what();
    }
}

// The CSV's gpu column names the device, its type, driver and Vulkan version: a CPU
// implementation's rows say CPU. The configuration column has the launch: for the launch floor one
// workgroup of one subgroup.
TEST_P(VulkanBackend, NamesItsDeviceDriverVersionAndLaunch) {
    const std::string name = backend().device_info().name;
    const vulkan::DeviceFacts& facts = vulkan::context().facts();
    EXPECT_TRUE(name.starts_with(facts.name)) << name;
    EXPECT_NE(name.find("driver "), std::string::npos) << name;
    EXPECT_NE(name.find(", Vulkan 1."), std::string::npos) << name;
    if (on_cpu_implementation()) {
        EXPECT_NE(name.find("(CPU, "), std::string::npos) << name;
    }
    const std::string configuration = backend().prepare(std::vector<float>(100), {})->configuration();
    if (backend().traits.role == Role::launch_floor) {
        EXPECT_EQ(configuration, "workgroups=1 workgroup=" + std::to_string(facts.subgroup_size));
    } else {
        EXPECT_FALSE(configuration.empty());
    }
}

// A backend that takes doubles sums them where the device has shaderFloat64, and says why not where
// it has not.
TEST_P(VulkanBackend, TakesDoublesExactlyWhereTheDeviceHasShaderFloat64) {
    if (!backend().takes(ElementType::f64)) GTEST_SKIP() << "takes no doubles";
    EXPECT_EQ(backend().why_type_unavailable(ElementType::f64).has_value(), !vulkan::context().facts().shader_float64);
    EXPECT_FALSE(backend().why_type_unavailable(ElementType::f32));
}

INSTANTIATE_TEST_SUITE_P(Registry, VulkanBackend, ::testing::ValuesIn(device_checks::backends_of(vulkan::kDevice)), backend_test_name);

TEST(VulkanBuild, HasItsFiveBackendsOneALaunchFloor) {
    ASSERT_FALSE(find_device_api(vulkan::kDevice)->unbuilt);
    const auto backends = device_checks::backends_of(vulkan::kDevice);
    EXPECT_EQ(backends.size(), 5u);
    EXPECT_EQ(std::count_if(backends.begin(), backends.end(), [](const Backend* b) { return sums(*b); }), 4);
}

// Asked for, the validation layer must be there: a run that silently went without it would pass
// every check unchecked.
TEST(VulkanValidation, TheLayerRunsWhenAskedFor) {
    const char* layers = std::getenv("VK_INSTANCE_LAYERS");
    if (!layers || std::string(layers).find("VK_LAYER_KHRONOS_validation") == std::string::npos)
        GTEST_SKIP() << "VK_INSTANCE_LAYERS does not name VK_LAYER_KHRONOS_validation";
    if (auto reason = vulkan::why_no_device()) GTEST_SKIP() << *reason;
    EXPECT_TRUE(vulkan::validation_enabled()) << "VK_INSTANCE_LAYERS names the validation layer, and the loader does not have it";
}

}  // namespace
}  // namespace shootout
