// The OpenCL device API's name, for the backends that run on it, and what its record
// (shootout_device_api() in opencl/CMakeLists.txt) reads of a build that has it.
#pragma once

#include <string>
#include <vector>

#include "api/backend.hpp"

namespace shootout::opencl {

inline constexpr Device kDevice{"opencl"};

// Every GPU and accelerator of every platform, by name, for the machine fingerprint.
std::vector<std::string> visible_devices();

}  // namespace shootout::opencl
