// cuda/exact: the exact sum of the floats or doubles, rounded once to double on the device: the same
// bits as the CPU's exact backends, for any grid and block size. One launch of the exact agent
// (gpu/agents/exact_agent.cuh), whose last block rounds the grid's total.
#include <cstdint>
#include <memory>

#include "exact/exact_accumulator.hpp"
#include "gpu/agents/exact_agent.cuh"
#include "gpu/runtime/cuda_reduction.cuh"
#include "gpu/runtime/device_buffer.cuh"
#include "gpu/runtime/launch_config.cuh"

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
    explicit ExactSum(std::size_t n) : n_(n), grid_total_(1) {
        constexpr auto kernel = exact_agent::exact_sum<T, RoundTo>;
        launch_.block = power_of_two_block(kernel, exact_agent::shared_bytes_per_thread<T>());
        launch_.grid = covering_blocks(n, elements_per_block_pass(launch_.block),
                                       resident_blocks(kernel, launch_.block, shared_bytes()));
        // Zeros, complete before any launch on the backend's (non-blocking) stream.
        SHOOTOUT_CUDA_CHECK(cudaMemset(grid_total_.get(), 0, sizeof(exact_agent::GridTotal<T>)));
        SHOOTOUT_CUDA_CHECK(cudaDeviceSynchronize());
    }

    void enqueue(T* in, double* out, cudaStream_t stream) override {
        exact_agent::exact_sum<<<launch_.grid, launch_.block, shared_bytes(), stream>>>(in, n_, grid_total_.get(), RoundTo{out});
        SHOOTOUT_CUDA_CHECK_LAUNCH(exact_sum);
    }

private:
    std::size_t shared_bytes() const { return launch_.block * exact_agent::shared_bytes_per_thread<T>(); }

    std::size_t n_;
    LaunchConfig launch_;
    DeviceBuffer<exact_agent::GridTotal<T>> grid_total_;
};

[[maybe_unused]] const bool registered = register_cuda_backend<double>({
    .name = "cuda/exact",
    .description = "exact sum rounded once: fixed-point window in registers, other floats (every double) into per-thread "
                   "superaccumulator digits in shared memory, integer atomics across blocks, last block rounds",
    .traits = kFixedTree(Accumulator::exact),
    .make = [](std::size_t n) -> std::unique_ptr<DeviceSum<double>> { return std::make_unique<ExactSum<float>>(n); },
    .make_f64 = [](std::size_t n) -> std::unique_ptr<DeviceSum<double, double>> { return std::make_unique<ExactSum<double>>(n); },
});

}  // namespace
}  // namespace shootout::cuda
