#include "vulkan/runtime/vulkan_reduction.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "api/device_timing.hpp"
#include "vulkan/runtime/context.hpp"
#include "vulkan/runtime/vulkan_api.hpp"
#include "vulkan/runtime/vulkan_queue.hpp"

namespace shootout::vulkan {
namespace {

// The knobs where nothing is tuned or cached, on every device and size band: 256 invocations, 4
// loads in flight, 4 workgroups an SM (half of an H100/H200 SM's 2048 invocations, resident at up to
// 64 registers an invocation). H100: vulkan/single-pass 6.7 us at 2^20, 28.1 at 2^24 (issue 39).
constexpr LaunchKnobs kDefaultKnobs{.group_size = 256, .loads = 4, .groups_per_unit = 4, .in_flight = kCallsInFlight};
// The compute units taken where the driver reports none (no VK_NV_shader_sm_builtins, no
// VK_AMD_shader_core_properties): 256 x 4 workgroups of 256, about what a large GPU holds at half
// occupancy; the grid-stride loop takes the rest.
constexpr std::uint32_t kUnknownComputeUnits = 256;

// reduce.comp's push constants.
struct CallConstants {
    VkDeviceAddress vectors, floats, slots, ticket, out;
    std::uint32_t n, unused;
};
static_assert(sizeof(CallConstants) == kPushConstantBytes);

std::optional<std::string> why_type_unavailable(ElementType type) {
    const DeviceFacts& facts = context().facts();
    if (type == ElementType::f64 && !facts.shader_float64) return facts.name + " has no 64-bit floats in shaders (shaderFloat64)";
    return std::nullopt;
}

// What the module needs beyond a device (DeviceBackendSpec::unavailable_reason).
std::optional<std::string> why_unavailable(const ShaderBackend& spec) {
    const DeviceFacts& facts = context().facts();
    if (spec.reduce == WorkgroupReduce::subgroup && !facts.subgroup_arithmetic)
        return facts.name + " has no subgroup arithmetic in compute shaders";
    if (spec.finish == Finish::atomic && !facts.float_atomic_add)
        return facts.name + " has no float atomic add on buffers (VK_EXT_shader_atomic_float)";
    return std::nullopt;
}

VkDeviceSize round_up(VkDeviceSize bytes) { return (bytes + kSetStride - 1) / kSetStride * kSetStride; }

// One backend's dispatches for one input size: its pipeline, and the shape's calls in flight (at most
// kCallsInFlight) sets of slots, ticket and result, used in turn (CallSets).
class VulkanCall final : public DeviceCall {
public:
    VulkanCall(const ShaderBackend& spec, VulkanQueue& queue, Elements input, const LaunchKnobs& knobs, LaunchSource source)
        : queue_(queue),
          n_(input.size()),
          element_bytes_(element_bytes(input.type())),
          atomic_(spec.finish == Finish::atomic),
          reduce_(spec.reduce),
          source_(source),
          shape_(launch_shape(spec.reduce, n_, element_bytes_, knobs)),
          sets_(shape_.calls_in_flight),
          slot_stride_(round_up(std::uint64_t{shape_.workgroups} * element_bytes_)),
          slots_(queue.context(), slot_stride_ * shape_.calls_in_flight, Buffer::Where::device),
          tickets_(queue.context(), kSetStride * shape_.calls_in_flight, Buffer::Where::device),
          out_(queue.context(), kSetStride * shape_.calls_in_flight, Buffer::Where::device),
          host_out_(queue.context(), element_bytes_, Buffer::Where::host) {
        // The shaders index the input in 32 bits, and NVIDIA's driver forms the byte offset in 32 bits
        // too: past 4 GiB it wraps (an H200 lost the last elements of 2^31 + 1001 floats).
        if (input.size_bytes() > (std::size_t{1} << 32))
            throw ResourceExhausted(std::to_string(n_) + " elements: the shaders address at most 4 GiB of input (32-bit offsets)");
        const std::uint32_t constants[] = {shape_.workgroup_size, shape_.loads_in_flight};
        pipeline_ = queue.context().pipeline(input.type() == ElementType::f64 ? spec.spirv_f64 : spec.spirv, constants,
                                             shape_.pinned_subgroup_size);
        queue_.fill(tickets_, 0);
    }

