// Owning buffers of device memory and of pinned (page-locked) host memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "cuda/runtime/cuda_check.hpp"

namespace shootout::cuda {

struct DeviceMemory {
    static void* allocate(std::size_t bytes) {
        void* p = nullptr;
        SHOOTOUT_CUDA_CHECK(cudaMalloc(&p, bytes));
        return p;
    }
    static void release(void* p) { cudaFree(p); }
};

// Host memory the copy engines read directly: host-to-device copies run at full link speed and
// asynchronously.
struct PinnedMemory {
    static void* allocate(std::size_t bytes) {
        void* p = nullptr;
        SHOOTOUT_CUDA_CHECK(cudaMallocHost(&p, bytes));
        return p;
    }
    static void release(void* p) { cudaFreeHost(p); }
};

template <class T, class Memory>
class Buffer {
public:
    Buffer() = default;
    explicit Buffer(std::size_t count)
        : data_(count ? static_cast<T*>(Memory::allocate(count * sizeof(T))) : nullptr), size_(count) {}
    Buffer(Buffer&& other) noexcept
        : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    Buffer& operator=(Buffer&& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        return *this;
    }
    ~Buffer() {
        if (data_) Memory::release(data_);
    }

    T* get() const { return data_; }
    std::size_t size() const { return size_; }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

template <class T>
using DeviceBuffer = Buffer<T, DeviceMemory>;
template <class T>
using PinnedBuffer = Buffer<T, PinnedMemory>;

}  // namespace shootout::cuda
