// The device APIs a build knows: the host ("cpu") and each accelerator API whose folder registers
// itself (cuda/ registers "cuda"). A new API is a new folder that registers its record and its
// backends; the harness reads these records and never names an API.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/backend.hpp"

namespace shootout {

struct DeviceApi {
    Device device;  // its name is --backend's group and the CSV's device column
    // Globs of the backend names that need this API ("cuda/*", "nccl/*", "mpi/cuda"): a --backend
    // entry matching one, in a build without the API, is refused with `unbuilt`.
    std::vector<std::string> backend_patterns = {};
    // Why this build has none of the API's backends ("built without CUDA (no nvcc at configure
    // time)"), or nullopt when it has them.
    std::optional<std::string> unbuilt = std::nullopt;
    // The devices of this API the process sees, by name, one entry per device: the machine
    // fingerprint counts them. Empty when there are none (or the API is unbuilt).
    std::function<std::vector<std::string>()> visible_devices = {};
};

// Adds an API's record; returns true, for a namespace-scope initialiser as register_backend.
bool register_device_api(DeviceApi api);

// Every registered API, the host's "cpu" first, the others by name.
const std::vector<DeviceApi>& device_apis();

const DeviceApi* find_device_api(Device device);

// The first unbuilt API one of whose backend patterns matches the --backend entry `pattern` (or
// whose name it is), or nullptr.
const DeviceApi* unbuilt_api_named_by(std::string_view pattern);

}  // namespace shootout
