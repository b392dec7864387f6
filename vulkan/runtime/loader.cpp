#include "vulkan/runtime/loader.hpp"

#include <cstdlib>
#include <stdexcept>

#include "api/backend.hpp"
#include "platform/shared_library.hpp"

namespace shootout::vulkan {

Functions vk;

std::string loader_file() {
    const char* path = std::getenv("SHOOTOUT_VULKAN_LOADER");
    return path && *path ? path : platform::versioned_library_file("vulkan", 1);
}

std::string open_loader() {
    static const std::string failure = [] {
        const std::string file = loader_file();
        // Never closed: the functions are called until the process exits.
        std::string error;
        void* library = platform::open_library(file, error);
        if (!library) return "no Vulkan loader (" + error + ")";
        vk.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(platform::library_symbol(library, "vkGetInstanceProcAddr"));
        if (!vk.vkGetInstanceProcAddr) return "no Vulkan loader (" + file + " has no vkGetInstanceProcAddr)";
#define SHOOTOUT_VK_LOAD(name) vk.name = reinterpret_cast<PFN_##name>(vk.vkGetInstanceProcAddr(nullptr, #name));
        SHOOTOUT_VK_GLOBAL_FUNCTIONS(SHOOTOUT_VK_LOAD)
#undef SHOOTOUT_VK_LOAD
        // vkEnumerateInstanceVersion is Vulkan 1.1's: a 1.0 loader lacks it.
        if (!vk.vkCreateInstance || !vk.vkEnumerateInstanceVersion)
            return "the Vulkan loader " + file + " is older than Vulkan 1.1";
        return std::string();
    }();
    return failure;
}

// A function the loader does not give is left null; the device's requirements (context.cpp) make
// sure none that is called is missing.
void load_instance(VkInstance instance) {
#define SHOOTOUT_VK_LOAD(name) vk.name = reinterpret_cast<PFN_##name>(vk.vkGetInstanceProcAddr(instance, #name));
    SHOOTOUT_VK_INSTANCE_FUNCTIONS(SHOOTOUT_VK_LOAD)
    SHOOTOUT_VK_LOAD(vkCreateDebugUtilsMessengerEXT)
    SHOOTOUT_VK_LOAD(vkDestroyDebugUtilsMessengerEXT)
#undef SHOOTOUT_VK_LOAD
}

void load_device(VkDevice device) {
#define SHOOTOUT_VK_LOAD(name) vk.name = reinterpret_cast<PFN_##name>(vk.vkGetDeviceProcAddr(device, #name));
    SHOOTOUT_VK_DEVICE_FUNCTIONS(SHOOTOUT_VK_LOAD)
#undef SHOOTOUT_VK_LOAD
}

const char* result_name(VkResult result) {
    switch (result) {
#define SHOOTOUT_VK_RESULT(name) \
    case name: return #name;
        SHOOTOUT_VK_RESULT(VK_SUCCESS)
        SHOOTOUT_VK_RESULT(VK_NOT_READY)
        SHOOTOUT_VK_RESULT(VK_TIMEOUT)
        SHOOTOUT_VK_RESULT(VK_INCOMPLETE)
        SHOOTOUT_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
        SHOOTOUT_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        SHOOTOUT_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
        SHOOTOUT_VK_RESULT(VK_ERROR_DEVICE_LOST)
        SHOOTOUT_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
        SHOOTOUT_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
        SHOOTOUT_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
        SHOOTOUT_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
        SHOOTOUT_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
        SHOOTOUT_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
        SHOOTOUT_VK_RESULT(VK_ERROR_UNKNOWN)
#undef SHOOTOUT_VK_RESULT
        default: return "an unnamed VkResult";
    }
}

void check(VkResult result, const char* call) {
    if (result == VK_SUCCESS) return;
    const std::string message = std::string(call) + " failed: " + result_name(result) + " (" + std::to_string(result) + ")";
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY) throw ResourceExhausted(message);
    throw std::runtime_error(message);
}

}  // namespace shootout::vulkan
