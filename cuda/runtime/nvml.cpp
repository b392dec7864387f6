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
enum ClockType : int { kClockSm = 1, kClockMemory = 2 };  // nvmlClockType_t's NVML_CLOCK_SM, NVML_CLOCK_MEM

struct Library {
    std::string failure;  // why NVML cannot be used; empty when it can
    Return (*init)() = nullptr;
    const char* (*error_string)(Return) = nullptr;
    Return (*handle_by_bus_id)(const char*, DeviceHandle*) = nullptr;
    Return (*total_energy)(DeviceHandle, unsigned long long*) = nullptr;
    Return (*clock)(DeviceHandle, ClockType, unsigned*) = nullptr;
    Return (*max_clock)(DeviceHandle, ClockType, unsigned*) = nullptr;
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
        find(l.clock, "nvmlDeviceGetClockInfo");
        find(l.max_clock, "nvmlDeviceGetMaxClockInfo");
        if (l.failure.empty())
            if (const Return status = l.init(); status != 0) l.failure = std::string("nvmlInit_v2 failed: ") + l.error_string(status);
        return l;
    }();
    return nvml;
}

// The handle of the GPU at `pci_bus_id`, looked up once; an empty string, or why it cannot be had.
std::string find_device(const Library& nvml, const std::string& pci_bus_id, DeviceHandle& device) {
    if (!nvml.failure.empty()) return nvml.failure;
    static std::mutex mutex;
    static std::map<std::string, DeviceHandle> handles;
    const std::lock_guard lock(mutex);
    auto [at, added] = handles.try_emplace(pci_bus_id, nullptr);
    if (added)
        if (const Return status = nvml.handle_by_bus_id(pci_bus_id.c_str(), &at->second); status != 0) {
            handles.erase(at);
            return "nvmlDeviceGetHandleByPciBusId_v2(" + pci_bus_id + ") failed: " + nvml.error_string(status);
        }
    device = at->second;
    return {};
}

}  // namespace

Energy total_energy(const std::string& pci_bus_id) {
    const Library& nvml = library();
    DeviceHandle device = nullptr;
    if (std::string missing = find_device(nvml, pci_bus_id, device); !missing.empty()) return {.missing = missing};
    unsigned long long millijoules = 0;
    if (const Return status = nvml.total_energy(device, &millijoules); status != 0)
        return {.missing = std::string("nvmlDeviceGetTotalEnergyConsumption failed: ") + nvml.error_string(status)};
    return {.joules = static_cast<double>(millijoules) * 1e-3};
}

DeviceClocks clocks(const std::string& pci_bus_id) {
    const Library& nvml = library();
    DeviceHandle device = nullptr;
    if (std::string missing = find_device(nvml, pci_bus_id, device); !missing.empty()) return {.missing = missing};
    auto read = [&](auto query, ClockType type) -> std::optional<double> {
        unsigned mhz = 0;
        if (query(device, type, &mhz) != 0) return std::nullopt;  // a GPU that does not report this clock
        return mhz;
    };
    return {.sm_mhz = read(nvml.clock, kClockSm), .memory_mhz = read(nvml.clock, kClockMemory),
            .sm_max_mhz = read(nvml.max_clock, kClockSm)};
}

}  // namespace shootout::cuda
