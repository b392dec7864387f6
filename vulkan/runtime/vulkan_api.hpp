// The Vulkan device API's name, for the backends that run on it, and what its record
// (shootout_device_api() in vulkan/CMakeLists.txt) reads of a build that has it.
#pragma once

#include <string>
#include <vector>

#include "api/backend.hpp"

namespace shootout::vulkan {

inline constexpr Device kDevice{"vulkan"};

// The names of the devices the loader lists that are not CPU implementations (those are the host's
// processors, counted already): what the machine fingerprint counts. Empty without a loader.
std::vector<std::string> visible_devices();

}  // namespace shootout::vulkan
