// cub::DeviceReduce with its temporary storage sized and allocated once, before timing, and a 64-bit
// item count (CCCL 3 picks 64-bit offsets for it, so 2^31 and more elements work). cuda/cub sums
// float and double in their own type (DeviceReduce::Sum) and the 16-bit types in float, each element
// widened as CUB loads it (DeviceReduce::TransformReduce), as frameworks do; cuda/cub-acc16 sums the
// 16-bit types in their own type (DeviceReduce::Sum: every addition rounded to 16 bits), to show
// what that costs.
#include <cstdint>
#include <memory>
#include <stdexcept>

#include "cuda/primitives/element_vector.cuh"
#include "cuda/runtime/cub_reduce.cuh"
#include "cuda/runtime/cuda_reduction.cuh"
#include "cuda/runtime/device_buffer.cuh"
#include "cuda/runtime/element_dispatch.cuh"

namespace shootout::cuda {
namespace {

template <class In, class Acc>
class CubSum final : public DeviceSum<Acc, In> {
public:
    explicit CubSum(std::size_t n) : n_(static_cast<std::int64_t>(n)) {
        SHOOTOUT_CUDA_CHECK((cub_sum<In, Acc>(nullptr, temp_bytes_, nullptr, nullptr, n_, nullptr)));
        temp_ = DeviceBuffer<unsigned char>(temp_bytes_);
    }

    void enqueue(In* in, Acc* out, cudaStream_t stream) override {
        SHOOTOUT_CUDA_CHECK((cub_sum<In, Acc>(temp_.get(), temp_bytes_, in, out, n_, stream)));
    }

private:
    std::int64_t n_;
    std::size_t temp_bytes_ = 0;
    DeviceBuffer<unsigned char> temp_;
};

[[maybe_unused]] const bool registered_default = register_device_backend(kRuntime, {
    .name = "cuda/cub",
    .description = "cub::DeviceReduce, temporary storage allocated once before timing; double accumulation for f64 input, float "
                   "otherwise",
    // CUB's reduce is run-to-run deterministic on one device (its default determinism).
    .traits = kFixedTree(Accumulator::f32),
    .traits_by_type = {{ElementType::f64, kFixedTree(Accumulator::f64)}},
    .make = [](std::size_t n, ElementType type) {
        return with_device_type(type, [n]<class In>(std::type_identity<In>) -> std::unique_ptr<AnyDeviceSum> {
            return std::make_unique<CubSum<In, DefaultAccumulation<In>>>(n);
        });
    },
    .element_types = {std::begin(kElementTypes), std::end(kElementTypes)},
});

[[maybe_unused]] const bool registered_16 = register_device_backend(kRuntime, {
    .name = "cuda/cub-acc16",
    .description = "cub::DeviceReduce::Sum of float16 or bfloat16 kept in the element type: every addition rounded to 16 bits",
    .traits = kFixedTree(Accumulator::f16),
    .traits_by_type = {{ElementType::bf16, kFixedTree(Accumulator::bf16)}},
    .make = [](std::size_t n, ElementType type) {
        return with_device_type(type, [n]<class In>(std::type_identity<In>) -> std::unique_ptr<AnyDeviceSum> {
            if constexpr (kIsHalfWidth<In>) return std::make_unique<CubSum<In, In>>(n);
            else throw std::logic_error("cuda/cub-acc16 takes the 16-bit types only");
        });
    },
    .element_types = {ElementType::f16, ElementType::bf16},
});

}  // namespace
}  // namespace shootout::cuda
