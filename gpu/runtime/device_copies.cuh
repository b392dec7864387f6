// What every timed device backend holds on each GPU it uses: a stream, a pair of events, and the
// device copies of its input, rotating past the L2 (CudaReduction on one GPU, MultiGpuReduction on
// each GPU's shard). Each is made on, and belongs to, the device current when it is constructed.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <span>

#include "gpu/runtime/cuda_check.hpp"
#include "gpu/runtime/device.hpp"
#include "gpu/runtime/device_buffer.cuh"
#include "bench/measurement_rules.hpp"

namespace shootout::cuda {

class Stream {
public:
    Stream() { SHOOTOUT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    ~Stream() { cudaStreamDestroy(stream_); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    operator cudaStream_t() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
};

class Event {
public:
    Event() { SHOOTOUT_CUDA_CHECK(cudaEventCreate(&event_)); }
    ~Event() { cudaEventDestroy(event_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    operator cudaEvent_t() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

// Copies of the input in device memory, each starting on a 256-byte boundary. Below
// rules::kL2RotationFactor x the L2 size there are enough of them to span that much, and successive
// runs take them in turn: by the time a copy comes round again, the other copies have pushed it out
// of L2, so no run reads a warm cache. At least min_count copies are made (a batch of in-place calls
// needs one each). The copies are made on the backend's stream: a non-blocking stream does not wait
// for copies on the legacy default stream. T is the element type.
template <class T>
class InputCopies {
public:
    InputCopies(std::span<const T> input, bool rotate, std::size_t min_count, cudaStream_t stream)
        : n_(input.size()), stride_((n_ + 63) / 64 * 64) {
        const std::size_t copy_bytes = std::max<std::size_t>(stride_, 64) * sizeof(T);
        const std::size_t span_bytes = rules::kL2RotationFactor * device_properties().l2_bytes;
        count_ = rotate && copy_bytes < span_bytes ? (span_bytes + copy_bytes - 1) / copy_bytes : 1;
        count_ = std::max(count_, min_count);
        data_ = DeviceBuffer<T>(stride_ * count_);
        if (n_ == 0) return;
        SHOOTOUT_CUDA_CHECK(cudaMemcpyAsync(data_.get(), input.data(), input.size_bytes(), cudaMemcpyHostToDevice, stream));
        // Doubling: each copy call duplicates every copy made so far.
        for (std::size_t made = 1; made < count_;) {
            const std::size_t more = std::min(made, count_ - made);
            SHOOTOUT_CUDA_CHECK(cudaMemcpyAsync(data_.get() + made * stride_, data_.get(), more * stride_ * sizeof(T),
                                                cudaMemcpyDeviceToDevice, stream));
            made += more;
        }
        SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(stream));
    }

    const T* first() const { return data_.get(); }

    T* next() {
        T* copy = data_.get() + next_ * stride_;
        next_ = (next_ + 1) % count_;
        return copy;
    }
    // The copy next() returned `back` calls ago (1: the last one).
    T* previous(std::size_t back) const { return data_.get() + (next_ + count_ - back % count_) % count_ * stride_; }

private:
    std::size_t n_, stride_, count_ = 1, next_ = 0;
    DeviceBuffer<T> data_;
};

}  // namespace shootout::cuda
