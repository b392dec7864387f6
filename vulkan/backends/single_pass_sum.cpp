// vulkan/single-pass and vulkan/single-pass-shared: one dispatch per call, the last workgroup to
// finish combines the workgroups' slots (vulkan/shaders/reduce.comp), as cuda/single-pass does. The
// two differ only in how a workgroup reduces: subgroupAdd, or a shared-memory tree. Floats are summed
// in float, doubles in double where the device has shaderFloat64.
#include <cstdint>

#include "vulkan/runtime/vulkan_reduction.hpp"

namespace shootout::vulkan {
namespace {

constexpr std::uint32_t kSubgroupSpirv[] = {
#include "vulkan/shaders/single_pass_subgroup.spv.inc"
};
constexpr std::uint32_t kSharedSpirv[] = {
#include "vulkan/shaders/single_pass_shared.spv.inc"
};
constexpr std::uint32_t kSubgroupF64Spirv[] = {
#include "vulkan/shaders/single_pass_subgroup_f64.spv.inc"
};
constexpr std::uint32_t kSharedF64Spirv[] = {
#include "vulkan/shaders/single_pass_shared_f64.spv.inc"
};

// The partition and the combining tree depend on n and the device alone.
constexpr Traits kFixedTree{.accumulator = Accumulator::f32, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count};

[[maybe_unused]] const bool registered_subgroup = register_device_backend(kRuntime, shader_backend({
    .name = "vulkan/single-pass",
    .description = "one dispatch: an even share of 16-byte load tiles per workgroup, subgroupAdd (subgroup size pinned), workgroup sums to slots, "
                   "the workgroup drawing the last ticket combines them in workgroup order; doubles summed in double",
    .traits = kFixedTree,
    .spirv = kSubgroupSpirv,
    .spirv_f64 = kSubgroupF64Spirv,
    .reduce = WorkgroupReduce::subgroup,
}));
[[maybe_unused]] const bool registered_shared = register_device_backend(kRuntime, shader_backend({
    .name = "vulkan/single-pass-shared",
    .description = "vulkan/single-pass with each workgroup reduced by a shared-memory tree instead of subgroup operations",
    .traits = kFixedTree,
    .spirv = kSharedSpirv,
    .spirv_f64 = kSharedF64Spirv,
    .reduce = WorkgroupReduce::shared_memory,
}));

}  // namespace
}  // namespace shootout::vulkan
