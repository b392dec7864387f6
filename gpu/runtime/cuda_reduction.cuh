// What every CUDA backend shares: the CUDA queue of the device-neutral timing layer
// (bench/device_timing.hpp: rotating copies, isolated and batched timing, --include-transfer), and
// the one copy of the result back. A backend supplies only a DeviceSum: "enqueue the reduction of
// in[0..n) into *out on this stream", with its temporary storage.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/backend.hpp"

namespace shootout::cuda {

// One backend's device work for one input size, set up (temporary storage included) by its
// constructor, over input of any element type. Result is the type the kernels write: float, or
// double for double accumulators.
template <class Result>
class AnyDeviceSum {
public:
    virtual ~AnyDeviceSum() = default;
    // Enqueues the reduction of the n elements at `in` (n > 0, 256-byte aligned) into *out.
    virtual void enqueue_any(void* in, Result* out, cudaStream_t stream) = 0;
    // For a library that hands its sum to the host inside the call (thrust::reduce): that sum, which
    // then makes the copy of *out unnecessary.
    virtual std::optional<double> host_result() const { return std::nullopt; }
};

// The same over elements of type Input: what a backend implements.
template <class Result, class Input = float>
class DeviceSum : public AnyDeviceSum<Result> {
public:
    // Enqueues the reduction of in[0..n), n > 0 and in 256-byte aligned, into *out on `stream`.
    // Allocates nothing and does not synchronize, except where a library forces it (Thrust).
    virtual void enqueue(Input* in, Result* out, cudaStream_t stream) = 0;

private:
    void enqueue_any(void* in, Result* out, cudaStream_t stream) final { enqueue(static_cast<Input*>(in), out, stream); }
};

template <class Result>
struct CudaBackendSpec {
    std::string name;
    std::string description;
    Traits traits;
    // The kernels reduce in place, overwriting their input: each run gets a fresh copy, restored
    // after its timed region.
    bool writes_input = false;
    // Makes the DeviceSum for n > 0 elements of the type; throws ResourceExhausted when its storage
    // does not fit.
    std::function<std::unique_ptr<AnyDeviceSum<Result>>(std::size_t n, ElementType type)> make;
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
template <class Result>
bool register_cuda_backend(CudaBackendSpec<Result> spec);

}  // namespace shootout::cuda
