// opencl/tree: the classic two-kernel reduction: every work-group's tree sum to its slot, then one
// work-group sums the slots.
#include "opencl/backends/float_sums.hpp"

namespace shootout::opencl {
namespace {

[[maybe_unused]] const bool registered = register_opencl_backend({
    .name = "opencl/tree",
    .description = "two kernels: grid-stride float4 loads and a work-group tree per group, then one work-group sums the "
                   "group sums",
    .traits = {.accumulator = Accumulator::f32, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count},
    .make = [](OpenCLQueue& queue, std::size_t n, ElementType) {
        return std::make_unique<FloatSum>(queue, FloatKernel::two_kernel_tree, n, build_options());
    },
});

}  // namespace
}  // namespace shootout::opencl
