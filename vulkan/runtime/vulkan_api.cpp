// Registers the Vulkan device API: compiled in every build, so that a build without the Vulkan
// headers or glslc still names the backends it lacks and why.
#include "api/device_api.hpp"
#include "vulkan/runtime/vulkan_api.hpp"

#ifdef SHOOTOUT_HAVE_VULKAN
#include "vulkan/runtime/context.hpp"
#endif

namespace shootout::vulkan {
namespace {

[[maybe_unused]] const bool registered = register_device_api({
    .device = kDevice,
    .backend_patterns = {"vulkan/*"},
#ifdef SHOOTOUT_HAVE_VULKAN
    .unbuilt = std::nullopt,
    .visible_devices = visible_devices,
#else
    .unbuilt = "built without Vulkan (" SHOOTOUT_VULKAN_MISSING " at configure time)",
    .visible_devices = {},
#endif
});

}  // namespace
}  // namespace shootout::vulkan
