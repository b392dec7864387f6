// Ceilings the summing backends are judged against: how fast this device reads the input, and how
// fast it copies it.
#include <limits>
#include <memory>

#include "cuda/agents/single_pass.cuh"
#include "cuda/primitives/block_reduce.cuh"
#include "cuda/runtime/cuda_reduction.cuh"
#include "cuda/runtime/device_buffer.cuh"
#include "cuda/runtime/programmatic_launch.cuh"

namespace shootout::cuda {
namespace {

// The fastest read of the input that sums it: cuda/single-pass's loads (its tuned policy: tile
// shape, loads in flight, grid, programmatic launch), each block's sum added to one float with an
// atomicAdd instead of stored to a slot, and the block drawing the last ticket moves that float to
// *out and zeroes it for the next call. No ordered combine, no memset between calls (which would end
// the programmatic overlap): a reduction that reads as single-pass does can at best tie it.
using ReadAcc = PlainSum<float>;
using ReadPolicy = SinglePassTuning<ReadAcc, float>::Policy;

// total and ticket: 0 before the launch, and 0 again after it.
__global__ void __launch_bounds__(ReadPolicy::kBlockThreads, ReadPolicy::kMinBlocksPerSm)
read_all(const float* __restrict__ in, std::size_t n, float* total, unsigned* ticket, float* out) {
    pdl_launch_dependents();  // as single_pass_sum: the next call loads while this one finishes
    const float s = block_reduce<ReadAcc>(thread_partial<ReadAcc, ReadPolicy, float>(in, n));
    pdl_wait();  // total, ticket and *out may still be the previous call's
    if (threadIdx.x != 0) return;
    atomicAdd(total, s);
    __threadfence();  // the add is visible device-wide before the ticket is taken
    if (atomicInc(ticket, gridDim.x - 1) != gridDim.x - 1) return;
    __threadfence();  // every other block's add is read after its ticket
    *out = atomicExch(total, 0.0f);
}

class ReadAll final : public DeviceSum<float> {
public:
    explicit ReadAll(std::size_t n)
        : n_(n), grid_(single_pass_grid<ReadAcc, ReadPolicy, float>(n)), pdl_(kernel_has_griddepcontrol(read_all)), total_(1), ticket_(1) {
        // On the legacy default stream, which the harness's stream does not wait for: finished here.
        SHOOTOUT_CUDA_CHECK(cudaMemset(total_.get(), 0, sizeof(float)));
        SHOOTOUT_CUDA_CHECK(cudaMemset(ticket_.get(), 0, sizeof(unsigned)));
        SHOOTOUT_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    }

    void enqueue(float* in, float* out, cudaStream_t stream) override {
        launch(read_all, grid_, ReadPolicy::kBlockThreads, 0, stream, pdl_, in, n_, total_.get(), ticket_.get(), out);
    }

private:
    std::size_t n_;
    unsigned grid_;
    bool pdl_;
    DeviceBuffer<float> total_;
    DeviceBuffer<unsigned> ticket_;
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

// The least any reduction pays per call: one warp that does nothing, launched as the one-launch
// reductions launch (programmatically where the device can), so that in a stream of calls each
// overlaps the one before as theirs do.
__global__ void no_work() { pdl_launch_dependents(); }

class EmptyLaunch final : public DeviceSum<float> {
public:
    void enqueue(float*, float*, cudaStream_t stream) override { launch(no_work, 1, 32, 0, stream, pdl_); }
    // Reads nothing, sums nothing: NaN, like the copy.
    std::optional<double> host_result() const override { return std::numeric_limits<double>::quiet_NaN(); }

private:
    bool pdl_ = kernel_has_griddepcontrol(no_work);
};

[[maybe_unused]] const bool registered_read = register_device_backend(kRuntime, {
    .name = "cuda/baseline/read",
    .description = "achievable read bandwidth: cuda/single-pass's loads and launch, float adds, one atomicAdd per block instead of the ordered "
                   "combine (order not fixed)",
    .traits = kAtomicBlocks(Role::ceiling),
    .make = [](std::size_t n, ElementType) { return std::make_unique<ReadAll>(n); },
});
[[maybe_unused]] const bool registered_copy = register_device_backend(kRuntime, {
    .name = "cuda/baseline/copy",
    .description = "cudaMemcpyAsync device to device: GB/s counts the input once, the copy moves twice that; result NaN (no sum)",
    .traits = {.accumulator = Accumulator::none, .order = Order::unordered, .role = Role::reference_copy},
    .make = [](std::size_t n, ElementType) { return std::make_unique<DeviceCopy>(n); },
});
[[maybe_unused]] const bool registered_launch = register_device_backend(kRuntime, {
    .name = "cuda/baseline/launch",
    .description = "the launch floor: one empty kernel of one warp per call, launched programmatically as the one-launch reductions are, "
                   "reading nothing; result NaN (no sum)",
    .traits = {.accumulator = Accumulator::none, .order = Order::unordered, .role = Role::launch_floor},
    .make = [](std::size_t, ElementType) { return std::make_unique<EmptyLaunch>(); },
});

}  // namespace
}  // namespace shootout::cuda
