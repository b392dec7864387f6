// The one registration of every device API's backends. An API states once what all its backends
// share, as a constant DeviceRuntime record: its device, whether one is here and what it is, its
// queue, and how one backend's work becomes a call on that queue. A backend states what it adds
// (its name, traits, types, needs and work) as a DeviceBackendSpec, and register_device_backend
// makes its Backend record, timed by the device-neutral layer (api/device_timing.hpp).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/backend.hpp"
#include "api/device_timing.hpp"

namespace shootout {

template <class Work>
struct DeviceBackendSpec;

// What every backend of one device API shares. `Work` is what its backends supply: a CUDA
// DeviceSum's maker, an OpenCL KernelSum's, a Vulkan call's. Plain functions, so that an API's
// record is a constant, there before any backend registers from a static initialiser.
template <class Work>
struct DeviceRuntime {
    Device device;
    // Why there is no usable device of the API here (no driver, no device), or nullopt.
    std::optional<std::string> (*why_no_device)();
    // The device the backends run on (for the CSV's gpu column), asked only where there is one.
    DeviceInfo (*device_info)();
    std::unique_ptr<DeviceQueue> (*make_queue)();
    // One backend's call for one input, on a queue make_queue made: its work, made for the input's
    // size and type. Throws ResourceExhausted when the work's storage does not fit.
    std::unique_ptr<DeviceCall> (*make_call)(const DeviceBackendSpec<Work>& backend, DeviceQueue& queue, Elements input);
};

// One backend of a device API: what it adds to its API's record.
template <class Work>
struct DeviceBackendSpec {
    std::string name;
    std::string description;
    Traits traits;
    std::vector<std::pair<ElementType, Traits>> traits_by_type = {};  // Backend::traits_by_type
    // The work overwrites its input (DeviceBackendParts::writes_input).
    bool writes_input = false;
    Work make;
    std::vector<ElementType> element_types = {ElementType::f32};
    // Why the API's device cannot run it, beyond there being one (an extension it lacks), or nullopt;
    // asked only where there is a device. Empty: any can.
    std::function<std::optional<std::string>()> unavailable_reason = {};
    // Why the device cannot sum one of element_types (Backend::type_unavailable_reason).
    std::function<std::optional<std::string>(ElementType)> type_unavailable_reason = {};
    // A call waits for the device before it returns (DeviceBackendParts::synchronizes).
    bool synchronizes = false;
};

// Completes the record of a one-device backend timed through api/device_timing.hpp: device
// timestamps, inputs rotated past the cache (Cache::cold), one device, isolated and batched rows,
// timed transfers, and `parts` to prepare it with.
Backend device_backend(Backend record, DeviceBackendParts parts);

// Registers a backend of the API `api`: unavailable where the API has no device, or where the
// device lacks what the backend needs; its calls made by the API. Returns true, for a
// namespace-scope initialiser as register_backend.
template <class Work>
bool register_device_backend(const DeviceRuntime<Work>& api, DeviceBackendSpec<Work> spec) {
    // The record's functions outlive this call and share the spec.
    auto backend = std::make_shared<const DeviceBackendSpec<Work>>(std::move(spec));
    return register_backend(device_backend(
        {
            .name = backend->name,
            .device = api.device,
            .description = backend->description,
            .traits = backend->traits,
            .element_types = backend->element_types,
            .traits_by_type = backend->traits_by_type,
            .unavailable_reason = [why_no_device = api.why_no_device, backend]() -> std::optional<std::string> {
                if (auto reason = why_no_device()) return reason;
                return backend->unavailable_reason ? backend->unavailable_reason() : std::nullopt;
            },
            .type_unavailable_reason = backend->type_unavailable_reason,
            .device_info = api.device_info,
        },
        {
            .make_queue = api.make_queue,
            .make_call = [make_call = api.make_call, backend](DeviceQueue& queue, Elements input) {
                return make_call(*backend, queue, input);
            },
            .writes_input = backend->writes_input,
            .synchronizes = backend->synchronizes,
        }));
}

}  // namespace shootout
