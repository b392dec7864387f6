// vulkan/exact: the exact sum rounded once to double in one dispatch, the same bits as cpu/exact/*
// and cuda/exact (vulkan/shaders/exact.comp, whose header states the algorithm, ports
// exact/exact_accumulator.hpp). Floats and the 16-bit types, every one of them a float: the
// superaccumulator of floats. Needs shaderInt64 and 64-bit subgroup arithmetic
// (shaderSubgroupExtendedTypes); float16 and bfloat16 16-bit loads from buffers
// (storageBuffer16BitAccess); no atomics beyond the 32-bit ticket.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "exact/exact_accumulator.hpp"
#include "vulkan/runtime/context.hpp"
#include "vulkan/runtime/vulkan_queue.hpp"
#include "vulkan/runtime/vulkan_reduction.hpp"

namespace shootout::vulkan {
namespace {

constexpr std::uint32_t kF32Spirv[] = {
#include "vulkan/shaders/exact_f32.spv.inc"
};
constexpr std::uint32_t kF16Spirv[] = {
#include "vulkan/shaders/exact_f16.spv.inc"
};
constexpr std::uint32_t kBf16Spirv[] = {
#include "vulkan/shaders/exact_bf16.spv.inc"
};

// exact.comp's push constants.
struct ExactConstants {
    VkDeviceAddress vectors, elements, slots, ticket, out;
    std::uint32_t n, unused;
};
static_assert(sizeof(ExactConstants) == kPushConstantBytes);

std::span<const std::uint32_t> module_for(ElementType type) {
    switch (type) {
        case ElementType::f16: return kF16Spirv;
        case ElementType::bf16: return kBf16Spirv;
        case ElementType::f32:
        case ElementType::f64: break;  // not in element_types: never asked
    }
    return kF32Spirv;
}

std::optional<std::string> why_unavailable() {
    const DeviceFacts& facts = context().facts();
    if (!facts.subgroup_arithmetic) return facts.name + " has no subgroup arithmetic in compute shaders";
    if (!facts.shader_int64) return facts.name + " has no 64-bit integers in shaders (shaderInt64)";
    if (!facts.subgroup_int64) return facts.name + " has no 64-bit integer subgroup operations (shaderSubgroupExtendedTypes)";
    return std::nullopt;
}

std::optional<std::string> why_type_unavailable(ElementType type) {
    const DeviceFacts& facts = context().facts();
    if ((type == ElementType::f16 || type == ElementType::bf16) && !facts.storage_buffer_16bit)
        return facts.name + " has no 16-bit loads from buffers (storageBuffer16BitAccess)";
    return std::nullopt;
}

// One input size's dispatch: the launch every vulkan/* call makes, and per call in flight (CallSets)
// a set of each workgroup's words in the slots, the ticket, the rounded sum's bits.
class ExactCall final : public DeviceCall {
public:
    ExactCall(VulkanQueue& queue, Elements input, const LaunchKnobs& knobs, LaunchSource source)
        : queue_(queue),
          n_(input.size()),
          source_(source),
          shape_(launch_shape(WorkgroupReduce::subgroup, n_, element_bytes(input.type()), knobs)),
          sets_(shape_.calls_in_flight),
          slot_stride_((std::uint64_t{shape_.workgroups} * (exact::kDigits<float> + 1) * sizeof(std::int64_t) + kSetStride - 1) / kSetStride * kSetStride),
          slots_(queue.context(), slot_stride_ * sets_.count(), Buffer::Where::device),
          tickets_(queue.context(), kSetStride * sets_.count(), Buffer::Where::device),
          out_(queue.context(), kSetStride * sets_.count(), Buffer::Where::device),
          host_out_(queue.context(), sizeof(double), Buffer::Where::host) {
        if (input.size_bytes() > (std::size_t{1} << 32))
            throw ResourceExhausted(std::to_string(n_) + " elements: the shaders address at most 4 GiB of input (32-bit offsets)");
        // Subgroups are at least the smallest size the driver may choose: the shader's columns.
        const DeviceFacts& facts = queue.context().facts();
        const std::uint32_t smallest = shape_.pinned_subgroup_size ? shape_.pinned_subgroup_size : facts.min_subgroup_size;
        const std::uint32_t constants[] = {shape_.workgroup_size, shape_.loads_in_flight, (shape_.workgroup_size + smallest - 1) / smallest};
        pipeline_ = queue.context().pipeline(module_for(input.type()), constants, shape_.pinned_subgroup_size);
        queue_.fill(tickets_, 0);
    }

    void enqueue(DeviceQueue::Memory& input, std::size_t offset, bool result_to_host) override {
        const VkDeviceAddress in = n_ > 0 ? buffer_of(input).address() + offset : 0;
        const DispatchOrder order = sets_.next(in);
        const VkDeviceSize set = sets_.current();
        if (n_ == 0) {
            queue_.fill(out_, 0);  // +0, the empty sum's bits
        } else {
            const ExactConstants constants{.vectors = in, .elements = in, .slots = slots_.address() + set * slot_stride_,
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
        double sum = 0;
        std::memcpy(&sum, host_out_.mapped(), sizeof sum);
        return sum;
    }

    std::string configuration() const override { return describe(shape_, WorkgroupReduce::subgroup, source_); }

private:
    void copy_result() { queue_.copy(host_out_, 0, out_, sets_.current() * kSetStride, sizeof(double)); }

    VulkanQueue& queue_;
    std::size_t n_;
    LaunchSource source_;
    LaunchShape shape_;
    CallSets sets_;
    VkDeviceSize slot_stride_;
    Buffer slots_, tickets_, out_, host_out_;
    VkPipeline pipeline_ = VK_NULL_HANDLE;
    bool to_host_ = false;
};

// The shapes the tuner may try: exact.comp keeps a column of digits a subgroup in shared memory, so
// workgroups whose columns fit in the 16 KiB every Vulkan device has (maxComputeSharedMemorySize).
LaunchSpace exact_space() {
    constexpr std::size_t kGuaranteedShared = 16384, kColumnBytes = (exact::kDigits<float> + 1) * sizeof(std::int64_t);
    LaunchSpace space = launch_space();
    const std::uint32_t smallest = context().facts().min_subgroup_size;
    std::erase_if(space.group_sizes, [&](std::uint32_t size) { return ((size + smallest - 1) / smallest + 1) * kColumnBytes > kGuaranteedShared; });
    return space;
}

std::unique_ptr<DeviceCall> tuned_exact(VulkanQueue& queue, Elements input) {
    const MakeKnobbedCall make = [](VulkanQueue& q, Elements in, const LaunchKnobs& knobs, LaunchSource source) {
        return std::make_unique<ExactCall>(q, in, knobs, source);
    };
    const TunedLaunch launch = tuned_launch_of("vulkan/exact", exact_space(), make);
    return make(queue, input, launch.for_size(input.size()), launch.source);
}

[[maybe_unused]] const bool registered = register_device_backend(kRuntime, {
    .name = "vulkan/exact",
    .description = "exact sum rounded once: fixed-point window (floats, bfloat16) or int64 (float16) in registers, "
                   "int64 subgroupAdd into digits, last workgroup sums the workgroups' digits and rounds",
    .traits = {.accumulator = Accumulator::exact, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count},
    .make = tuned_exact,
    .element_types = {ElementType::f32, ElementType::f16, ElementType::bf16},
    .unavailable_reason = why_unavailable,
    .type_unavailable_reason = why_type_unavailable,
});

}  // namespace
}  // namespace shootout::vulkan
