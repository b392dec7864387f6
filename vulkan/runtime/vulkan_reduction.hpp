// What every Vulkan backend shares: the Vulkan queue of the device-neutral timing layer
// (api/device_timing.hpp: rotating copies, isolated and batched timing, --include-transfer), the
// launch shape chosen from the device, and the result's copy back. A backend supplies one SPIR-V
// module of vulkan/shaders/reduce.comp and says what it needs of the device; one that sums nothing
// (the launch floor) supplies its own call on the same queue.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "api/backend.hpp"
#include "api/device_timing.hpp"

namespace shootout::vulkan {

class VulkanQueue;

// How a module's workgroups reduce and finish (reduce.comp's WORKGROUP_REDUCE_SUBGROUP and
// FINISH_ATOMIC).
enum class WorkgroupReduce { subgroup, shared_memory };
enum class Finish { last_workgroup, atomic };

struct VulkanBackendSpec {
    std::string name;
    std::string description;
    Traits traits;  // for float input
    std::span<const std::uint32_t> spirv;
    // The module for float64 input, summed in double (shaderFloat64); empty for a backend that takes
    // floats only.
    std::span<const std::uint32_t> spirv_f64 = {};
    WorkgroupReduce reduce = WorkgroupReduce::subgroup;
    Finish finish = Finish::last_workgroup;
};

// The launch every vulkan/* call makes on the chosen device (a function of n, the element size and the
// device only): 256 invocations a workgroup (or the device's power-of-two limit below it), 4 16-byte
// loads in flight per invocation, workgroups enough for one pass of them over the input and never
// more than the device keeps resident; the subgroup size pinned to the device's largest where
// VK_EXT_subgroup_size_control allows (subgroup reductions only; 0: the driver's choice).
struct LaunchShape {
    std::uint32_t workgroup_size = 0;
    std::uint32_t loads_in_flight = 0;
    std::uint32_t workgroups = 0;
    std::uint32_t pinned_subgroup_size = 0;
};
LaunchShape launch_shape(WorkgroupReduce reduce, std::size_t n, std::size_t element_bytes);

// Registers the backend with the harness: device timestamps, rotated inputs, the host-to-device
// transfer variant, availability from the device and what the module needs of it. Returns true.
bool register_vulkan_backend(VulkanBackendSpec spec);

// A backend whose call is no reduce.comp module (the launch floor): float32 input, available wherever
// there is a device, its call made by `make` on the queue every vulkan/* backend uses.
struct VulkanCallSpec {
    std::string name;
    std::string description;
    Traits traits;
    std::function<std::unique_ptr<DeviceCall>(VulkanQueue& queue, Elements input)> make;
};
bool register_vulkan_call(VulkanCallSpec spec);

}  // namespace shootout::vulkan
