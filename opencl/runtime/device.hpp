// The OpenCL device this process sums on, its properties, its context, and the programs built for it.
//
// The device is the first GPU of the first platform that has one, else the first accelerator, else
// the first device of any kind (PoCL's CPU device, say): so a machine where both CUDA and OpenCL see
// one GPU runs opencl/* on that GPU, and a machine with only a CPU driver runs them on the CPU, named
// as such in every row (describe()). Found once, on first use.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/backend.hpp"

namespace shootout::opencl {

struct DeviceProperties {
    cl_platform_id platform = nullptr;
    cl_device_id device = nullptr;
    std::string name, platform_name, device_version, driver_version, c_version;
    cl_device_type type = 0;
    unsigned compute_units = 1;
    std::size_t max_work_group = 1;
    std::size_t max_allocation = 0;
    std::size_t cache_bytes = 0;  // CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, as the driver reports it
    unsigned cache_line = 64;
    int c_major = 1, c_minor = 2;  // the highest OpenCL C version the device compiles
    std::string extensions;

    bool is_gpu() const { return (type & CL_DEVICE_TYPE_GPU) != 0; }
    bool has_extension(std::string_view name) const;
};

// Why no OpenCL device can be used here (no ICD, no platform, no device), or nullopt.
std::optional<std::string> why_no_device();
// The device's properties; throws std::runtime_error when there is none.
const DeviceProperties& device_properties();
// For the CSV's gpu column: the device's name, kind, platform, OpenCL version and driver.
std::string describe();
DeviceInfo device_info();

cl_context context();
// The program built from kernel_source(source) with these build options, for the device: built once
// per process (PoCL compiles with LLVM on first use), then reused. Throws with the build log.
cl_program program(std::string_view source, const std::string& options);

// The name of an OpenCL error code ("CL_OUT_OF_RESOURCES").
std::string error_name(cl_int code);
// Throws on an error: ResourceExhausted for the codes that mean memory ran out, else
// std::runtime_error naming `what` and the code.
void check(cl_int code, const char* what);

}  // namespace shootout::opencl
