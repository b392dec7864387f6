#include "vulkan/runtime/context.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <stdexcept>

#include "vulkan/runtime/loader.hpp"
#include "vulkan/runtime/vulkan_api.hpp"

namespace shootout::vulkan {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

// The newest Vulkan the backends use: a device's features and properties are read at the lower of
// this and its own version (what the instance lets it offer).
constexpr std::uint32_t kApiVersion = VK_API_VERSION_1_3;

bool at_least_1_3(std::uint32_t version) { return std::min(version, kApiVersion) >= VK_API_VERSION_1_3; }

// A GPU's last-level cache, which Vulkan does not report: larger than any this was written for
// (H100 50 MiB, H200 60 MiB, MI300X's 256 MiB Infinity Cache), so rotation past 4x it defeats theirs.
constexpr std::size_t kUnknownCacheBytes = std::size_t{256} << 20;

std::mutex& messages_mutex() {
    static std::mutex mutex;
    return mutex;
}
std::vector<std::string>& error_messages() {
    static std::vector<std::string> messages;
    return messages;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
                                          const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) {
        const std::string message = data && data->pMessage ? data->pMessage : "(no message)";
        std::cerr << "vulkan (loader or layer) error: " << message << '\n';
        const std::lock_guard lock(messages_mutex());
        error_messages().push_back(message);
    }
    return VK_FALSE;
}

std::string version_text(std::uint32_t version) {
    return std::to_string(VK_API_VERSION_MAJOR(version)) + "." + std::to_string(VK_API_VERSION_MINOR(version)) + "." +
           std::to_string(VK_API_VERSION_PATCH(version));
}

std::string_view type_text(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
        default: return "other";
    }
}

// Lower is preferred.
int type_rank(VkPhysicalDeviceType type) {
    switch (type) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return 4;
        default: return 3;
    }
}

bool env_names(const char* variable, std::string_view word) {
    const char* value = std::getenv(variable);
    return value && std::string_view(value).find(word) != std::string_view::npos;
}

// The host's largest cache, for CPU implementations, whose "device memory" is host memory.
std::size_t host_last_level_cache() {
    std::size_t largest = 0;
    for (int index = 0; index < 8; ++index) {
        std::ifstream file("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size");
        std::size_t value = 0;
        char unit = 0;
        if (!(file >> value)) continue;
        file >> unit;
        largest = std::max(largest, value * (unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1));
    }
    return largest ? largest : kUnknownCacheBytes;
}

std::vector<VkExtensionProperties> device_extensions(VkPhysicalDevice device) {
    std::uint32_t count = 0;
    vk.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr);
    std::vector<VkExtensionProperties> extensions(count);
    vk.vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data());
    extensions.resize(count);
    return extensions;
}

bool has_extension(const std::vector<VkExtensionProperties>& extensions, const char* name) {
    return std::any_of(extensions.begin(), extensions.end(), [&](const auto& e) { return std::strcmp(e.extensionName, name) == 0; });
}

// What vulkan/exact needs beyond every backend's: 64-bit integers, in subgroup operations too, and
// 16-bit loads from buffers.
struct IntegerFeatures {
    VkPhysicalDeviceVulkan11Features v11{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    bool shader_int64 = false, subgroup_int64 = false, storage_buffer_16bit = false;
};

// Reads them from a device's features (v11 in their chain).
void read_integer_features(IntegerFeatures& integers, const VkPhysicalDeviceFeatures2& features, const VkPhysicalDeviceVulkan12Features& v12) {
    integers.shader_int64 = features.features.shaderInt64;
    integers.subgroup_int64 = v12.shaderSubgroupExtendedTypes;
    integers.storage_buffer_16bit = integers.v11.storageBuffer16BitAccess;
}

// Enables those the device has, v11 added to the create-info chain at `tail`.
void enable_integer_features(IntegerFeatures& integers, VkPhysicalDeviceFeatures& core, VkPhysicalDeviceVulkan12Features& v12, void**& tail) {
    integers.v11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, .storageBuffer16BitAccess = integers.storage_buffer_16bit};
    *std::exchange(tail, &integers.v11.pNext) = &integers.v11;
    core.shaderInt64 = integers.shader_int64;
    v12.shaderSubgroupExtendedTypes = integers.subgroup_int64;
}

