// Programmatic dependent launch (PTX griddepcontrol, sm_90): a kernel launched with
// cudaLaunchAttributeProgrammaticStreamSerialization may start while the kernel before it on the
// stream is still running, and waits for it only where it touches what that kernel may still use.
// The one-launch reductions (single_pass.cuh, exact_dispatch.cuh) use it so that in a stream of calls
// one call's launch and loads overlap the previous call's last block.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/runtime/cuda_check.hpp"

namespace shootout::cuda {

// launch_dependents: the next grid on the stream may be scheduled once every block of this one has
// issued it or exited (it promises nothing about this grid's memory). wait: returns once every
// prerequisite grid has completed and its memory operations are performed and visible to this grid;
// at once when there is none, as for a grid not launched with the attribute. The "memory" clobber
// keeps the compiler from moving stores, atomics or loads of shared state across the wait.
__device__ __forceinline__ void pdl_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Whether the kernel the device runs was compiled from PTX for compute_90 or later, so that it
// contains the griddepcontrol instructions: launching a kernel without its wait with the attribute
// would let it overwrite what the previous call is still reading. (A device before sm_90 cannot run
// it.)
template <class Kernel>
bool kernel_has_griddepcontrol(Kernel kernel) {
    cudaFuncAttributes attributes{};
    SHOOTOUT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    return attributes.ptxVersion >= 90;
}

// Launches kernel<<<grid, block, shared_bytes, stream>>>(args...), as a programmatic dependent launch
// when `programmatic`.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), unsigned grid, unsigned block, std::size_t shared_bytes, cudaStream_t stream,
            bool programmatic, Args... args) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(grid);
    config.blockDim = dim3(block);
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    config.attrs = programmatic ? &attribute : nullptr;
    config.numAttrs = programmatic ? 1 : 0;
    SHOOTOUT_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
}

}  // namespace shootout::cuda
