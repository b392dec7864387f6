// What every Vulkan backend shares: the Vulkan queue of the device-neutral timing layer
// (api/device_timing.hpp: rotating copies, isolated and batched timing, --include-transfer), as the
// Vulkan API's DeviceRuntime (api/device_backend.hpp); and for the backends of reduce.comp, the
// launch shape chosen from the device and the result's copy back. Such a backend supplies one SPIR-V
// module of vulkan/shaders/reduce.comp and says what it needs of the device; one that sums nothing
// (the launch floor) supplies its own call on the same queue.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/backend.hpp"
#include "api/device_backend.hpp"
#include "api/launch_tuning.hpp"
#include "api/device_timing.hpp"
#include "vulkan/runtime/context.hpp"
#include "vulkan/runtime/vulkan_api.hpp"
#include "vulkan/runtime/vulkan_queue.hpp"

namespace shootout::vulkan {

class VulkanQueue;

// How a module's workgroups reduce and finish (reduce.comp's WORKGROUP_REDUCE_SUBGROUP and
// FINISH_ATOMIC).
enum class WorkgroupReduce { subgroup, shared_memory };
enum class Finish { last_workgroup, atomic };

// What a Vulkan backend supplies (DeviceBackendSpec::make): its call for the input, on the queue
// every vulkan/* backend uses; throws ResourceExhausted when its storage does not fit.
using MakeCall = std::function<std::unique_ptr<DeviceCall>(VulkanQueue& queue, Elements input)>;

// The Vulkan API's part of every Vulkan backend: the device chosen, a VulkanQueue on it, and the call
// a backend makes on it. A backend registers with register_device_backend(kRuntime, {...}).
std::unique_ptr<DeviceQueue> make_queue();
std::unique_ptr<DeviceCall> make_call(const DeviceBackendSpec<MakeCall>& backend, DeviceQueue& queue, Elements input);
inline constexpr DeviceRuntime<MakeCall> kRuntime{kDevice, why_no_device, device_info, make_queue, make_call};

// Calls in flight at most (the knob in_flight): each has its own slots, ticket and result, so
// consecutive dispatches of one call share no buffer and need no barrier between them; one comes
// before a set is used again.
inline constexpr std::uint32_t kCallsInFlight = 8;

// Bytes between the sets' tickets and results (no two in one cache line).
inline constexpr VkDeviceSize kSetStride = 256;

// Which of a call's sets of scratch (slots, ticket, result) each call of a batch uses, under
// results/README.md's "The overlap rule": calls in flight together use different sets and read
// different inputs; the call that uses a set again, or reads an input a call since the last barrier
// reads (two such share the L2's lines: an H100 summed 1 GiB twice at 5.4 TB/s), waits behind a
// barrier for every command before it, and starts a new round at set 0.
class CallSets {
public:
    explicit CallSets(std::uint32_t count) : count_(std::max<std::uint32_t>(count, 1)) {}
    std::uint32_t count() const { return count_; }
    // The next call, reading `in`: takes its set, and says whether its dispatch waits.
    DispatchOrder next(VkDeviceAddress in);
    // The set the last call took.
    std::uint32_t current() const { return set_; }

private:
    std::uint32_t count_, set_ = 0, next_ = 0;
    std::vector<VkDeviceAddress> reading_;  // the inputs of the calls since the last barrier
};

// A backend that is one module of vulkan/shaders/reduce.comp (and its float64 twin).
struct ShaderBackend {
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
// Its spec: floats, and doubles summed in double where it has a float64 module (and the device
// shaderFloat64); unavailable where the device lacks what the module's reduction and finish need.
DeviceBackendSpec<MakeCall> shader_backend(ShaderBackend backend);

// A backend's call for an input, launched with these knobs (their source named in its configuration).
using MakeKnobbedCall = std::function<std::unique_ptr<DeviceCall>(VulkanQueue& queue, Elements input, const LaunchKnobs& knobs, LaunchSource source)>;
// `kernel`'s launch shapes on this device (api/launch_tuning.hpp): the defaults, or the cache's or the
// tuner's from `space`, each candidate timed as the call `make` makes on the queue every vulkan/*
// backend uses.
TunedLaunch tuned_launch_of(const std::string& kernel, LaunchSpace space, const MakeKnobbedCall& make);


// The launch of a reduce.comp call: the knobs (api/launch_tuning.hpp: workgroup size, 16-byte loads
// in flight per invocation, workgroups per compute unit, as specialization constants and the grid's
// cap) and what follows from them for n: workgroups enough for one pass of the loads over the input
// and never more than knobs.groups_per_unit on each compute unit; the subgroup size pinned to the
// device's largest where VK_EXT_subgroup_size_control allows (subgroup reductions only; 0: the
// driver's choice).
struct LaunchShape {
    std::uint32_t workgroup_size = 0;
    std::uint32_t loads_in_flight = 0;
    std::uint32_t workgroups = 0;
    std::uint32_t pinned_subgroup_size = 0;
    std::uint32_t groups_per_unit = 0;
    std::uint32_t calls_in_flight = 1;  // sets of slots, ticket and result used in turn
};
LaunchShape launch_shape(WorkgroupReduce reduce, std::size_t n, std::size_t element_bytes, const LaunchKnobs& knobs);
// With the device's default knobs for n's size band (default_knobs).
LaunchShape launch_shape(WorkgroupReduce reduce, std::size_t n, std::size_t element_bytes);
LaunchKnobs default_knobs(int band);
// The row's configuration of a call launched so: its shape, how workgroups reduce, the knobs' source.
std::string describe(const LaunchShape& shape, WorkgroupReduce reduce, LaunchSource source);
// The knobs the device runs (and the tuner sweeps): workgroups of 64 to 1024 invocations (the
// device's limit), 1 to 8 loads, 1 to 16 workgroups a compute unit (no more than it holds).
LaunchSpace launch_space();

}  // namespace shootout::vulkan