    void enqueue(DeviceQueue::Memory& input, std::size_t offset, bool result_to_host) override {
        const VkDeviceAddress in = n_ > 0 ? buffer_of(input).address() + offset : 0;
        const DispatchOrder order = sets_.next(in);
        const VkDeviceSize set = sets_.current();
        // The empty sum, or what the atomics add to: every set's result zeroed at once, in a new round.
        if (n_ == 0 || (atomic_ && order == DispatchOrder::after_previous)) queue_.fill(out_, 0);
        if (n_ > 0) {
            const CallConstants constants{.vectors = in, .floats = in, .slots = slots_.address() + set * slot_stride_,
                                          .ticket = tickets_.address() + set * kSetStride, .out = out_.address() + set * kSetStride,
                                          .n = static_cast<std::uint32_t>(n_), .unused = 0};
            queue_.dispatch(pipeline_, &constants, shape_.workgroups, order);
        }
        to_host_ = result_to_host;
        if (to_host_) copy_result();
    }

    double result() override {
        if (!to_host_) {
            copy_result();
            queue_.finish();
        }
        if (element_bytes_ == sizeof(double)) {
            double sum = 0;
            std::memcpy(&sum, host_out_.mapped(), sizeof sum);
            return sum;
        }
        float sum = 0;
        std::memcpy(&sum, host_out_.mapped(), sizeof sum);
        return sum;
    }

    std::string configuration() const override { return describe(shape_, reduce_, source_); }

private:
    void copy_result() { queue_.copy(host_out_, 0, out_, sets_.current() * kSetStride, element_bytes_); }

