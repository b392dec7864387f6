// thrust::reduce on device memory, as most CUDA code calls it. Each call allocates its temporary
// storage and copies the sum to the host before returning: that is Thrust's real cost, and it is
// inside the timed region. The sum is carried in the initial value's type: double for f64 input,
// float otherwise.
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

#include <cuda/std/functional>
#include <memory>

#include "cuda/primitives/element_vector.cuh"
#include "cuda/runtime/cuda_reduction.cuh"
#include "cuda/runtime/element_dispatch.cuh"

namespace shootout::cuda {
namespace {

template <class In, class Acc>
class ThrustSum final : public DeviceSum<Acc, In> {
public:
    explicit ThrustSum(std::size_t n) : n_(n) {}

    void enqueue(In* in, Acc*, cudaStream_t stream) override {
        // Thrust reports CUDA failures as thrust::system_error, a std::runtime_error.
        sum_ = thrust::reduce(thrust::cuda::par.on(stream), in, in + n_, Acc(0), ::cuda::std::plus<Acc>());
    }
    std::optional<double> host_result() const override { return sum_; }

private:
    std::size_t n_;
    Acc sum_ = 0;
};

[[maybe_unused]] const bool registered = register_device_backend(kRuntime, {
    .name = "cuda/thrust",
    .description = "thrust::reduce on device memory: allocates its temporary storage and returns the sum to the host in every call",
    .traits = kFixedTree(Accumulator::f32),
    .traits_by_type = {{ElementType::f64, kFixedTree(Accumulator::f64)}},
    .make = [](std::size_t n, ElementType type) {
        return with_device_type(type, [n]<class In>(std::type_identity<In>) -> std::unique_ptr<AnyDeviceSum> {
            return std::make_unique<ThrustSum<In, DefaultAccumulation<In>>>(n);
        });
    },
    .element_types = {std::begin(kElementTypes), std::end(kElementTypes)},
    .synchronizes = true,
});

}  // namespace
}  // namespace shootout::cuda
