// The OpenCL device API's name, for the backends that run on it.
#pragma once

#include "api/backend.hpp"

namespace shootout::opencl {

inline constexpr Device kDevice{"opencl"};

}  // namespace shootout::opencl
