// opencl/baseline/launch: the launch floor of OpenCL rows, as cuda/baseline/launch is CUDA's: per
// call one empty kernel of one work-group of one SIMD width, one call in flight (the least a call
// costs: a lane of its own launches slower), reading nothing. With the machine's best read it makes
// the roofline (plot/README.md).
#include <memory>
#include <string>

#include "opencl/runtime/opencl_reduction.hpp"

namespace shootout::opencl {
namespace {

class EmptyLaunch final : public KernelSum {
public:
    EmptyLaunch() : kernel_(make_kernel(program("reduce", build_options(ElementType::f32)), "no_work")), group_size_(simd_width(kernel_)) {}

    void enqueue(OpenCLQueue& queue, cl_mem, std::size_t, const Buffer&) override { queue.launch(kernel_, 1, group_size_); }
    // Reads nothing, sums nothing: NaN, so that no one reads its error column as a result.
    ResultKind result() const override { return ResultKind::none; }
    std::string configuration() const override { return "group_size=" + std::to_string(group_size_) + " groups=1"; }

private:
    Kernel kernel_;
    std::size_t group_size_;
};

[[maybe_unused]] const bool registered = register_device_backend(kRuntime, {
    .name = "opencl/baseline/launch",
    .description = "the launch floor: one empty kernel of one work-group (one SIMD width) per call, reading nothing; "
                   "result NaN (no sum)",
    .traits = {.accumulator = Accumulator::none, .order = Order::unordered, .role = Role::launch_floor},
    .make = [](OpenCLQueue&, std::size_t, ElementType) { return std::make_unique<EmptyLaunch>(); },
});

}  // namespace
}  // namespace shootout::opencl
