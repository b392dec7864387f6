// The OpenCL C sources of opencl/kernels/, compiled into the program (opencl/embed_kernels.cmake).
#pragma once

#include <string_view>

namespace shootout::opencl {

// The source of opencl/kernels/<name>.cl; throws std::logic_error for a name that is not one.
std::string_view kernel_source(std::string_view name);

}  // namespace shootout::opencl
