// cuda/single-pass: one launch per call, the last block to finish combines the block states
// (gpu/agents/single_pass.cuh). The accumulator is a policy, so the float, double and Kahan backends are
// one kernel, as for cuda/shuffle.
#include <memory>

#include "gpu/runtime/cuda_reduction.cuh"
#include "gpu/agents/single_pass.cuh"

namespace shootout::cuda {
namespace {

template <class Acc>
class SinglePassSum final : public DeviceSum<typename Acc::Result> {
public:
    explicit SinglePassSum(std::size_t n) : pass_(n) {}

    void enqueue(float* in, typename Acc::Result* out, cudaStream_t stream) override { pass_.enqueue(in, out, stream); }

private:
    SinglePass<Acc> pass_;
};

template <class Acc>
CudaBackendSpec<typename Acc::Result> single_pass(std::string name, std::string description) {
    return {.name = std::move(name),
            .description = std::move(description),
            .traits = kFixedTree(Acc::kAccumulator),
            .make = [](std::size_t n, ElementType) { return std::make_unique<SinglePassSum<Acc>>(n); }};
}

[[maybe_unused]] const bool registered_f32 = register_cuda_backend(single_pass<PlainSum<float>>(
    "cuda/single-pass",
    "one launch: grid-stride 16-byte loads, block sums to slots, the block drawing the last atomic ticket combines them in block order"));
[[maybe_unused]] const bool registered_f64 = register_cuda_backend(single_pass<PlainSum<double>>(
    "cuda/single-pass-f64", "cuda/single-pass accumulating in double: each float widened before adding, double block slots"));
[[maybe_unused]] const bool registered_kahan = register_cuda_backend(single_pass<KahanSum>(
    "cuda/single-pass-kahan", "cuda/single-pass with Kahan-compensated float per thread, states combined by TwoSum with their errors"));

}  // namespace
}  // namespace shootout::cuda
