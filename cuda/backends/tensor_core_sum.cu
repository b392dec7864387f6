// cuda/tensor-core/*: the array reshaped into matrices and multiplied by a ones vector on the tensor
// cores. cuda/single-pass's kernel (one launch, the last block combines) with the Tf32Sum accumulator
// (cuda/primitives/accumulators.cuh): each warp's 16-byte loads, 128 floats, go through one TF32 MMA
// against a column of ones (two for the split), whose row sums the threads add in float. Where a sum
// is bound by bytes rather than additions, the question is what the tensor cores cost in speed and
// in accuracy (cuda/PERFORMANCE.md, "cuda/tensor-core"). Float input only: the question is TF32's
// rounding of floats.
#include <cuda_runtime_api.h>

#include <memory>
#include <optional>
#include <string>

#include "cuda/agents/single_pass.cuh"
#include "cuda/runtime/cuda_reduction.cuh"
#include "cuda/runtime/device.hpp"

namespace shootout::cuda {
namespace {

template <int Terms>
class TensorCoreSum final : public DeviceSum<float, float> {
public:
    explicit TensorCoreSum(std::size_t n) : pass_(n) {}

    void enqueue(float* in, float* out, cudaStream_t stream) override { pass_.enqueue(in, out, stream); }

private:
    SinglePass<Tf32Sum<Terms>, float> pass_;
};

// TF32 MMAs need compute capability 8.0, and a kernel compiled for it: one built for an older
// architecture only (CMAKE_CUDA_ARCHITECTURES) and JIT-compiled here has no MMA in it.
template <int Terms>
std::optional<std::string> why_no_tf32_mma() {
    const int capability = device_properties().compute_capability;
    if (capability < 80)
        return "TF32 tensor cores need compute capability 8.0 or later; this GPU has " + std::to_string(capability / 10) + "." +
               std::to_string(capability % 10);
    cudaFuncAttributes attributes{};
    const cudaError_t status =
        cudaFuncGetAttributes(&attributes, single_pass_sum<Tf32Sum<Terms>, typename SinglePassTuning<Tf32Sum<Terms>, float>::Policy, float>);
    if (status != cudaSuccess) {
        cudaGetLastError();
        return std::string("no kernel for this GPU in the build (") + cudaGetErrorString(status) + ")";
    }
    if (attributes.ptxVersion < 80)
        return "built without code for compute capability 8.0 or later (CMAKE_CUDA_ARCHITECTURES): its kernel has no MMA";
    return std::nullopt;
}

template <int Terms>
DeviceBackendSpec<MakeSum> tensor_core(std::string name, std::string description) {
    return {.name = std::move(name),
            .description = std::move(description),
            .traits = kFixedTree(Tf32Sum<Terms>::kAccumulator),
            .make = [](std::size_t n, ElementType) -> std::unique_ptr<AnyDeviceSum> { return std::make_unique<TensorCoreSum<Terms>>(n); },
            .element_types = {ElementType::f32},
            .unavailable_reason = why_no_tf32_mma<Terms>};
}

[[maybe_unused]] const bool registered_tf32 = register_device_backend(kRuntime, tensor_core<1>(
    "cuda/tensor-core/tf32",
    "cuda/single-pass with the loads summed by TF32 MMAs against a ones vector: each float rounded to TF32 (11 bits)"));
[[maybe_unused]] const bool registered_split = register_device_backend(kRuntime, tensor_core<2>(
    "cuda/tensor-core/tf32-split",
    "cuda/tensor-core/tf32 with each float split into two TF32 terms, hi + lo, two MMAs per load: float accuracy"));

}  // namespace
}  // namespace shootout::cuda
