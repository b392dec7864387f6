#include "backend.hpp"

#include <algorithm>

namespace shootout {

std::string_view to_string(Device device) {
    switch (device) {
        case Device::cpu: return "cpu";
        case Device::cuda: return "cuda";
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
    auto& backends = storage();
    if (find_backend(backend.name) != nullptr)
        throw std::logic_error("register_backend: '" + backend.name + "' is registered twice");
    auto at = std::lower_bound(backends.begin(), backends.end(), backend.name,
                               [](const Backend& b, const std::string& name) { return b.name < name; });
    backends.insert(at, std::move(backend));
    return true;
}

const std::vector<Backend>& registered_backends() { return storage(); }

const Backend* find_backend(std::string_view name) {
    for (const auto& backend : storage())
        if (backend.name == name) return &backend;
    return nullptr;
}

}  // namespace shootout
