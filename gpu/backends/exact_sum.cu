// cuda/exact: the exact sum of the floats or doubles, rounded once to double on the device: the same
// bits as the CPU's exact backends, for any grid and block size. One launch of the exact agent
// (gpu/agents/exact_agent.cuh), whose last block rounds the grid's total.
#include <memory>

#include "exact/exact_accumulator.hpp"
#include "gpu/agents/exact_agent.cuh"
#include "gpu/runtime/cuda_reduction.cuh"

namespace shootout::cuda {
namespace {

// The last block's Finish: the total rounded once, to *out.
struct RoundTo {
    double* out;
    template <class T>
    __device__ void operator()(const exact::Sum<T>& total) const {
        *out = total.round();
    }
};

template <class T>
class ExactSum final : public DeviceSum<double, T> {
public:
    explicit ExactSum(std::size_t n) : launch_(n) {}
    void enqueue(T* in, double* out, cudaStream_t stream) override { launch_.enqueue(in, RoundTo{out}, stream); }

private:
    exact_agent::ExactLaunch<T, RoundTo> launch_;
};

[[maybe_unused]] const bool registered = register_cuda_backend({
    .name = "cuda/exact",
    .description = "exact sum rounded once: fixed-point window in registers, other floats (every double) into per-thread "
                   "superaccumulator digits in shared memory, integer atomics across blocks, last block rounds",
    .traits = kFixedTree(Accumulator::exact),
    .make = [](std::size_t n, ElementType type) -> std::unique_ptr<AnyDeviceSum> {
        if (type == ElementType::f64) return std::make_unique<ExactSum<double>>(n);
        return std::make_unique<ExactSum<float>>(n);
    },
    .element_types = {ElementType::f32, ElementType::f64},
});

}  // namespace
}  // namespace shootout::cuda
