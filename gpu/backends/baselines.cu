// Ceilings the summing backends are judged against: how fast this device reads the input, and how
// fast it copies it.
#include <limits>
#include <memory>

#include "gpu/primitives/block_reduce.cuh"
#include "gpu/runtime/cuda_reduction.cuh"
#include "gpu/runtime/device_buffer.cuh"
#include "gpu/agents/grid_stride_agent.cuh"
#include "gpu/runtime/launch_config.cuh"

namespace shootout::cuda {
namespace {

// The least a reduction must do: every byte loaded once with 16-byte loads, several in flight, one
// float add per element, one atomicAdd per block. No second launch; the order is not fixed.
__global__ void read_all(const float* __restrict__ in, std::size_t n, float* out) {
    const float s = block_reduce<PlainSum<float>>(grid_stride_partial<PlainSum<float>>(in, n));
    if (threadIdx.x == 0) atomicAdd(out, s);
}

class ReadAll final : public DeviceSum<float> {
public:
    explicit ReadAll(std::size_t n) : n_(n), launch_(resident_launch(read_all)) {
        launch_.grid = covering_blocks(n, elements_per_block_pass(launch_.block), launch_.grid);
    }

    void enqueue(float* in, float* out, cudaStream_t stream) override {
        SHOOTOUT_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
        read_all<<<launch_.grid, launch_.block, 0, stream>>>(in, n_, out);
        SHOOTOUT_CUDA_CHECK_LAUNCH(read_all);
    }

private:
    std::size_t n_;
    LaunchConfig launch_;
};

class DeviceCopy final : public DeviceSum<float> {
public:
    explicit DeviceCopy(std::size_t n) : copy_(n) {}

    void enqueue(float* in, float*, cudaStream_t stream) override {
        SHOOTOUT_CUDA_CHECK(cudaMemcpyAsync(copy_.get(), in, copy_.size() * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    }
    // A copy sums nothing: NaN, so that no one reads its error column as a result.
    std::optional<double> host_result() const override { return std::numeric_limits<double>::quiet_NaN(); }

private:
    DeviceBuffer<float> copy_;
};

// The least any reduction pays per call: one launch of one warp that does nothing.
__global__ void no_work() {}

class EmptyLaunch final : public DeviceSum<float> {
public:
    void enqueue(float*, float*, cudaStream_t stream) override {
        no_work<<<1, 32, 0, stream>>>();
        SHOOTOUT_CUDA_CHECK_LAUNCH(no_work);
    }
    // Reads nothing, sums nothing: NaN, like the copy.
    std::optional<double> host_result() const override { return std::numeric_limits<double>::quiet_NaN(); }
};

[[maybe_unused]] const bool registered_read = register_cuda_backend({
    .name = "cuda/baseline/read",
    .description = "achievable read bandwidth: one launch of 16-byte loads, float adds, one atomicAdd per block (order not fixed)",
    .traits = kAtomicBlocks(Role::ceiling),
    .make = [](std::size_t n, ElementType) { return std::make_unique<ReadAll>(n); },
});
[[maybe_unused]] const bool registered_copy = register_cuda_backend({
    .name = "cuda/baseline/copy",
    .description = "cudaMemcpyAsync device to device: GB/s counts the input once, the copy moves twice that; result NaN (no sum)",
    .traits = {.accumulator = Accumulator::none, .order = Order::unordered, .role = Role::reference_copy},
    .make = [](std::size_t n, ElementType) { return std::make_unique<DeviceCopy>(n); },
});
[[maybe_unused]] const bool registered_launch = register_cuda_backend({
    .name = "cuda/baseline/launch",
    .description = "the launch floor: one empty kernel of one warp per call, reading nothing; result NaN (no sum)",
    .traits = {.accumulator = Accumulator::none, .order = Order::unordered, .role = Role::launch_floor},
    .make = [](std::size_t, ElementType) { return std::make_unique<EmptyLaunch>(); },
});

}  // namespace
}  // namespace shootout::cuda
