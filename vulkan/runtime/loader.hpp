// The Vulkan loader, opened at run time (platform/shared_library.hpp), and the functions vulkan/* calls, looked up
// through it as volk does: a machine without the loader still runs every other backend and lists
// these as unavailable, with the reason. Nothing links libvulkan.
#pragma once

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <string>

namespace shootout::vulkan {

// Functions of the loader itself, before any instance exists.
#define SHOOTOUT_VK_GLOBAL_FUNCTIONS(X)  \
    X(vkEnumerateInstanceVersion)        \
    X(vkEnumerateInstanceExtensionProperties) \
    X(vkEnumerateInstanceLayerProperties) \
    X(vkCreateInstance)

// Functions of an instance and its physical devices.
#define SHOOTOUT_VK_INSTANCE_FUNCTIONS(X)         \
    X(vkDestroyInstance)                          \
    X(vkEnumeratePhysicalDevices)                 \
    X(vkGetPhysicalDeviceProperties2)             \
    X(vkGetPhysicalDeviceFeatures2)               \
    X(vkGetPhysicalDeviceQueueFamilyProperties)   \
    X(vkGetPhysicalDeviceMemoryProperties)        \
    X(vkEnumerateDeviceExtensionProperties)       \
    X(vkCreateDevice)                             \
    X(vkGetDeviceProcAddr)

// Functions of a device, its queue and command buffers.
#define SHOOTOUT_VK_DEVICE_FUNCTIONS(X) \
    X(vkDestroyDevice)                  \
    X(vkGetDeviceQueue)                 \
    X(vkDeviceWaitIdle)                 \
    X(vkCreateBuffer)                   \
    X(vkDestroyBuffer)                  \
    X(vkGetBufferMemoryRequirements)    \
    X(vkAllocateMemory)                 \
    X(vkFreeMemory)                     \
    X(vkBindBufferMemory)               \
    X(vkMapMemory)                      \
    X(vkGetBufferDeviceAddress)         \
    X(vkCreateShaderModule)             \
    X(vkDestroyShaderModule)            \
    X(vkCreatePipelineLayout)           \
    X(vkDestroyPipelineLayout)          \
    X(vkCreateComputePipelines)         \
    X(vkDestroyPipeline)                \
    X(vkCreateCommandPool)              \
    X(vkDestroyCommandPool)             \
    X(vkAllocateCommandBuffers)         \
    X(vkBeginCommandBuffer)             \
    X(vkEndCommandBuffer)               \
    X(vkResetCommandBuffer)             \
    X(vkCmdBindPipeline)                \
    X(vkCmdPushConstants)               \
    X(vkCmdDispatch)                    \
    X(vkCmdPipelineBarrier)             \
    X(vkCmdCopyBuffer)                  \
    X(vkCmdFillBuffer)                  \
    X(vkCmdWriteTimestamp)              \
    X(vkCmdResetQueryPool)              \
    X(vkCreateQueryPool)                \
    X(vkDestroyQueryPool)               \
    X(vkGetQueryPoolResults)            \
    X(vkQueueSubmit)                    \
    X(vkCreateFence)                    \
    X(vkDestroyFence)                   \
    X(vkWaitForFences)                  \
    X(vkResetFences)

#define SHOOTOUT_VK_DECLARE(name) PFN_##name name = nullptr;

// The process's table of Vulkan functions: global ones once the loader is open, instance and device
// ones once load_instance() and load_device() have run.
struct Functions {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
    SHOOTOUT_VK_GLOBAL_FUNCTIONS(SHOOTOUT_VK_DECLARE)
    SHOOTOUT_VK_INSTANCE_FUNCTIONS(SHOOTOUT_VK_DECLARE)
    SHOOTOUT_VK_DEVICE_FUNCTIONS(SHOOTOUT_VK_DECLARE)
    // VK_EXT_debug_utils, where the instance has it.
    PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;
    PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT = nullptr;
};

#undef SHOOTOUT_VK_DECLARE

// The table every vulkan/* file calls through.
extern Functions vk;

// The loader's file: $SHOOTOUT_VULKAN_LOADER when set (a path to a libvulkan.so.1 carried to a
// machine without one installed), else the system's name for it (libvulkan.so.1 on Linux) from the
// library search path.
std::string loader_file();

// Opens the loader and fills the global functions; returns why it could not, or an empty string.
// Called once; later calls return the first answer.
std::string open_loader();
void load_instance(VkInstance instance);
void load_device(VkDevice device);

// "VK_ERROR_OUT_OF_DEVICE_MEMORY" and the like.
const char* result_name(VkResult result);

// Throws std::runtime_error naming the call and the result, or ResourceExhausted for the
// out-of-memory results, unless `result` is VK_SUCCESS.
void check(VkResult result, const char* call);

}  // namespace shootout::vulkan

#define SHOOTOUT_VK_CHECK(call) ::shootout::vulkan::check((call), #call)
