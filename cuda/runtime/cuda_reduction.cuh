// What every CUDA backend shares: the CUDA queue of the device-neutral timing layer
// (api/device_timing.hpp: rotating copies, isolated and batched timing, --include-transfer), and
// the one copy of the result back, as the CUDA API's DeviceRuntime (api/device_backend.hpp). A
// backend supplies only a DeviceSum: "enqueue the reduction of in[0..n) into *out on this stream",
// with its temporary storage.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/backend.hpp"
#include "api/device_backend.hpp"
#include "cuda/runtime/cuda_api.hpp"
#include "cuda/runtime/device.hpp"

namespace shootout::cuda {

// One backend's device work for one input size, set up (temporary storage included) by its
// constructor, over input of any element type, writing its sum as a float or a double.
class AnyDeviceSum {
public:
    virtual ~AnyDeviceSum() = default;
    // Enqueues the reduction of the n elements at `in` (n > 0, 256-byte aligned) into `out`, which
    // has room for a double.
    virtual void enqueue_any(void* in, void* out, cudaStream_t stream) = 0;
    // The bytes the sum takes in `out`, and their value widened to double.
    virtual std::size_t result_bytes() const = 0;
    virtual double widen_result(const void* bytes) const = 0;
    // For a library that hands its sum to the host inside the call (thrust::reduce): that sum, which
    // then makes the copy of the result unnecessary.
    virtual std::optional<double> host_result() const { return std::nullopt; }
};

// The same over elements of type Input, summed into a Result (float, or double for double
// accumulators, or a 16-bit type for 16-bit ones): what a backend implements.
template <class Result, class Input = float>
class DeviceSum : public AnyDeviceSum {
public:
    // Enqueues the reduction of in[0..n), n > 0 and in 256-byte aligned, into *out on `stream`.
    // Allocates nothing and does not synchronize, except where a library forces it (Thrust).
    virtual void enqueue(Input* in, Result* out, cudaStream_t stream) = 0;

private:
    void enqueue_any(void* in, void* out, cudaStream_t stream) final { enqueue(static_cast<Input*>(in), static_cast<Result*>(out), stream); }
    std::size_t result_bytes() const final { return sizeof(Result); }
    double widen_result(const void* bytes) const final {
        Result sum;
        std::memcpy(&sum, bytes, sizeof sum);
        if constexpr (sizeof(Result) == 2) return static_cast<double>(static_cast<float>(sum));  // __half, __nv_bfloat16
        else return static_cast<double>(sum);
    }
};

// What a CUDA backend supplies (DeviceBackendSpec::make): its DeviceSum for n > 0 elements of the
// type; throws ResourceExhausted when the sum's storage does not fit. Each run of a backend that
// writes its input (DeviceBackendSpec::writes_input) gets a fresh copy, restored after its timed
// region; one that synchronizes hands its sum to the host inside the call (thrust::reduce).
using MakeSum = std::function<std::unique_ptr<AnyDeviceSum>(std::size_t n, ElementType type)>;

// The CUDA API's part of every CUDA backend: the current device, a CudaQueue on it, and the call of
// a backend's DeviceSum with the one copy of its result back. A backend registers with
// register_device_backend(kRuntime, {...}).
std::unique_ptr<DeviceQueue> make_queue();
std::unique_ptr<DeviceCall> make_call(const DeviceBackendSpec<MakeSum>& backend, DeviceQueue& queue, Elements input);
inline constexpr DeviceRuntime<MakeSum> kRuntime{kDevice, why_no_device, device_info, make_queue, make_call};

// A kernel whose partition of the input and combining tree depend on n and the device alone.
inline constexpr Traits kFixedTree(Accumulator accumulator) {
    return {.accumulator = accumulator, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count};
}
// Block sums meet through atomics in whatever order the blocks finish.
inline constexpr Traits kAtomicBlocks(Role role = Role::reduction) {
    return {.accumulator = Accumulator::f32, .order = Order::unordered, .reproducibility = Reproducibility::none, .role = role};
}

}  // namespace shootout::cuda
