// opencl/single-pass: one launch; each work-group's tree sum to its slot, and the group that draws
// the last ticket (a 32-bit atomic: OpenCL 1.2 suffices) sums the slots in group order.
#include "opencl/backends/float_sums.hpp"

namespace shootout::opencl {
namespace {

[[maybe_unused]] const bool registered = register_opencl_backend({
    .name = "opencl/single-pass",
    .description = "one launch: grid-stride float4 loads, work-group tree in local memory, last work-group (atomic ticket) "
                   "combines the group sums in order",
    .traits = {.accumulator = Accumulator::f32, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count},
    .make = [](OpenCLQueue& queue, std::size_t n, ElementType) {
        return std::make_unique<FloatSum>(queue, FloatKernel::single_pass, n, build_options());
    },
});

}  // namespace
}  // namespace shootout::opencl