// A physical device with what vulkan/* would enable on it.
struct Candidate {
    VkPhysicalDevice device = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties properties{};
    std::uint32_t family = 0;
    std::uint32_t timestamp_bits = 64;  // the family's timestampValidBits
    bool subgroup_size_control_extension = false;  // VK_EXT_subgroup_size_control needed (before 1.3)
    bool subgroup_size_control = false;
    bool full_subgroups = false;
    bool atomic_float_extension = false;
    bool float_atomic_add = false;
    bool shader_float64 = false;
    IntegerFeatures integers;
    bool sm_builtins = false;
    bool amd_core = false, amd_core2 = false;  // VK_AMD_shader_core_properties(2)
};

// Fills `candidate` for `device`, or returns why vulkan/* cannot run on it.
std::optional<std::string> examine(VkPhysicalDevice device, Candidate& candidate) {
    candidate.device = device;
    VkPhysicalDeviceProperties2 properties{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    vk.vkGetPhysicalDeviceProperties2(device, &properties);
    candidate.properties = properties.properties;
    const std::uint32_t api = properties.properties.apiVersion;
    if (api < VK_API_VERSION_1_2)
        return "Vulkan " + version_text(api) + ", below the 1.2 the backends need";

    const auto extensions = device_extensions(device);
    const bool v13 = at_least_1_3(api);
    candidate.subgroup_size_control_extension = !v13 && has_extension(extensions, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    candidate.atomic_float_extension = has_extension(extensions, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    candidate.sm_builtins = has_extension(extensions, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
    candidate.amd_core = has_extension(extensions, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
    candidate.amd_core2 = has_extension(extensions, VK_AMD_SHADER_CORE_PROPERTIES_2_EXTENSION_NAME);

    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    VkPhysicalDeviceSubgroupSizeControlFeatures size_control{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
    VkPhysicalDeviceVulkan12Features v12{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 features{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &v12};
    void** tail = &v12.pNext;
    if (v13 || candidate.subgroup_size_control_extension) *std::exchange(tail, &size_control.pNext) = &size_control;
    if (candidate.atomic_float_extension) *std::exchange(tail, &atomic_float.pNext) = &atomic_float;
    *std::exchange(tail, &candidate.integers.v11.pNext) = &candidate.integers.v11;
    vk.vkGetPhysicalDeviceFeatures2(device, &features);
    read_integer_features(candidate.integers, features, v12);
    if (!v12.bufferDeviceAddress) return std::string("no buffer device addresses (bufferDeviceAddress)");
    if (!v12.vulkanMemoryModel || !v12.vulkanMemoryModelDeviceScope)
        return std::string("no Vulkan memory model at device scope (vulkanMemoryModelDeviceScope)");
    candidate.subgroup_size_control = size_control.subgroupSizeControl;
    candidate.full_subgroups = size_control.computeFullSubgroups;
    candidate.float_atomic_add = atomic_float.shaderBufferFloat32AtomicAdd;
    candidate.shader_float64 = features.features.shaderFloat64;

    std::uint32_t families = 0;
    vk.vkGetPhysicalDeviceQueueFamilyProperties(device, &families, nullptr);
    std::vector<VkQueueFamilyProperties> family_properties(families);
    vk.vkGetPhysicalDeviceQueueFamilyProperties(device, &families, family_properties.data());
    // A family with compute and timestamps; one without graphics first (a dedicated compute queue).
    std::optional<std::uint32_t> chosen;
    for (std::uint32_t f = 0; f < families; ++f) {
        const auto& family = family_properties[f];
        if (!(family.queueFlags & VK_QUEUE_COMPUTE_BIT) || family.timestampValidBits == 0) continue;
        if (!chosen || !(family.queueFlags & VK_QUEUE_GRAPHICS_BIT)) chosen = f;
        if (!(family.queueFlags & VK_QUEUE_GRAPHICS_BIT)) break;
    }
    if (!chosen) return std::string("no compute queue with timestamps");
    candidate.family = *chosen;
    candidate.timestamp_bits = family_properties[*chosen].timestampValidBits;
    return std::nullopt;
}

// The loader, the instance and the physical devices: enough to list devices without opening one.
struct Instance {
    std::string failure;  // why there is no device, or empty
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    bool validation = false;
    std::vector<Candidate> usable;  // best first
    std::vector<std::pair<std::string, VkPhysicalDeviceType>> listed;  // every device the loader lists

    Instance() {
        failure = open_loader();
        if (!failure.empty()) return;

        std::uint32_t count = 0;
        vk.vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
        std::vector<VkExtensionProperties> extensions(count);
        vk.vkEnumerateInstanceExtensionProperties(nullptr, &count, extensions.data());
        const bool debug_utils = has_extension(extensions, VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        count = 0;
        vk.vkEnumerateInstanceLayerProperties(&count, nullptr);
        std::vector<VkLayerProperties> layers(count);
        vk.vkEnumerateInstanceLayerProperties(&count, layers.data());
        validation = env_names("VK_INSTANCE_LAYERS", kValidationLayer) &&
                     std::any_of(layers.begin(), layers.end(), [](const auto& l) { return std::strcmp(l.layerName, kValidationLayer) == 0; });

        const VkApplicationInfo application{.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                                            .pApplicationName = "accumulate_bench",
                                            .apiVersion = kApiVersion};
        const VkDebugUtilsMessengerCreateInfoEXT messenger_info{
            .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
            .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
            .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
            .pfnUserCallback = on_message};
        const char* debug_extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
        // Chained to the instance's creation too, so that its own creation and destruction are checked.
        const VkInstanceCreateInfo create{.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                          .pNext = debug_utils ? &messenger_info : nullptr,
                                          .pApplicationInfo = &application,
                                          .enabledExtensionCount = debug_utils ? 1u : 0u,
                                          .ppEnabledExtensionNames = &debug_extension};
        const VkResult created = vk.vkCreateInstance(&create, nullptr, &instance);
        if (created == VK_ERROR_INCOMPATIBLE_DRIVER) {
            failure = "no Vulkan driver (the loader found no ICD that works here; VK_DRIVER_FILES or VK_ICD_FILENAMES name a driver's JSON file)";
            return;
        }
        if (created != VK_SUCCESS) {
            failure = std::string("no Vulkan instance (vkCreateInstance: ") + result_name(created) + ")";
            return;
        }
        load_instance(instance);
        if (debug_utils) vk.vkCreateDebugUtilsMessengerEXT(instance, &messenger_info, nullptr, &messenger);

        count = 0;
        vk.vkEnumeratePhysicalDevices(instance, &count, nullptr);
        std::vector<VkPhysicalDevice> devices(count);
        vk.vkEnumeratePhysicalDevices(instance, &count, devices.data());
        devices.resize(count);
        if (devices.empty()) {
            failure = "no Vulkan device (the loader's drivers list none)";
            return;
        }
        std::string unusable;
        for (VkPhysicalDevice device : devices) {
            Candidate candidate;
            const auto why_not = examine(device, candidate);
            listed.emplace_back(candidate.properties.deviceName, candidate.properties.deviceType);
            if (why_not) unusable += std::string(unusable.empty() ? "" : "; ") + candidate.properties.deviceName + ": " + *why_not;
            else usable.push_back(candidate);
        }
        std::stable_sort(usable.begin(), usable.end(), [](const Candidate& a, const Candidate& b) {
            return type_rank(a.properties.deviceType) < type_rank(b.properties.deviceType);
        });
        if (usable.empty()) failure = "no usable Vulkan device (" + unusable + ")";
    }

    ~Instance() {
        if (messenger) vk.vkDestroyDebugUtilsMessengerEXT(instance, messenger, nullptr);
        if (instance) vk.vkDestroyInstance(instance, nullptr);
    }
};

Instance& instance() {
    static Instance state;
    return state;
}

DeviceFacts read_facts(const Candidate& candidate) {
    DeviceFacts facts;
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
    VkPhysicalDeviceShaderCorePropertiesAMD amd{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
    VkPhysicalDeviceShaderCoreProperties2AMD amd2{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_2_AMD};
    VkPhysicalDeviceSubgroupSizeControlProperties size_control{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    VkPhysicalDeviceMaintenance4Properties maintenance4{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES};
    VkPhysicalDeviceVulkan12Properties v12{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
    VkPhysicalDeviceVulkan11Properties v11{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES, .pNext = &v12};
    VkPhysicalDeviceProperties2 properties{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &v11};
    void** tail = &v12.pNext;
    const bool v13 = at_least_1_3(candidate.properties.apiVersion);
    if (v13 || candidate.subgroup_size_control_extension) *std::exchange(tail, &size_control.pNext) = &size_control;
    if (v13) *std::exchange(tail, &maintenance4.pNext) = &maintenance4;
    if (candidate.sm_builtins) *std::exchange(tail, &sm.pNext) = &sm;
    if (candidate.amd_core) *std::exchange(tail, &amd.pNext) = &amd;
    if (candidate.amd_core2) *std::exchange(tail, &amd2.pNext) = &amd2;
    vk.vkGetPhysicalDeviceProperties2(candidate.device, &properties);
    const VkPhysicalDeviceLimits& limits = properties.properties.limits;

    facts.name = properties.properties.deviceName;
    facts.type = properties.properties.deviceType;
    facts.api_version = properties.properties.apiVersion;
    facts.description = facts.name + " (" + std::string(type_text(facts.type)) + ", driver " + v12.driverName + " " +
                        v12.driverInfo + ", Vulkan " + version_text(facts.api_version) + ")";
    facts.timestamp_period_ns = limits.timestampPeriod;
    facts.timestamp_mask = candidate.timestamp_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << candidate.timestamp_bits) - 1;
    facts.subgroup_size = v11.subgroupSize;
    facts.subgroup_arithmetic = (v11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                                (v11.subgroupSupportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
    facts.subgroup_size_control = candidate.subgroup_size_control &&
                                  (size_control.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);
    facts.full_subgroups = candidate.full_subgroups;
    facts.min_subgroup_size = facts.subgroup_size_control ? size_control.minSubgroupSize : facts.subgroup_size;
    facts.max_subgroup_size = facts.subgroup_size_control ? size_control.maxSubgroupSize : facts.subgroup_size;
    facts.max_workgroup_subgroups = facts.subgroup_size_control ? size_control.maxComputeWorkgroupSubgroups : 0;
    facts.float_atomic_add = candidate.float_atomic_add;
    facts.shader_float64 = candidate.shader_float64;
    facts.shader_int64 = candidate.integers.shader_int64;
    facts.subgroup_int64 = candidate.integers.subgroup_int64;
    facts.storage_buffer_16bit = candidate.integers.storage_buffer_16bit;
    facts.max_workgroup_size = std::min(limits.maxComputeWorkGroupSize[0], limits.maxComputeWorkGroupInvocations);
    facts.max_workgroups = limits.maxComputeWorkGroupCount[0];
    if (candidate.sm_builtins) {
        facts.compute_units = sm.shaderSMCount;
        facts.invocations_per_unit = sm.shaderWarpsPerSM * 32;
    } else if (candidate.amd_core) {
        facts.compute_units = candidate.amd_core2 && amd2.activeComputeUnitCount
                                  ? amd2.activeComputeUnitCount
                                  : amd.shaderEngineCount * amd.shaderArraysPerEngineCount * amd.computeUnitsPerShaderArray;
        facts.invocations_per_unit = amd.simdPerComputeUnit * amd.wavefrontsPerSimd * amd.wavefrontSize;
    }
    facts.cache_bytes = facts.type == VK_PHYSICAL_DEVICE_TYPE_CPU ? host_last_level_cache() : kUnknownCacheBytes;
    if (v13) facts.max_buffer_size = maintenance4.maxBufferSize;
    vk.vkGetPhysicalDeviceMemoryProperties(candidate.device, &facts.memory);
    return facts;
}

}  // namespace

Context::Context() {
    Instance& state = instance();
    if (!state.failure.empty()) throw std::runtime_error(state.failure);
    const Candidate& chosen = state.usable.front();
    facts_ = read_facts(chosen);
    family_ = chosen.family;

    std::vector<const char*> extensions;
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT,
                                                              .shaderBufferFloat32AtomicAdd = VK_TRUE};
    VkPhysicalDeviceSubgroupSizeControlFeatures size_control{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES,
                                                             .subgroupSizeControl = VK_TRUE,
                                                             .computeFullSubgroups = chosen.full_subgroups};
    VkPhysicalDeviceVulkan12Features v12{.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                         .bufferDeviceAddress = VK_TRUE,
                                         .vulkanMemoryModel = VK_TRUE,
                                         .vulkanMemoryModelDeviceScope = VK_TRUE};
    void** tail = &v12.pNext;
    if (chosen.subgroup_size_control) {
        *std::exchange(tail, &size_control.pNext) = &size_control;
        if (chosen.subgroup_size_control_extension) extensions.push_back(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    }
    if (chosen.float_atomic_add) {
        *std::exchange(tail, &atomic_float.pNext) = &atomic_float;
        extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    }
    VkPhysicalDeviceFeatures core{.shaderFloat64 = chosen.shader_float64};
    IntegerFeatures integers = chosen.integers;
    enable_integer_features(integers, core, v12, tail);
    const float priority = 1;
    const VkDeviceQueueCreateInfo queue_info{.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                             .queueFamilyIndex = family_,
                                             .queueCount = 1,
                                             .pQueuePriorities = &priority};
    const VkDeviceCreateInfo create{.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                    .pNext = &v12,
                                    .queueCreateInfoCount = 1,
                                    .pQueueCreateInfos = &queue_info,
                                    .enabledExtensionCount = static_cast<std::uint32_t>(extensions.size()),
                                    .ppEnabledExtensionNames = extensions.data(),
                                    .pEnabledFeatures = &core};
    SHOOTOUT_VK_CHECK(vk.vkCreateDevice(chosen.device, &create, nullptr, &device_));
    load_device(device_);
    vk.vkGetDeviceQueue(device_, family_, 0, &queue_);

    const VkPushConstantRange range{.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT, .offset = 0, .size = kPushConstantBytes};
    const VkPipelineLayoutCreateInfo layout{.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                            .pushConstantRangeCount = 1,
                                            .pPushConstantRanges = &range};
    SHOOTOUT_VK_CHECK(vk.vkCreatePipelineLayout(device_, &layout, nullptr, &layout_));
}

Context::~Context() {
    vk.vkDeviceWaitIdle(device_);
    for (const CachedPipeline& cached : pipelines_) vk.vkDestroyPipeline(device_, cached.pipeline, nullptr);
    vk.vkDestroyPipelineLayout(device_, layout_, nullptr);
    vk.vkDestroyDevice(device_, nullptr);
}

VkPipeline Context::pipeline(std::span<const std::uint32_t> spirv, std::span<const std::uint32_t> constants, std::uint32_t subgroup_size) {
    for (const CachedPipeline& cached : pipelines_)
        if (cached.spirv == spirv.data() && std::equal(constants.begin(), constants.end(), cached.constants.begin(), cached.constants.end()) &&
            cached.subgroup_size == subgroup_size)
            return cached.pipeline;

    const VkShaderModuleCreateInfo module_info{.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                               .codeSize = spirv.size_bytes(),
                                               .pCode = spirv.data()};
    VkShaderModule module = VK_NULL_HANDLE;
    SHOOTOUT_VK_CHECK(vk.vkCreateShaderModule(device_, &module_info, nullptr, &module));
    std::vector<VkSpecializationMapEntry> entries;
    for (std::uint32_t id = 0; id < constants.size(); ++id)
        entries.push_back({.constantID = id, .offset = id * 4, .size = 4});
    const VkSpecializationInfo specialization{.mapEntryCount = static_cast<std::uint32_t>(entries.size()),
                                              .pMapEntries = entries.data(),
                                              .dataSize = constants.size_bytes(),
                                              .pData = constants.data()};
    const VkPipelineShaderStageRequiredSubgroupSizeCreateInfo required{
        .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO, .requiredSubgroupSize = subgroup_size};
    const VkPipelineShaderStageCreateInfo stage{
        .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
        .pNext = subgroup_size ? &required : nullptr,
        .flags = subgroup_size && facts_.full_subgroups ? VkPipelineShaderStageCreateFlags{VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT} : 0u,
        .stage = VK_SHADER_STAGE_COMPUTE_BIT,
        .module = module,
        .pName = "main",
        .pSpecializationInfo = &specialization};
    const VkComputePipelineCreateInfo create{.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, .stage = stage, .layout = layout_};
    VkPipeline pipeline = VK_NULL_HANDLE;
    const VkResult made = vk.vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &create, nullptr, &pipeline);
    vk.vkDestroyShaderModule(device_, module, nullptr);
    SHOOTOUT_VK_CHECK(made);
    pipelines_.push_back({spirv.data(), {constants.begin(), constants.end()}, subgroup_size, pipeline});
    return pipeline;
}

std::optional<std::string> why_no_device() {
    const Instance& state = instance();
    if (!state.failure.empty()) return state.failure;
    return std::nullopt;
}

Context& context() {
    if (const auto reason = why_no_device()) throw std::runtime_error(*reason);
    static Context made;
    return made;
}

DeviceInfo device_info() {
    return {.name = context().facts().description, .peak_gbps = 0, .visible = static_cast<int>(instance().usable.size())};
}

std::vector<std::string> visible_devices() {
    std::vector<std::string> names;
    for (const auto& [name, type] : instance().listed)
        if (type != VK_PHYSICAL_DEVICE_TYPE_CPU) names.push_back(name);
    return names;
}

bool validation_enabled() { return instance().validation; }

std::vector<std::string> validation_errors() {
    const std::lock_guard lock(messages_mutex());
    return error_messages();
}

}  // namespace shootout::vulkan
