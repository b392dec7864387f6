// opencl/baseline/read: the read ceiling of OpenCL rows, as cuda/baseline/read is CUDA's: every
// element loaded once in float4s and added, each work-group's sum stored; no atomics, no second pass.
#include "opencl/backends/float_sums.hpp"

namespace shootout::opencl {
namespace {

[[maybe_unused]] const bool registered = register_device_backend(kRuntime, {
    .name = "opencl/baseline/read",
    .description = "achievable read bandwidth: one launch of float4 loads and float adds, each work-group's sum stored "
                   "(no atomics; the host adds the group sums after timing)",
    .traits = {.accumulator = Accumulator::f32, .order = Order::unordered, .reproducibility = Reproducibility::none,
               .role = Role::ceiling},
    .make = [](OpenCLQueue& queue, std::size_t n, ElementType) {
        return std::make_unique<FloatSum>(queue, FloatKernel::read_all, n, ElementType::f32);
    },
});

}  // namespace
}  // namespace shootout::opencl
