// The CUDA side of the device-neutral timing layer (api/device_timing.hpp): a stream, a pair of
// events and device memory on the device current when the queue is made. CudaReduction times one
// GPU through it; MultiGpuReduction keeps one per GPU.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>

#include "api/device_timing.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device.hpp"
#include "cuda/runtime/device_buffer.cuh"
#include "cuda/runtime/nvml.hpp"

namespace shootout::cuda {

class Stream {
public:
    // A priority as cudaStreamCreateWithPriority takes it (lower numbers first).
    struct Priority {
        int value;
        // The first the current device schedules: its blocks go before pending blocks of other streams.
        static Priority highest() {
            int least = 0, greatest = 0;
            SHOOTOUT_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
            return {greatest};
        }
    };

    Stream() { SHOOTOUT_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
    explicit Stream(Priority priority) {
        SHOOTOUT_CUDA_CHECK(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, priority.value));
    }
    // Another owner's stream (nvbench's), used and left to it.
    explicit Stream(cudaStream_t borrowed) : stream_(borrowed), owned_(false) {}
    ~Stream() {
        if (owned_) cudaStreamDestroy(stream_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    operator cudaStream_t() const { return stream_; }

private:
    cudaStream_t stream_ = nullptr;
    bool owned_ = true;
};

class Event {
public:
    // cudaEventDisableTiming for one that only orders streams: recording and waiting on it are cheaper.
    explicit Event(unsigned flags = cudaEventDefault) { SHOOTOUT_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }
    ~Event() { cudaEventDestroy(event_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    operator cudaEvent_t() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

struct CudaMemory final : DeviceQueue::Memory {
    explicit CudaMemory(std::size_t bytes) : buffer(bytes) {}
    DeviceBuffer<std::byte> buffer;
};

// The device address `offset` bytes into memory a CudaQueue allocated.
inline void* device_address(DeviceQueue::Memory& memory, std::size_t offset) {
    return static_cast<CudaMemory&>(memory).buffer.get() + offset;
}
inline const void* device_address(const DeviceQueue::Memory& memory, std::size_t offset) {
    return static_cast<const CudaMemory&>(memory).buffer.get() + offset;
}

// Work is enqueued on a non-blocking stream of its own, which does not wait for the legacy default
// stream, or on a stream it is given (a front end that times the calls itself: accumulate_nvbench).
class CudaQueue final : public DeviceQueue {
public:
    CudaQueue() { SHOOTOUT_CUDA_CHECK(cudaGetDevice(&device_)); }
    explicit CudaQueue(cudaStream_t borrowed) : stream_(borrowed) { SHOOTOUT_CUDA_CHECK(cudaGetDevice(&device_)); }

    cudaStream_t stream() const { return stream_; }

    std::size_t cache_bytes() const override { return device_properties().l2_bytes; }
    std::unique_ptr<Memory> allocate(std::size_t bytes) override { return std::make_unique<CudaMemory>(bytes); }
    // Pinned: the copy engines read it directly, at full link speed and asynchronously.
    std::shared_ptr<void> allocate_staging(std::size_t bytes) override {
        void* p = nullptr;
        SHOOTOUT_CUDA_CHECK(cudaMallocHost(&p, bytes));
        return {p, [](void* q) { cudaFreeHost(q); }};
    }
    void copy_in(Memory& to, std::size_t offset, const void* from, std::size_t bytes) override {
        SHOOTOUT_CUDA_CHECK(cudaMemcpyAsync(device_address(to, offset), from, bytes, cudaMemcpyHostToDevice, stream_));
    }
    void copy(Memory& to, std::size_t to_offset, const Memory& from, std::size_t from_offset, std::size_t bytes) override {
        SHOOTOUT_CUDA_CHECK(cudaMemcpyAsync(device_address(to, to_offset), device_address(from, from_offset), bytes,
                                            cudaMemcpyDeviceToDevice, stream_));
    }
    void start_timer() override { SHOOTOUT_CUDA_CHECK(cudaEventRecord(start_, stream_)); }
    double stop_timer() override {
        SHOOTOUT_CUDA_CHECK(cudaEventRecord(stop_, stream_));
        SHOOTOUT_CUDA_CHECK(cudaEventSynchronize(stop_));
        return elapsed_seconds();
    }
    void finish() override { SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(stream_)); }
    // NVML's counter of this queue's GPU, found by its PCI bus id (NVML numbers GPUs its own way).
    Energy energy_counter() override { return total_energy(pci_bus_id()); }
    DeviceClocks clocks() override { return cuda::clocks(pci_bus_id()); }

    // For several queues timed together (MultiGpuReduction): the stop event alone, and its time.
    void record_stop() { SHOOTOUT_CUDA_CHECK(cudaEventRecord(stop_, stream_)); }
    double elapsed_seconds() {
        SHOOTOUT_CUDA_CHECK(cudaEventSynchronize(stop_));
        float ms = 0;
        SHOOTOUT_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
        return static_cast<double>(ms) * 1e-3;
    }

private:
    const std::string& pci_bus_id() {
        if (pci_bus_id_.empty()) {
            char id[32] = {};
            SHOOTOUT_CUDA_CHECK(cudaDeviceGetPCIBusId(id, sizeof id, device_));
            pci_bus_id_ = id;
        }
        return pci_bus_id_;
    }

    int device_ = 0;
    std::string pci_bus_id_;
    Stream stream_;
    Event start_, stop_;
};

}  // namespace shootout::cuda
