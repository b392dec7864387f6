// Checked CUDA runtime calls. A failure names the call; CudaReduction adds the backend's name.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "api/backend.hpp"

namespace shootout::cuda {

// Throws ResourceExhausted when device or pinned memory ran out (the harness skips that size) and
// std::runtime_error for any other error. Clears the error, so that a failed allocation does not
// resurface at the next launch check.
inline void check(cudaError_t status, const char* call) {
    if (status == cudaSuccess) return;
    cudaGetLastError();
    const std::string message = std::string(call) + " failed: " + cudaGetErrorString(status);
    if (status == cudaErrorMemoryAllocation) throw ResourceExhausted(message);
    throw std::runtime_error(message);
}

}  // namespace shootout::cuda

// The call's own text is its name in the message: "cudaMalloc(&data, bytes) failed: out of memory".
#define SHOOTOUT_CUDA_CHECK(call) ::shootout::cuda::check((call), #call)

// After a <<<...>>> launch: configuration errors show up here, execution errors at the next sync.
#define SHOOTOUT_CUDA_CHECK_LAUNCH(kernel) ::shootout::cuda::check(cudaGetLastError(), "launch of " #kernel)
