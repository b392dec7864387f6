// What every CUDA backend shares: device copies of the input, timing with CUDA events, the one copy of
// the result back, and the --include-transfer variant. A backend supplies only a DeviceSum: "enqueue
// the reduction of in[0..n) into *out on this stream", with its temporary storage.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "bench/backend.hpp"

namespace shootout::cuda {

// One backend's device work for one input size, set up (temporary storage included) by its
// constructor. Result is the type the kernels write: float, or double for double accumulators; T is
// the element type of the input.
template <class Result, class T = float>
class DeviceSum {
public:
    virtual ~DeviceSum() = default;

    // Enqueues the reduction of in[0..n), n > 0 and in 16-byte aligned, into *out on `stream`.
    // Allocates nothing and does not synchronize, except where a library forces it (Thrust).
    virtual void enqueue(T* in, Result* out, cudaStream_t stream) = 0;

    // For a library that hands its sum to the host inside the call (thrust::reduce): that sum, which
    // then makes the copy of *out unnecessary.
    virtual std::optional<double> host_result() const { return std::nullopt; }
};

template <class Result>
struct CudaBackendSpec {
    std::string name;
    std::string description;
    Traits traits;
    // The kernels reduce in place, overwriting their input: each run gets a fresh copy, restored
    // after its timed region.
    bool writes_input = false;
    // Makes the DeviceSum for n > 0 elements; throws ResourceExhausted when its storage does not fit.
    std::function<std::unique_ptr<DeviceSum<Result>>(std::size_t n)> make;
    // The same for n > 0 float64 elements, for a backend that takes them too; empty for one that
    // takes float32 only.
    std::function<std::unique_ptr<DeviceSum<Result, double>>(std::size_t n)> make_f64 = {};
};

// A kernel whose partition of the input and combining tree depend on n and the device alone.
inline constexpr Traits kFixedTree(Accumulator accumulator) {
    return {.accumulator = accumulator, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count};
}
// Block sums meet through atomics in whatever order the blocks finish.
inline constexpr Traits kAtomicBlocks(Role role = Role::reduction) {
    return {.accumulator = Accumulator::f32, .order = Order::unordered, .reproducibility = Reproducibility::none, .role = role};
}

// Registers the backend with the harness: device events timing, host-to-device transfer variant,
// availability and device information from the current CUDA device. Returns true.
template <class Result>
bool register_cuda_backend(CudaBackendSpec<Result> spec);

}  // namespace shootout::cuda
