// The CUDA device the backends run on (the current device), read once, and the devices the process
// sees. Multi-GPU backends use devices 0 .. N-1 and take them to be the current device's model (the
// properties below are read once, from the first device they are asked on).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "api/backend.hpp"

namespace shootout::cuda {

struct DeviceProperties {
    std::string name;
    int sm_count = 0;
    int compute_capability = 0;  // major x 10 + minor: 90 for sm_90
    std::size_t l2_bytes = 0;
    double peak_gbps = 0;  // memory clock x bus width x 2 (double data rate); 0 when not reported
};

// "no CUDA device (<runtime's error>)" when there is none to run on, else nullopt.
std::optional<std::string> why_no_device();

// Throws std::runtime_error (naming the call) when the device cannot be queried.
const DeviceProperties& device_properties();

DeviceInfo device_info();

// How many CUDA devices this process sees (CUDA_VISIBLE_DEVICES applies); 0 when there are none.
int device_count();

// Makes `device` this thread's current device: where later allocations and launches go.
void select_device(int device);

// Sets a device as current for a scope and puts the previous one back after it.
class DeviceScope {
public:
    explicit DeviceScope(int device);
    ~DeviceScope();
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int previous_ = 0;
};

}  // namespace shootout::cuda
