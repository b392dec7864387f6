// opencl/single-pass: one launch; each work-group's tree sum to its slot, and the group that draws
// the last ticket (a 32-bit atomic: OpenCL 1.2 suffices) sums the slots in group order. Floats in
// float, doubles in double.
#include "opencl/backends/float_sums.hpp"

namespace shootout::opencl {
namespace {

[[maybe_unused]] const bool registered = register_device_backend(kRuntime, {
    .name = "opencl/single-pass",
    .description = "one launch: grid-stride 16-byte loads, work-group tree in local memory, last work-group (atomic ticket) "
                   "combines the group sums in order; doubles summed in double",
    .traits = {.accumulator = Accumulator::f32, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count},
    .traits_by_type = {{ElementType::f64, {.accumulator = Accumulator::f64, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count}}},
    .make = [](OpenCLQueue& queue, std::size_t n, ElementType type) { return tuned_single_pass("opencl/single-pass", queue, n, type); },
    .element_types = {ElementType::f32, ElementType::f64},
    .type_unavailable_reason = lacks_doubles,
});

}  // namespace
}  // namespace shootout::opencl
