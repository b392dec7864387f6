// What vulkan/* rows are judged against. vulkan/baseline/read: how fast this device reads the input
// through Vulkan: the single-pass dispatch's loads and subgroup reduction, but each workgroup adds
// its sum to the result with one float atomicAdd instead of the slots and the ticket: no combine, the
// order of the adds not fixed. vulkan/baseline/launch: the least a call costs, one empty dispatch
// recorded as every reduction's is (pipeline, push constants, dispatch, and a barrier before each
// round of kCallsInFlight calls: the reductions' calls overlap so, results/README.md "The overlap
// rule"); with the best read of the machine it makes the roofline (plot/README.md).
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "vulkan/runtime/context.hpp"
#include "vulkan/runtime/vulkan_queue.hpp"
#include "vulkan/runtime/vulkan_reduction.hpp"

namespace shootout::vulkan {
namespace {

constexpr std::uint32_t kReadSpirv[] = {
#include "vulkan/shaders/read.spv.inc"
};
constexpr std::uint32_t kNoWorkSpirv[] = {
#include "vulkan/shaders/no_work.spv.inc"
};

// One workgroup of one subgroup (the driver's size) that does nothing.
class EmptyDispatch final : public DeviceCall {
public:
    explicit EmptyDispatch(VulkanQueue& queue) : queue_(queue), workgroup_size_(queue.context().facts().subgroup_size) {
        const std::uint32_t constants[] = {workgroup_size_};
        pipeline_ = queue.context().pipeline(kNoWorkSpirv, constants, 0);
    }

    void enqueue(DeviceQueue::Memory&, std::size_t, bool) override {
        const std::array<std::byte, kPushConstantBytes> unread{};
        const bool round = calls_++ % kCallsInFlight == 0;
        queue_.dispatch(pipeline_, unread.data(), 1, round ? DispatchOrder::after_previous : DispatchOrder::independent);
    }
    // Reads nothing, sums nothing: NaN, so that no one reads its error column as a result.
    double result() override { return std::numeric_limits<double>::quiet_NaN(); }
    std::string configuration() const override { return "workgroups=1 workgroup=" + std::to_string(workgroup_size_); }

private:
    VulkanQueue& queue_;
    std::uint32_t workgroup_size_;
    VkPipeline pipeline_ = VK_NULL_HANDLE;
    std::uint64_t calls_ = 0;
};

[[maybe_unused]] const bool registered_read = register_device_backend(kRuntime, shader_backend({
    .name = "vulkan/baseline/read",
    .description = "achievable read bandwidth: one dispatch of 16-byte loads, float adds, subgroupAdd, one float atomicAdd "
                   "per workgroup (order not fixed)",
    .traits = {.accumulator = Accumulator::f32, .order = Order::unordered, .reproducibility = Reproducibility::none, .role = Role::ceiling},
    .spirv = kReadSpirv,
    .reduce = WorkgroupReduce::subgroup,
    .finish = Finish::atomic,
}));
[[maybe_unused]] const bool registered_launch = register_device_backend(kRuntime, {
    .name = "vulkan/baseline/launch",
    .description = "the launch floor: one empty dispatch of one workgroup (one subgroup) per call, recorded as the reductions' "
                   "are, reading nothing; result NaN (no sum)",
    .traits = {.accumulator = Accumulator::none, .order = Order::unordered, .role = Role::launch_floor},
    .make = [](VulkanQueue& queue, Elements) { return std::make_unique<EmptyDispatch>(queue); },
});

}  // namespace
}  // namespace shootout::vulkan
