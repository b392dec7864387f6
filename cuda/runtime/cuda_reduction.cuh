// What every CUDA backend shares: the CUDA queue of the device-neutral timing layer
// (api/device_timing.hpp: rotating copies, isolated and batched timing, --include-transfer), and
// the one copy of the result back. A backend supplies only a DeviceSum: "enqueue the reduction of
// in[0..n) into *out on this stream", with its temporary storage.
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

struct CudaBackendSpec {
    std::string name;
    std::string description;
    Traits traits;
    // The traits of inputs of a type where they differ from `traits` (Backend::traits_by_type).
    std::vector<std::pair<ElementType, Traits>> traits_by_type = {};
    // The kernels reduce in place, overwriting their input: each run gets a fresh copy, restored
    // after its timed region.
    bool writes_input = false;
    // Makes the DeviceSum for n > 0 elements of the type; throws ResourceExhausted when its storage
    // does not fit.
    std::function<std::unique_ptr<AnyDeviceSum>(std::size_t n, ElementType type)> make;
    std::vector<ElementType> element_types = {ElementType::f32};
    // Why the CUDA device there is cannot run it, or nullopt (asked only where there is one); empty:
    // any can.
    std::function<std::optional<std::string>()> unavailable_reason = {};
    // A call waits for the device before it returns (thrust::reduce hands its sum to the host).
    bool synchronizes = false;
};

// A kernel whose partition of the input and combining tree depend on n and the device alone.
inline constexpr Traits kFixedTree(Accumulator accumulator) {
    return {.accumulator = accumulator, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count};
}
// Block sums meet through atomics in whatever order the blocks finish.
inline constexpr Traits kAtomicBlocks(Role role = Role::reduction) {
    return {.accumulator = Accumulator::f32, .order = Order::unordered, .reproducibility = Reproducibility::none, .role = role};
}

// Registers the backend with the harness: device timestamps, rotated inputs, host-to-device transfer
// variant, availability and device information from the current CUDA device. Returns true.
bool register_cuda_backend(CudaBackendSpec spec);

}  // namespace shootout::cuda
