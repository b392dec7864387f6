#include "api/device_backend.hpp"

namespace shootout {

Backend device_backend(Backend record, DeviceBackendParts parts) {
    // The record's functions outlive this call and share the parts.
    auto shared = std::make_shared<const DeviceBackendParts>(std::move(parts));
    record.timing = Timing::device_events;
    record.cache = Cache::cold;
    record.devices = 1;
    record.supports_transfer = true;
    record.batches = true;
    record.prepare = [name = record.name, shared](Elements input, const PrepareOptions& options) -> std::unique_ptr<Reduction> {
        return naming_failures(name, [&] { return std::make_unique<TimedDeviceReduction>(name, *shared, input, options); });
    };
    record.device_parts = std::move(shared);
    return record;
}

}  // namespace shootout
