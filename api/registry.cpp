#include "api/backend.hpp"
#include "api/device_api.hpp"
#include "api/wildcard.hpp"

#include <algorithm>

namespace shootout {

std::string_view to_string(Cache cache) { return cache == Cache::cold ? "cold" : "warm"; }

std::string_view to_string(Accumulator accumulator) {
    switch (accumulator) {
        case Accumulator::f32: return "f32";
        case Accumulator::f64: return "f64";
        case Accumulator::f16: return "f16";
        case Accumulator::bf16: return "bf16";
        case Accumulator::compensated_f32: return "compensated_f32";
        case Accumulator::compensated_f64: return "compensated_f64";
        case Accumulator::exact: return "exact";
        case Accumulator::none: return "none";
        case Accumulator::tf32: return "tf32";
        case Accumulator::tf32_split: return "tf32_split";
    }
    return "unknown";
}

std::string_view to_string(Order order) {
    switch (order) {
        case Order::sequential: return "sequential";
        case Order::lanes: return "lanes";
        case Order::pairwise: return "pairwise";
        case Order::thread_chunks: return "thread_chunks";
        case Order::tree: return "tree";
        case Order::unordered: return "unordered";
    }
    return "unknown";
}

std::string_view to_string(Reproducibility reproducibility) {
    switch (reproducibility) {
        case Reproducibility::none: return "none";
        case Reproducibility::per_thread_count: return "per_thread_count";
        case Reproducibility::any_thread_count: return "any_thread_count";
    }
    return "unknown";
}

std::string_view to_string(Role role) {
    switch (role) {
        case Role::reduction: return "reduction";
        case Role::ceiling: return "ceiling";
        case Role::reference_copy: return "reference_copy";
        case Role::launch_floor: return "launch_floor";
    }
    return "unknown";
}

namespace {
// A function-local static: backends register from other translation units' static initialisers,
// whose order relative to this file's is unspecified.
std::vector<Backend>& storage() {
    static std::vector<Backend> backends;
    return backends;
}
}  // namespace

bool register_backend(Backend backend) {
    if (backend.name.empty() || !backend.prepare)
        throw std::logic_error("register_backend: a backend needs a name and a prepare step");
    if (is_reference(backend.traits.role) != (backend.traits.accumulator == Accumulator::none))
        throw std::logic_error("register_backend: '" + backend.name + "': exactly the reference copies and launch floors sum nothing");
    auto& backends = storage();
    if (find_backend(backend.name) != nullptr)
        throw std::logic_error("register_backend: '" + backend.name + "' is registered twice");
    auto at = std::lower_bound(backends.begin(), backends.end(), backend.name,
                               [](const Backend& b, const std::string& name) { return b.name < name; });
    backends.insert(at, std::move(backend));
    return true;
}

const std::vector<Backend>& registered_backends() { return storage(); }

namespace {
std::vector<DeviceApi>& api_storage() {
    static std::vector<DeviceApi> apis = {{.device = Device::cpu}};
    return apis;
}
}  // namespace

bool register_device_api(DeviceApi api) {
    auto& apis = api_storage();
    if (find_device_api(api.device) != nullptr)
        throw std::logic_error("register_device_api: '" + std::string(api.device.name()) + "' is registered twice");
    const auto at = std::lower_bound(apis.begin() + 1, apis.end(), api.device.name(),
                                     [](const DeviceApi& a, std::string_view name) { return a.device.name() < name; });
    apis.insert(at, std::move(api));
    return true;
}

const std::vector<DeviceApi>& device_apis() { return api_storage(); }

const DeviceApi* find_device_api(Device device) {
    for (const auto& api : api_storage())
        if (api.device == device) return &api;
    return nullptr;
}

const DeviceApi* unbuilt_api_named_by(std::string_view pattern) {
    const std::string text(pattern);
    for (const auto& api : api_storage()) {
        if (!api.unbuilt) continue;
        if (text == api.device.name()) return &api;
        for (const std::string& glob : api.backend_patterns)
            if (wildcard_match(glob, text)) return &api;
    }
    return nullptr;
}

const Backend* find_backend(std::string_view name) {
    for (const auto& backend : storage())
        if (backend.name == name) return &backend;
    return nullptr;
}

}  // namespace shootout
