// What the CUDA backends promise beyond every device backend's checks (tests/device_backends_test.cpp):
// their rows carry the GPU's peak bandwidth, from its memory clock and bus width.
#include <gtest/gtest.h>

#include "cuda/runtime/cuda_api.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/device_suite_checks.hpp"

namespace shootout {
namespace {

class CudaBackend : public device_checks::DeviceBackendTest {};

TEST_P(CudaBackend, NamesItsPeakBandwidth) {
    ASSERT_TRUE(backend().device_info);
    const DeviceInfo info = backend().device_info();
    EXPECT_GT(info.peak_gbps, 0) << info.name;
}

INSTANTIATE_TEST_SUITE_P(Registry, CudaBackend, ::testing::ValuesIn(device_checks::backends_of(cuda::kDevice)), backend_test_name);
// A build without CUDA has no CUDA backends to instantiate the suite with.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CudaBackend);

}  // namespace
}  // namespace shootout
