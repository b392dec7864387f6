// The CUDA device API's name, for the backends that run on it, and what its record
// (shootout_device_api() in cuda/CMakeLists.txt) reads of a build that has it.
#pragma once

#include <string>
#include <vector>

#include "api/backend.hpp"

namespace shootout::cuda {

inline constexpr Device kDevice{"cuda"};

// The CUDA devices this process sees (CUDA_VISIBLE_DEVICES applies), each by the current device's
// name, for the machine fingerprint; empty when there are none.
std::vector<std::string> visible_devices();

}  // namespace shootout::cuda
