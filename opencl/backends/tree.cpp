// opencl/tree: the classic two-kernel reduction: every work-group's tree sum to its slot, then one
// work-group sums the slots. Floats in float, doubles in double.
#include "opencl/backends/float_sums.hpp"

namespace shootout::opencl {
namespace {

[[maybe_unused]] const bool registered = register_device_backend(kRuntime, {
    .name = "opencl/tree",
    .description = "two kernels: grid-stride 16-byte loads and a work-group tree per group, then one work-group sums the "
                   "group sums; doubles summed in double",
    .traits = {.accumulator = Accumulator::f32, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count},
    .traits_by_type = {{ElementType::f64, {.accumulator = Accumulator::f64, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count}}},
    .make = [](OpenCLQueue& queue, std::size_t n, ElementType type) {
        return std::make_unique<FloatSum>(queue, FloatKernel::two_kernel_tree, n, type);
    },
    .element_types = {ElementType::f32, ElementType::f64},
    .type_unavailable_reason = lacks_doubles,
});

}  // namespace
}  // namespace shootout::opencl
