// A one-launch grid reduction: each block sums its grid-stride share in a shared-memory tree, then adds
// it to the result with one atomicAdd. One launch, but the order in which block sums arrive (and so
// the rounding) changes from run to run.
#include <memory>

#include "cuda/runtime/cuda_reduction.cuh"
#include "cuda/runtime/launch_config.cuh"

namespace shootout::cuda {
namespace {

__global__ void tree_then_atomic(const float* in, std::size_t n, float* out) {
    extern __shared__ float partial[];
    const unsigned t = threadIdx.x;
    float sum = 0.0f;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + t; i < n; i += std::size_t{blockDim.x} * gridDim.x) sum += in[i];
    partial[t] = sum;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, partial[0]);
}

class AtomicGridSum final : public DeviceSum<float> {
public:
    explicit AtomicGridSum(std::size_t n) : n_(n) {
        block_ = power_of_two_block(tree_then_atomic, sizeof(float));
        grid_ = covering_blocks(n, block_, resident_blocks(tree_then_atomic, block_, block_ * sizeof(float)));
    }

    void enqueue(float* in, float* out, cudaStream_t stream) override {
        SHOOTOUT_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
        tree_then_atomic<<<grid_, block_, block_ * sizeof(float), stream>>>(in, n_, out);
        SHOOTOUT_CUDA_CHECK_LAUNCH(tree_then_atomic);
    }

private:
    std::size_t n_;
    unsigned block_ = 0, grid_ = 0;
};

[[maybe_unused]] const bool registered = register_device_backend(kRuntime, {
    .name = "cuda/atomic/grid",
    .description = "grid-stride loop, shared-memory tree per block, one atomicAdd per block: non-deterministic order of the block sums",
    .traits = kAtomicBlocks(),
    .make = [](std::size_t n, ElementType) { return std::make_unique<AtomicGridSum>(n); },
});

}  // namespace
}  // namespace shootout::cuda
