// The Vulkan device the backends run on: the loader, one instance, the chosen physical device, one
// logical device with one compute queue, what the backends need to know of it, and the compute
// pipelines made on it, all made once per process on first use and kept until it exits.
//
// The device chosen: the first discrete GPU the loader lists, else integrated, virtual, other, and
// last a CPU implementation (lavapipe) — among those that have what every vulkan/* backend needs:
// Vulkan 1.2, buffer device addresses, the Vulkan memory model at device scope, and a compute queue
// with timestamps. VK_DRIVER_FILES (VK_ICD_FILENAMES for older loaders) picks the drivers the loader
// reads; VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation adds the validation layer, whose errors
// are collected (validation_errors()) and printed.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/backend.hpp"

namespace shootout::vulkan {

// What the backends read of the chosen device.
struct DeviceFacts {
    std::string name;         // deviceName: "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)"
    VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
    std::string description;  // the CSV's gpu column: name, type, driver and Vulkan version
    std::uint32_t api_version = 0;
    double timestamp_period_ns = 1;  // nanoseconds per timestamp tick
    std::uint64_t timestamp_mask = ~std::uint64_t{0};
    std::uint32_t subgroup_size = 1;
    bool subgroup_arithmetic = false;  // subgroupAdd in compute shaders
    // VK_EXT_subgroup_size_control (core in 1.3) for compute: the subgroup size can be pinned, and
    // the range it can be pinned to.
    bool subgroup_size_control = false;
    bool full_subgroups = false;
    std::uint32_t min_subgroup_size = 1, max_subgroup_size = 1;
    std::uint32_t max_workgroup_subgroups = 1;  // with a pinned size, at most this many subgroups a workgroup
    bool float_atomic_add = false;  // VK_EXT_shader_atomic_float's shaderBufferFloat32AtomicAdd
    bool shader_float64 = false;    // doubles in shaders (shaderFloat64), enabled when there
    // vulkan/exact's, enabled when there: 64-bit integers (shaderInt64), in subgroup operations too
    // (shaderSubgroupExtendedTypes), and 16-bit loads from buffers (storageBuffer16BitAccess).
    bool shader_int64 = false, subgroup_int64 = false, storage_buffer_16bit = false;
    std::uint32_t max_workgroup_size = 128;
    std::uint32_t max_workgroups = 65535;
    // The SMs (compute units) and the invocations each holds at most, from VK_NV_shader_sm_builtins
    // or VK_AMD_shader_core_properties where the driver has one; 0 where it says neither. Vulkan
    // reports no pipeline's registers: how many workgroups a unit keeps resident is a launch knob
    // (LaunchKnobs::groups_per_unit), tuned, not derived.
    std::uint32_t compute_units = 0;
    std::uint32_t invocations_per_unit = 0;
    std::size_t cache_bytes = 0;  // the last-level cache that input rotation must defeat
    VkDeviceSize max_buffer_size = ~VkDeviceSize{0};
    VkPhysicalDeviceMemoryProperties memory{};
};

class Context {
public:
    Context();
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    VkDevice device() const { return device_; }
    VkQueue queue() const { return queue_; }
    std::uint32_t queue_family() const { return family_; }
    const DeviceFacts& facts() const { return facts_; }
    VkPipelineLayout pipeline_layout() const { return layout_; }

    // The compute pipeline of a SPIR-V module with these specialization constants (ids 0, 1, ...)
    // and, when `subgroup_size` is not 0, that subgroup size pinned: made on first request, kept.
    VkPipeline pipeline(std::span<const std::uint32_t> spirv, std::span<const std::uint32_t> constants, std::uint32_t subgroup_size);

private:
    struct CachedPipeline {
        const std::uint32_t* spirv;
        std::vector<std::uint32_t> constants;
        std::uint32_t subgroup_size;
        VkPipeline pipeline;
    };

    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    std::uint32_t family_ = 0;
    DeviceFacts facts_;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    std::vector<CachedPipeline> pipelines_;
};

// The bytes of push constants every pipeline takes (vulkan/shaders/reduce.comp's Call).
inline constexpr std::uint32_t kPushConstantBytes = 48;

// Why there is no device to run on ("no Vulkan loader (...)", "no Vulkan driver (...)", "no
// usable Vulkan device: ..."), or nullopt when there is one.
std::optional<std::string> why_no_device();

// Throws std::runtime_error with why_no_device()'s reason when there is none.
Context& context();

DeviceInfo device_info();

// Whether the instance runs with the Khronos validation layer (VK_INSTANCE_LAYERS named it and the
// loader found it).
bool validation_enabled();

// Every error-severity message the validation layer (or the loader) sent so far, in order.
std::vector<std::string> validation_errors();

}  // namespace shootout::vulkan
