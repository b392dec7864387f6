// What the OpenCL backends promise beyond every device backend's checks (tests/device_backends_test.cpp):
// rows that name the device's platform, OpenCL version and driver and say when it is not a GPU, the
// launch shape in the configuration column (one work-group for the launch floor), doubles refused
// only for want of cl_khr_fp64; and the six backends of a build with OpenCL. PoCL's CPU device (what
// CI has) is a CPU implementation: no input of gigabytes there.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>

#include "api/device_api.hpp"
#include "opencl/runtime/opencl_api.hpp"
#if SHOOTOUT_HAVE_OPENCL
#include "opencl/runtime/opencl_reduction.hpp"
#endif
#include "tests/backend_test_support.hpp"
#include "tests/device_suite_checks.hpp"

namespace shootout {
namespace {

[[maybe_unused]] const bool hooks_registered = device_checks::register_api_hooks(opencl::kDevice, {
    .on_cpu = [](const Backend& backend) { return backend.device_info().name.find("[GPU;") == std::string::npos; },
#if SHOOTOUT_HAVE_OPENCL  // the runtime, in a build with OpenCL (the aarch64 cross build has none)
    .launch_space = [](const Backend& backend) -> std::optional<LaunchSpace> {
        if (!backend.name.starts_with("opencl/single-pass")) return std::nullopt;
        return opencl::launch_space(opencl::make_kernel(opencl::program("reduce", opencl::build_options(ElementType::f32)), "single_pass"));
    },
#endif
});

class OpenCLBackend : public device_checks::DeviceBackendTest {};

TEST_P(OpenCLBackend, NamesItsPlatformVersionDriverAndLaunchShape) {
    const std::string name = backend().device_info().name;
    EXPECT_NE(name.find("platform "), std::string::npos) << name;
    EXPECT_NE(name.find("OpenCL "), std::string::npos) << name;
    EXPECT_NE(name.find("driver "), std::string::npos) << name;
    if (name.find("PoCL") != std::string::npos) {
        EXPECT_NE(name.find("CPU device, not a GPU"), std::string::npos) << name;
    }
    const std::string configuration = backend().prepare(small_integers(1000, 1, 6), {})->configuration();
    EXPECT_NE(configuration.find("group_size="), std::string::npos) << configuration;
    EXPECT_NE(configuration.find("rotation_cache="), std::string::npos) << configuration;
    if (backend().traits.role == Role::launch_floor) {
        EXPECT_NE(configuration.find("groups=1 "), std::string::npos) << configuration;
    }
}

// Where the device has no cl_khr_fp64, a backend that takes doubles says so for them, and only for them.
TEST_P(OpenCLBackend, RefusesDoublesOnlyForWantOfClKhrFp64) {
    if (!backend().takes(ElementType::f64)) GTEST_SKIP() << "takes no doubles";
    if (const auto reason = backend().why_type_unavailable(ElementType::f64)) {
        EXPECT_NE(reason->find("lacks cl_khr_fp64"), std::string::npos) << *reason;
    }
    EXPECT_FALSE(backend().why_type_unavailable(ElementType::f32));
}

INSTANTIATE_TEST_SUITE_P(Registry, OpenCLBackend, ::testing::ValuesIn(device_checks::backends_of(opencl::kDevice)), backend_test_name);
// A build without OpenCL has no OpenCL backends to instantiate the suite with.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(OpenCLBackend);

TEST(OpenCLBuild, HasItsSixBackendsOneALaunchFloor) {
    if (const auto missing = find_device_api(opencl::kDevice)->unbuilt) GTEST_SKIP() << *missing;
    const auto backends = device_checks::backends_of(opencl::kDevice);
    EXPECT_EQ(backends.size(), 6u);
    EXPECT_EQ(std::count_if(backends.begin(), backends.end(), [](const Backend* b) { return sums(*b); }), 5);
}

}  // namespace
}  // namespace shootout
