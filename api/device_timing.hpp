// The device-neutral timing layer: what every device backend's rows share, whatever the API.
//
//   rotation  an input smaller than rules::kL2RotationFactor x the device's last-level cache is
//             copied until the copies span that much, and calls take them in turn, so no call
//             reads what the one before left in the cache (Cache::cold)
//   isolated  one call between two device timestamps, waited on
//   batched   K calls enqueued back to back between two timestamps, the time divided by K
//   transfer  --include-transfer: the host-to-device copy from staging memory and the result's
//             copy back inside the timed region
//
// An API supplies a DeviceQueue (allocate, copy in, timestamps); a backend supplies a DeviceCall
// (enqueue one reduction of a copy). register_device_backend (api/device_backend.hpp) makes the
// Backend record, whose rows follow these rules, and TimedDeviceReduction is the Reduction the
// harness times.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "api/backend.hpp"

namespace shootout {

// One device API's in-order queue on one device.
class DeviceQueue {
public:
    // An allocation of device memory, released by its destructor.
    class Memory {
    public:
        virtual ~Memory() = default;
    };

    virtual ~DeviceQueue() = default;

    // The last-level cache that rotation must defeat, in bytes.
    virtual std::size_t cache_bytes() const = 0;
    // Device memory; throws ResourceExhausted when it cannot be had.
    virtual std::unique_ptr<Memory> allocate(std::size_t bytes) = 0;
    // Host memory the device copies from at full speed (pinned), for timed transfers.
    virtual std::shared_ptr<void> allocate_staging(std::size_t bytes) = 0;

    // Enqueued, in order:
    virtual void copy_in(Memory& to, std::size_t offset, const void* from, std::size_t bytes) = 0;
    virtual void copy(Memory& to, std::size_t to_offset, const Memory& from, std::size_t from_offset, std::size_t bytes) = 0;
    virtual void start_timer() = 0;
    // Enqueues the second timestamp, waits for it, and returns the seconds since start_timer's.
    virtual double stop_timer() = 0;

    // Waits for everything enqueued.
    virtual void finish() = 0;

    // The device's energy counter, in joules since a fixed point, read now; none where the API has
    // no counter.
    virtual Energy energy_counter() { return {}; }
    // The device's clocks, read now; none where the API cannot read them.
    virtual DeviceClocks clocks() { return {}; }
};

// A backend's device work for one input size, with its temporary storage, made before timing.
class DeviceCall {
public:
    virtual ~DeviceCall() = default;
    // Enqueues one reduction of the input copy at `offset` bytes into `input` (offset a multiple of
    // kDeviceCopyAlignment); with `result_to_host`, also the copy of its result to host memory.
    virtual void enqueue(DeviceQueue::Memory& input, std::size_t offset, bool result_to_host) = 0;
    // The last call's sum, read after timing (the queue is finished first).
    virtual double result() = 0;
    // What the call chose for this input (its launch shape), for the CSV's configuration column.
    virtual std::string configuration() const { return {}; }
};

// Every input copy starts on this many bytes: wide loads of any type, and every API's alignment rule.
inline constexpr std::size_t kDeviceCopyAlignment = 256;

// The bytes from one copy of an input of `bytes` to the next: a call's copy is its offset / this.
std::size_t copy_stride(std::size_t bytes);

// The copies of one input on one device, rotating as the rule above says.
class RotatingInput {
public:
    // At least min_count copies (a batch of in-place calls needs one each); one when !rotate.
    RotatingInput(DeviceQueue& queue, Elements input, bool rotate, std::size_t min_count);

    std::size_t count() const { return count_; }
    DeviceQueue::Memory& memory() { return *memory_; }
    // The offset of the copy the next call reads, advancing the rotation.
    std::size_t next();
    // The offset of the copy next() returned `back` calls ago (1: the last one).
    std::size_t previous(std::size_t back) const;
    std::size_t stride() const { return stride_; }

private:
    std::size_t stride_, count_ = 1, next_ = 0;
    std::unique_ptr<DeviceQueue::Memory> memory_;
};

struct DeviceBackendParts {
    std::function<std::unique_ptr<DeviceQueue>()> make_queue;
    // The backend's call for this input, made after the copies exist; throws ResourceExhausted.
    std::function<std::unique_ptr<DeviceCall>(DeviceQueue&, Elements input)> make_call;
    // The call overwrites its input: each call gets a fresh copy, restored after its timed region.
    bool writes_input = false;
    // The call waits for the device before it returns (a library that hands its sum to the host).
    bool synchronizes = false;
};

// Re-throws a failure with the backend's name in front, keeping its kind: an out-of-memory stays
// ResourceExhausted, so the harness skips the size instead of failing.
template <class F>
decltype(auto) naming_failures(const std::string& backend, F&& f) {
    try {
        return std::forward<F>(f)();
    } catch (const ResourceExhausted& e) {
        throw ResourceExhausted(backend + ": " + e.what());
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(backend + ": " + e.what());
    }
}

// The Reduction every device backend's rows are timed through; every failure names the backend.
class TimedDeviceReduction final : public Reduction {
public:
    TimedDeviceReduction(std::string name, const DeviceBackendParts& parts, Elements input, const PrepareOptions& options);
    ~TimedDeviceReduction() override;

    std::optional<double> run() override;
    double run_batch(int calls) override;
    Energy energy_per_call(int calls) override;
    DeviceClocks clocks() override { return queue_->clocks(); }
    double result() override;
    std::string configuration() const override { return call_->configuration(); }

private:
    void restore(std::size_t calls);

    std::string name_;
    std::unique_ptr<DeviceQueue> queue_;
    std::size_t bytes_;
    bool transfer_;
    RotatingInput copies_;
    std::unique_ptr<DeviceQueue::Memory> pristine_;
    std::shared_ptr<void> staging_;
    std::unique_ptr<DeviceCall> call_;
};

}  // namespace shootout
