// cuda/exact: the exact sum of the float32, float64, float16 or bfloat16 values, rounded once to
// double on the device: the same bits as the CPU's exact backends, for any grid and block size. One
// launch of the exact kernel (cuda/dispatch/exact_dispatch.cuh), whose last block rounds the grid's
// total.
#include <memory>

#include "exact/exact_accumulator.hpp"
#include "cuda/dispatch/exact_dispatch.cuh"
#include "cuda/runtime/cuda_reduction.cuh"
#include "cuda/runtime/element_dispatch.cuh"

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

[[maybe_unused]] const bool registered = register_device_backend(kRuntime, {
    .name = "cuda/exact",
    .description = "exact sum rounded once, one launch: fixed-point window in registers (16-bit values widened to floats), "
                   "other floats (every double) into per-thread superaccumulator digits in shared memory, warp and block sums "
                   "as integers, integer atomics into 32 striped grid totals, last block rounds",
    .traits = kFixedTree(Accumulator::exact),
    .make = [](std::size_t n, ElementType type) {
        return with_device_type(type, [n]<class In>(std::type_identity<In>) -> std::unique_ptr<AnyDeviceSum> {
            return std::make_unique<ExactSum<In>>(n);
        });
    },
    .element_types = {std::begin(kElementTypes), std::end(kElementTypes)},
});

}  // namespace
}  // namespace shootout::cuda
