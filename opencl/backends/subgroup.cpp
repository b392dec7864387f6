// opencl/single-pass-subgroup: opencl/single-pass with each work-group's sum taken by sub-group
// reductions (cl_khr_subgroups, an OpenCL C 2.0 extension) instead of a tree in local memory.
#include <optional>
#include <string>

#include "opencl/backends/float_sums.hpp"

namespace shootout::opencl {
namespace {

std::optional<std::string> lacks_subgroups() {
    const DeviceProperties& device = device_properties();
    if (!device.has_extension("cl_khr_subgroups"))
        return device.name + " (" + device.platform_name + ") lacks cl_khr_subgroups";
    if (device.c_major < 2) return device.name + " compiles " + device.c_version + ", and cl_khr_subgroups needs OpenCL C 2.0";
    return std::nullopt;
}

[[maybe_unused]] const bool registered = register_device_backend(kRuntime, {
    .name = "opencl/single-pass-subgroup",
    .description = "opencl/single-pass with the work-group sum by sub-group reductions (cl_khr_subgroups)",
    .traits = {.accumulator = Accumulator::f32, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count},
    .traits_by_type = {{ElementType::f64, {.accumulator = Accumulator::f64, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count}}},
    .make = [](OpenCLQueue& queue, std::size_t n, ElementType type) {
        const DeviceProperties& device = device_properties();
        const std::string c_version = "CL" + std::to_string(device.c_major) + "." + std::to_string(device.c_minor);
        return tuned_single_pass("opencl/single-pass-subgroup", queue, n, type, "-DSUBGROUPS", c_version);
    },
    .element_types = {ElementType::f32, ElementType::f64},
    .unavailable_reason = lacks_subgroups,
    .type_unavailable_reason = lacks_doubles,
});

}  // namespace
}  // namespace shootout::opencl
