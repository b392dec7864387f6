// cub::DeviceReduce::Sum with its temporary storage sized and allocated once, before timing, and a
// 64-bit item count (CCCL 3 picks 64-bit offsets for it, so 2^31 and more elements work).
#include <cub/device/device_reduce.cuh>

#include <cstdint>
#include <memory>

#include "gpu/runtime/cuda_reduction.cuh"
#include "gpu/runtime/device_buffer.cuh"

namespace shootout::cuda {
namespace {

class CubSum final : public DeviceSum<float> {
public:
    explicit CubSum(std::size_t n) : n_(static_cast<std::int64_t>(n)) {
        SHOOTOUT_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes_, static_cast<const float*>(nullptr),
                                                   static_cast<float*>(nullptr), n_));
        temp_ = DeviceBuffer<unsigned char>(temp_bytes_);
    }

    void enqueue(float* in, float* out, cudaStream_t stream) override {
        SHOOTOUT_CUDA_CHECK(cub::DeviceReduce::Sum(temp_.get(), temp_bytes_, in, out, n_, stream));
    }

private:
    std::int64_t n_;
    std::size_t temp_bytes_ = 0;
    DeviceBuffer<unsigned char> temp_;
};

[[maybe_unused]] const bool registered = register_cuda_backend<float>({
    .name = "cuda/cub",
    .description = "cub::DeviceReduce::Sum, temporary storage allocated once before timing, float accumulation",
    // CUB's reduce is run-to-run deterministic on one device (its default determinism).
    .traits = kFixedTree(Accumulator::f32),
    .make = [](std::size_t n, ElementType) { return std::make_unique<CubSum>(n); },
});

}  // namespace
}  // namespace shootout::cuda