    VulkanQueue& queue_;
    std::size_t n_, element_bytes_;
    bool atomic_;
    WorkgroupReduce reduce_;
    LaunchSource source_;
    LaunchShape shape_;
    CallSets sets_;
    VkDeviceSize slot_stride_;
    Buffer slots_, tickets_, out_, host_out_;
    VkPipeline pipeline_ = VK_NULL_HANDLE;
    bool to_host_ = false;
};

// Powers of two from `low` up to `high`.
std::vector<std::uint32_t> powers_of_two(std::uint32_t low, std::uint32_t high) {
    std::vector<std::uint32_t> values;
    for (std::uint32_t v = low; v <= high; v *= 2) values.push_back(v);
    return values;
}

}  // namespace

std::string describe(const LaunchShape& shape, WorkgroupReduce reduce, LaunchSource source) {
    std::string text = "workgroups=" + std::to_string(shape.workgroups) + " workgroup=" + std::to_string(shape.workgroup_size) +
                       " loads=" + std::to_string(shape.loads_in_flight) + " per_unit=" + std::to_string(shape.groups_per_unit) +
                       " in_flight=" + std::to_string(shape.calls_in_flight);
    if (reduce == WorkgroupReduce::shared_memory) text += " reduce=shared";
    else if (shape.pinned_subgroup_size) text += " subgroup=" + std::to_string(shape.pinned_subgroup_size) + " (pinned)";
    else text += " subgroup=" + std::to_string(context().facts().subgroup_size) + " (driver's choice)";
    return text + " shape=" + std::string(to_string(source));
}

LaunchKnobs default_knobs(int) { return kDefaultKnobs; }

TunedLaunch tuned_launch_of(const std::string& kernel, LaunchSpace space, const MakeKnobbedCall& make) {
    return tuned_launch({
        .kernel = kernel,
        .device = context().facts().description,
        .defaults = default_knobs,
        .space = std::move(space),
        .seconds_per_call = [&make](const LaunchKnobs& knobs, std::size_t n) {
            return seconds_per_call({.make_queue = make_queue,
                                     .make_call = [&make, knobs](DeviceQueue& queue, Elements input) {
                                         return make(static_cast<VulkanQueue&>(queue), input, knobs, LaunchSource::tuner);
                                     }},
                                    n);
        },
    });
}

LaunchSpace launch_space() {
    const DeviceFacts& facts = context().facts();
    const std::uint32_t widest = std::min<std::uint32_t>(1024, std::bit_floor(facts.max_workgroup_size));
    // Never more workgroups a unit than it holds of the narrowest workgroup, where it says.
    const std::uint32_t per_unit = facts.invocations_per_unit ? std::max<std::uint32_t>(facts.invocations_per_unit / 64, 1) : 16;
    return {.group_sizes = powers_of_two(std::min<std::uint32_t>(64, widest), widest),
            .loads = powers_of_two(1, 8),
            .groups_per_unit = powers_of_two(1, std::min<std::uint32_t>(per_unit, 16)),
            .in_flight = powers_of_two(1, kCallsInFlight)};
}

DispatchOrder CallSets::next(VkDeviceAddress in) {
    if (std::find(reading_.begin(), reading_.end(), in) != reading_.end()) next_ = 0;
    set_ = next_;
    next_ = (next_ + 1) % count_;
    // A set used again: ordered after every command before (its last use, and the result's copy).
    if (set_ != 0) {
        reading_.push_back(in);
        return DispatchOrder::independent;
    }
    reading_.assign(1, in);
    return DispatchOrder::after_previous;
}

LaunchShape launch_shape(WorkgroupReduce reduce, std::size_t n, std::size_t element_bytes, const LaunchKnobs& knobs) {
    const DeviceFacts& facts = context().facts();
    LaunchShape shape{.workgroup_size = std::min(knobs.group_size, std::bit_floor(facts.max_workgroup_size)),
                      .loads_in_flight = knobs.loads,
                      .groups_per_unit = knobs.groups_per_unit,
                      .calls_in_flight = std::min(knobs.in_flight, kCallsInFlight)};
    const std::uint64_t per_workgroup = std::uint64_t{shape.workgroup_size} * (16 / element_bytes) * shape.loads_in_flight;
    const std::uint64_t units = facts.compute_units ? facts.compute_units : kUnknownComputeUnits;
    const std::uint64_t most = std::min<std::uint64_t>(units * shape.groups_per_unit, facts.max_workgroups);
    shape.workgroups = static_cast<std::uint32_t>(std::clamp<std::uint64_t>((n + per_workgroup - 1) / per_workgroup, 1, most));
    const std::uint32_t size = facts.max_subgroup_size;
    if (reduce == WorkgroupReduce::subgroup && facts.subgroup_size_control && shape.workgroup_size % size == 0 &&
        shape.workgroup_size / size <= facts.max_workgroup_subgroups)
        shape.pinned_subgroup_size = size;
    return shape;
}

LaunchShape launch_shape(WorkgroupReduce reduce, std::size_t n, std::size_t element_bytes) {
    return launch_shape(reduce, n, element_bytes, default_knobs(size_band(n)));
}

std::unique_ptr<DeviceQueue> make_queue() { return std::make_unique<VulkanQueue>(); }

std::unique_ptr<DeviceCall> make_call(const DeviceBackendSpec<MakeCall>& backend, DeviceQueue& queue, Elements input) {
    return backend.make(static_cast<VulkanQueue&>(queue), input);
}

DeviceBackendSpec<MakeCall> shader_backend(ShaderBackend backend) {
    // The calls outlive this function and share the module.
    auto module = std::make_shared<const ShaderBackend>(std::move(backend));
    return {
        .name = module->name,
        .description = module->description,
        .traits = module->traits,
        .traits_by_type = {{ElementType::f64, {.accumulator = Accumulator::f64, .order = module->traits.order,
                                               .reproducibility = module->traits.reproducibility, .role = module->traits.role}}},
        .make = [module](VulkanQueue& queue, Elements input) -> std::unique_ptr<DeviceCall> {
            const MakeKnobbedCall make = [module](VulkanQueue& q, Elements in, const LaunchKnobs& knobs, LaunchSource source) {
                return std::make_unique<VulkanCall>(*module, q, in, knobs, source);
            };
            const TunedLaunch launch = tuned_launch_of(module->name, launch_space(), make);
            return make(queue, input, launch.for_size(input.size()), launch.source);
        },
        .element_types = module->spirv_f64.empty() ? std::vector{ElementType::f32} : std::vector{ElementType::f32, ElementType::f64},
        .unavailable_reason = [module] { return why_unavailable(*module); },
        .type_unavailable_reason = why_type_unavailable,
    };
}

}  // namespace shootout::vulkan
