#include "cuda/runtime/device.hpp"

#include <cuda_runtime_api.h>

#include "cuda/runtime/cuda_api.hpp"
#include "cuda/runtime/cuda_check.hpp"

namespace shootout::cuda {

std::optional<std::string> why_no_device() {
    static const std::optional<std::string> reason = []() -> std::optional<std::string> {
        int count = 0;
        const cudaError_t status = cudaGetDeviceCount(&count);
        if (status != cudaSuccess) {
            cudaGetLastError();
            return std::string("no CUDA device (") + cudaGetErrorString(status) + ")";
        }
        if (count == 0) return "no CUDA device (the driver reports none)";
        return std::nullopt;
    }();
    return reason;
}

namespace {

int attribute(cudaDeviceAttr which, int device, const char* call) {
    int value = 0;
    check(cudaDeviceGetAttribute(&value, which, device), call);
    return value;
}

DeviceProperties query() {
    int device = 0;
    SHOOTOUT_CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    SHOOTOUT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    // CUDA 13 dropped cudaDeviceProp::memoryClockRate; the attributes still report clock and width.
    const double clock_khz = attribute(cudaDevAttrMemoryClockRate, device, "cudaDeviceGetAttribute(cudaDevAttrMemoryClockRate)");
    const double bus_bits =
        attribute(cudaDevAttrGlobalMemoryBusWidth, device, "cudaDeviceGetAttribute(cudaDevAttrGlobalMemoryBusWidth)");
    return {
        .name = prop.name,
        .sm_count = prop.multiProcessorCount,
        .compute_capability = prop.major * 10 + prop.minor,
        .l2_bytes = static_cast<std::size_t>(prop.l2CacheSize),
        .peak_gbps = 2 * clock_khz * 1e3 * bus_bits / 8 / 1e9,
    };
}

}  // namespace

const DeviceProperties& device_properties() {
    static const DeviceProperties properties = query();
    return properties;
}

DeviceInfo device_info() {
    if (why_no_device()) return {};
    const DeviceProperties& p = device_properties();
    return {.name = p.name, .peak_gbps = p.peak_gbps, .visible = device_count()};
}

int device_count() {
    if (why_no_device()) return 0;
    int count = 0;
    SHOOTOUT_CUDA_CHECK(cudaGetDeviceCount(&count));
    return count;
}

std::vector<std::string> visible_devices() {
    if (why_no_device()) return {};
    return std::vector<std::string>(static_cast<std::size_t>(device_count()), device_properties().name);
}

void select_device(int device) { SHOOTOUT_CUDA_CHECK(cudaSetDevice(device)); }

DeviceScope::DeviceScope(int device) {
    SHOOTOUT_CUDA_CHECK(cudaGetDevice(&previous_));
    select_device(device);
}

DeviceScope::~DeviceScope() { cudaSetDevice(previous_); }

}  // namespace shootout::cuda
