// nccl/sum: each GPU reduces its shard of floats or doubles with the single-pass kernel
// (cuda/agents/single_pass.cuh) in double (SinglePass<PlainSum<double>, T>, cuda/single-pass-f64's
// kernel) into a device partial, and one ncclAllReduce of the double partials (ncclSum) combines
// them. Double, not float then widened: the partial is then already what the all-reduce adds, with
// no extra conversion, and at the speed of memory the double adds cost nothing (cuda/PERFORMANCE.md,
// single pass).
#include <memory>
#include <optional>

#include "cuda/runtime/multi_gpu.cuh"

#ifdef SHOOTOUT_HAVE_NCCL
#include "cuda/primitives/accumulators.cuh"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.cuh"
#include "cuda/agents/single_pass.cuh"
#endif

namespace shootout::cuda {
namespace {

#ifdef SHOOTOUT_HAVE_NCCL
template <class T>
class PartialSum final : public ShardSum<T> {
public:
    explicit PartialSum(std::size_t n) : partials_(kCallsInFlight) {
        if (n > 0) pass_.emplace(n);
    }

    void enqueue(const T* in, int slot, cudaStream_t stream) override {
        if (pass_) pass_->enqueue(in, partial(slot), stream);
        else SHOOTOUT_CUDA_CHECK(cudaMemsetAsync(partial(slot), 0, sizeof(double), stream));  // an empty shard
    }

    void all_reduce(int slot, ncclComm_t comm, cudaStream_t stream) override {
        SHOOTOUT_NCCL_CHECK(ncclAllReduce(partial(slot), partial(slot), 1, ncclFloat64, ncclSum, comm, stream));
    }

    double result(int slot) override {
        double sum = 0;
        SHOOTOUT_CUDA_CHECK(cudaMemcpy(&sum, partial(slot), sizeof sum, cudaMemcpyDeviceToHost));
        return sum;
    }

private:
    double* partial(int slot) { return partials_.get() + slot; }

    std::optional<SinglePass<PlainSum<double>, T>> pass_;
    DeviceBuffer<double> partials_;  // one per slot
};
#endif

[[maybe_unused]] const bool registered = register_multi_gpu_backend({
    .name = "nccl/sum",
    .description = "equal contiguous shards over the GPUs, single-pass kernel in double per GPU, one ncclAllReduce of the partials",
    // Per GPU a fixed tree; the all-reduce's order is fixed for a GPU count (NCCL's algorithm and
    // channels depend on the count, the topology and the size only), and the shards change with it.
    .traits = {.accumulator = Accumulator::f64, .order = Order::tree, .reproducibility = Reproducibility::per_thread_count},
#ifdef SHOOTOUT_HAVE_NCCL
    .make = [](std::size_t n) -> std::unique_ptr<ShardSum<float>> { return std::make_unique<PartialSum<float>>(n); },
    .make_f64 = [](std::size_t n) -> std::unique_ptr<ShardSum<double>> { return std::make_unique<PartialSum<double>>(n); },
#else
    .make = {},
#endif
});

}  // namespace
}  // namespace shootout::cuda
