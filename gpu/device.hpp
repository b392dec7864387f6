// The CUDA device the backends run on (the current device), read once.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "backend.hpp"

namespace shootout::cuda {

struct DeviceProperties {
    std::string name;
    int sm_count = 0;
    std::size_t l2_bytes = 0;
    double peak_gbps = 0;  // memory clock x bus width x 2 (double data rate); 0 when not reported
};

// "no CUDA device (<runtime's error>)" when there is none to run on, else nullopt.
std::optional<std::string> why_no_device();

// Throws std::runtime_error (naming the call) when the device cannot be queried.
const DeviceProperties& device_properties();

DeviceInfo device_info();

}  // namespace shootout::cuda
