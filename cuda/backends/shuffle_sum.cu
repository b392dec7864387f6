// A hand-written two-launch reduction: a grid-stride loop of wide loads, warp shuffles,
// one shared slot per warp, then a second launch over the block sums. The accumulator is a policy,
// so the float, double and Kahan backends are one kernel.
#include <memory>

#include "cuda/primitives/block_reduce.cuh"
#include "cuda/runtime/cuda_reduction.cuh"
#include "cuda/runtime/device_buffer.cuh"
#include "cuda/agents/grid_stride_agent.cuh"
#include "cuda/runtime/launch_config.cuh"

namespace shootout::cuda {
namespace {

template <class Acc>
__global__ void block_sums(const float* __restrict__ in, std::size_t n, typename Acc::State* sums) {
    const typename Acc::State s = block_reduce<Acc>(grid_stride_partial<Acc>(in, n));
    if (threadIdx.x == 0) sums[blockIdx.x] = s;
}

// One block combines the block sums.
template <class Acc>
__global__ void finish(const typename Acc::State* sums, unsigned count, typename Acc::Result* out) {
    typename Acc::State s = Acc::zero();
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) s = Acc::combine(s, sums[i]);
    s = block_reduce<Acc>(s);
    if (threadIdx.x == 0) *out = Acc::result(s);
}

template <class Acc>
class ShuffleSum final : public DeviceSum<typename Acc::Result> {
public:
    explicit ShuffleSum(std::size_t n)
        : n_(n), launch_(resident_launch(block_sums<Acc>)), finish_block_(resident_launch(finish<Acc>).block) {
        launch_.grid = covering_blocks(n, elements_per_block_pass(launch_.block), launch_.grid);
        sums_ = DeviceBuffer<typename Acc::State>(launch_.grid);
    }

    void enqueue(float* in, typename Acc::Result* out, cudaStream_t stream) override {
        block_sums<Acc><<<launch_.grid, launch_.block, 0, stream>>>(in, n_, sums_.get());
        SHOOTOUT_CUDA_CHECK_LAUNCH(block_sums);
        finish<Acc><<<1, finish_block_, 0, stream>>>(sums_.get(), launch_.grid, out);
        SHOOTOUT_CUDA_CHECK_LAUNCH(finish);
    }

private:
    std::size_t n_;
    LaunchConfig launch_;
    unsigned finish_block_;
    DeviceBuffer<typename Acc::State> sums_;
};

template <class Acc>
DeviceBackendSpec<MakeSum> shuffle(std::string name, std::string description) {
    return {.name = std::move(name),
            .description = std::move(description),
            .traits = kFixedTree(Acc::kAccumulator),
            .make = [](std::size_t n, ElementType) { return std::make_unique<ShuffleSum<Acc>>(n); }};
}

[[maybe_unused]] const bool registered_f32 = register_device_backend(kRuntime, shuffle<PlainSum<float>>(
    "cuda/shuffle", "grid-stride loop of 16-byte loads into a float, __shfl_down_sync warp sums, a second launch over block sums"));
[[maybe_unused]] const bool registered_f64 = register_device_backend(kRuntime, shuffle<PlainSum<double>>(
    "cuda/shuffle-f64", "cuda/shuffle accumulating in double: each float widened before adding, double shuffles and block sums"));
[[maybe_unused]] const bool registered_kahan = register_device_backend(kRuntime, shuffle<KahanSum<float>>(
    "cuda/shuffle-kahan", "cuda/shuffle with Kahan-compensated float per thread, partial sums combined by TwoSum with their errors"));

}  // namespace
}  // namespace shootout::cuda
