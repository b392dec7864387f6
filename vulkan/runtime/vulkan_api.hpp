// The Vulkan device API's name, for the backends that run on it.
#pragma once

#include "api/backend.hpp"

namespace shootout::vulkan {

inline constexpr Device kDevice{"vulkan"};

}  // namespace shootout::vulkan
