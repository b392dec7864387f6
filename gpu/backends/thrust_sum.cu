// thrust::reduce on device memory, as most CUDA code calls it. Each call allocates its temporary
// storage and copies the sum to the host before returning: that is Thrust's real cost, and it is
// inside the timed region.
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <cuda/std/functional>
#include <memory>

#include "gpu/runtime/cuda_reduction.cuh"

namespace shootout::cuda {
namespace {

class ThrustSum final : public DeviceSum<float> {
public:
    explicit ThrustSum(std::size_t n) : n_(n) {}

    void enqueue(float* in, float*, cudaStream_t stream) override {
        // Thrust reports CUDA failures as thrust::system_error, a std::runtime_error.
        sum_ = thrust::reduce(thrust::cuda::par.on(stream), in, in + n_, 0.0f, ::cuda::std::plus<float>());
    }
    std::optional<double> host_result() const override { return sum_; }

private:
    std::size_t n_;
    float sum_ = 0;
};

[[maybe_unused]] const bool registered = register_cuda_backend<float>({
    .name = "cuda/thrust",
    .description = "thrust::reduce on device memory: allocates its temporary storage and returns the sum to the host in every call",
    .traits = kFixedTree(Accumulator::f32),
    .make = [](std::size_t n, ElementType) { return std::make_unique<ThrustSum>(n); },
    .synchronizes = true,
});

}  // namespace
}  // namespace shootout::cuda
