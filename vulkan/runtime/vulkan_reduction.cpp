#include "vulkan/runtime/vulkan_reduction.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <utility>

#include "api/device_timing.hpp"
#include "vulkan/runtime/context.hpp"
#include "vulkan/runtime/vulkan_api.hpp"
#include "vulkan/runtime/vulkan_queue.hpp"

namespace shootout::vulkan {
namespace {

constexpr std::uint32_t kWorkgroupSize = 256, kLoadsInFlight = 4;

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

std::string describe(const LaunchShape& shape, WorkgroupReduce reduce) {
    std::string text = "workgroups=" + std::to_string(shape.workgroups) + " workgroup=" + std::to_string(shape.workgroup_size) +
                       " loads=" + std::to_string(shape.loads_in_flight);
    if (reduce == WorkgroupReduce::shared_memory) return text + " reduce=shared";
    if (shape.pinned_subgroup_size) return text + " subgroup=" + std::to_string(shape.pinned_subgroup_size) + " (pinned)";
    return text + " subgroup=" + std::to_string(context().facts().subgroup_size) + " (driver's choice)";
}

// One backend's dispatch for one input size: its pipeline, slots, ticket and result.
class VulkanCall final : public DeviceCall {
public:
    VulkanCall(const ShaderBackend& spec, VulkanQueue& queue, Elements input)
        : queue_(queue),
          n_(input.size()),
          element_bytes_(element_bytes(input.type())),
          atomic_(spec.finish == Finish::atomic),
          reduce_(spec.reduce),
          shape_(launch_shape(spec.reduce, n_, element_bytes_)),
          slots_(queue.context(), std::uint64_t{shape_.workgroups} * element_bytes_, Buffer::Where::device),
          ticket_(queue.context(), sizeof(std::uint32_t), Buffer::Where::device),
          out_(queue.context(), element_bytes_, Buffer::Where::device),
          host_out_(queue.context(), element_bytes_, Buffer::Where::host) {
        // The shaders index the input in 32 bits, and NVIDIA's driver forms the byte offset in 32 bits
        // too: past 4 GiB it wraps (an H200 lost the last elements of 2^31 + 1001 floats).
        if (input.size_bytes() > (std::size_t{1} << 32))
            throw ResourceExhausted(std::to_string(n_) + " elements: the shaders address at most 4 GiB of input (32-bit offsets)");
        const std::uint32_t constants[] = {shape_.workgroup_size, shape_.loads_in_flight};
        pipeline_ = queue.context().pipeline(input.type() == ElementType::f64 ? spec.spirv_f64 : spec.spirv, constants,
                                             shape_.pinned_subgroup_size);
        queue_.fill(ticket_, 0);
    }

    void enqueue(DeviceQueue::Memory& input, std::size_t offset, bool result_to_host) override {
        if (n_ == 0 || atomic_) queue_.fill(out_, 0);  // the empty sum, or what the atomics add to
        if (n_ > 0) {
            const VkDeviceAddress in = buffer_of(input).address() + offset;
            const CallConstants constants{.vectors = in, .floats = in, .slots = slots_.address(), .ticket = ticket_.address(),
                                          .out = out_.address(), .n = static_cast<std::uint32_t>(n_), .unused = 0};
            queue_.dispatch(pipeline_, &constants, shape_.workgroups);
        }
        to_host_ = result_to_host;
        if (to_host_) queue_.copy(host_out_, 0, out_, 0, element_bytes_);
    }

    double result() override {
        if (!to_host_) {
            queue_.copy(host_out_, 0, out_, 0, element_bytes_);
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

    std::string configuration() const override { return describe(shape_, reduce_); }

private:
    VulkanQueue& queue_;
    std::size_t n_, element_bytes_;
    bool atomic_;
    WorkgroupReduce reduce_;
    LaunchShape shape_;
    Buffer slots_, ticket_, out_, host_out_;
    VkPipeline pipeline_ = VK_NULL_HANDLE;
    bool to_host_ = false;
};

}  // namespace

LaunchShape launch_shape(WorkgroupReduce reduce, std::size_t n, std::size_t element_bytes) {
    const DeviceFacts& facts = context().facts();
    LaunchShape shape;
    shape.workgroup_size = std::min(kWorkgroupSize, std::bit_floor(facts.max_workgroup_size));
    shape.loads_in_flight = kLoadsInFlight;
    const std::uint64_t per_workgroup = std::uint64_t{shape.workgroup_size} * (16 / element_bytes) * shape.loads_in_flight;
    const std::uint64_t resident = std::max<std::uint64_t>(facts.resident_invocations / shape.workgroup_size, 1);
    const std::uint64_t most = std::min<std::uint64_t>(resident, facts.max_workgroups);
    shape.workgroups = static_cast<std::uint32_t>(std::clamp<std::uint64_t>((n + per_workgroup - 1) / per_workgroup, 1, most));
    const std::uint32_t size = facts.max_subgroup_size;
    if (reduce == WorkgroupReduce::subgroup && facts.subgroup_size_control && shape.workgroup_size % size == 0 &&
        shape.workgroup_size / size <= facts.max_workgroup_subgroups)
        shape.pinned_subgroup_size = size;
    return shape;
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
            return std::make_unique<VulkanCall>(*module, queue, input);
        },
        .element_types = module->spirv_f64.empty() ? std::vector{ElementType::f32} : std::vector{ElementType::f32, ElementType::f64},
        .unavailable_reason = [module] { return why_unavailable(*module); },
        .type_unavailable_reason = why_type_unavailable,
    };
}

}  // namespace shootout::vulkan
