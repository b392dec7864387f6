#include "cuda/runtime/nvml.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <type_traits>

#include "platform/shared_library.hpp"

namespace shootout::cuda {
namespace {

// NVML's C types, as nvml.h declares them: the build needs no NVML header.
using Return = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
using DeviceHandle = struct nvmlDevice_st*;

struct Library {
    std::string failure;  // why NVML cannot be used; empty when it can
    Return (*init)() = nullptr;
    const char* (*error_string)(Return) = nullptr;
    Return (*handle_by_bus_id)(const char*, DeviceHandle*) = nullptr;
    Return (*total_energy)(DeviceHandle, unsigned long long*) = nullptr;
};

std::string library_file() {
    const char* path = std::getenv("SHOOTOUT_NVML_LIBRARY");
    return path && *path ? path : "libnvidia-ml.so.1";
}

// Opened and initialised once, never shut down: the counter is read until the process exits.
const Library& library() {
    static const Library nvml = [] {
        Library l;
        const std::string file = library_file();
        std::string error;
        void* handle = platform::open_library(file, error);
        if (!handle) {
            l.failure = "no NVML (" + error + ")";
            return l;
        }
        auto find = [&](auto& function, const char* name) {
            function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(platform::library_symbol(handle, name));
            if (!function && l.failure.empty()) l.failure = "no NVML (" + file + " has no " + name + ")";
        };
        find(l.init, "nvmlInit_v2");
        find(l.error_string, "nvmlErrorString");
        find(l.handle_by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
        find(l.total_energy, "nvmlDeviceGetTotalEnergyConsumption");
        if (l.failure.empty())
            if (const Return status = l.init(); status != 0) l.failure = std::string("nvmlInit_v2 failed: ") + l.error_string(status);
        return l;
    }();
    return nvml;
}

}  // namespace

Energy total_energy(const std::string& pci_bus_id) {
    const Library& nvml = library();
    if (!nvml.failure.empty()) return {.missing = nvml.failure};
    static std::mutex mutex;
    static std::map<std::string, DeviceHandle> handles;
    DeviceHandle device = nullptr;
    {
        const std::lock_guard lock(mutex);
        auto [at, added] = handles.try_emplace(pci_bus_id, nullptr);
        if (added)
            if (const Return status = nvml.handle_by_bus_id(pci_bus_id.c_str(), &at->second); status != 0) {
                handles.erase(at);
                return {.missing = "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + ") failed: " + nvml.error_string(status)};
            }
        device = at->second;
    }
    unsigned long long millijoules = 0;
    if (const Return status = nvml.total_energy(device, &millijoules); status != 0)
        return {.missing = std::string("nvmlDeviceGetTotalEnergyConsumption failed: ") + nvml.error_string(status)};
    return {.joules = static_cast<double>(millijoules) * 1e-3};
}

}  // namespace shootout::cuda
