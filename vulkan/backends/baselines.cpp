// vulkan/baseline/read, the ceiling vulkan/* rows are judged against: how fast this device reads the
// input through Vulkan. The single-pass dispatch's loads and subgroup reduction, but each workgroup
// adds its sum to the result with one float atomicAdd instead of the slots and the ticket: no
// combine, the order of the adds not fixed.
#include <cstdint>

#include "vulkan/runtime/vulkan_reduction.hpp"

namespace shootout::vulkan {
namespace {

constexpr std::uint32_t kReadSpirv[] = {
#include "vulkan/shaders/read.spv.inc"
};

[[maybe_unused]] const bool registered_read = register_vulkan_backend({
    .name = "vulkan/baseline/read",
    .description = "achievable read bandwidth: one dispatch of 16-byte loads, float adds, subgroupAdd, one float atomicAdd "
                   "per workgroup (order not fixed)",
    .traits = {.accumulator = Accumulator::f32, .order = Order::unordered, .reproducibility = Reproducibility::none, .role = Role::ceiling},
    .spirv = kReadSpirv,
    .reduce = WorkgroupReduce::subgroup,
    .finish = Finish::atomic,
});

}  // namespace
}  // namespace shootout::vulkan
