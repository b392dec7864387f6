// cuda/single-pass: one launch per call, the last block to finish combines the block states
// (cuda/agents/single_pass.cuh). The accumulator and the element type are template parameters, so
// every variant and type is one kernel, as for cuda/shuffle.
#include <memory>

#include "cuda/agents/single_pass.cuh"
#include "cuda/runtime/cuda_reduction.cuh"
#include "cuda/runtime/element_dispatch.cuh"

namespace shootout::cuda {
namespace {

template <class In>
using PlainDefault = PlainSum<DefaultAccumulation<In>>;
template <class In>
using PlainDouble = PlainSum<double>;
template <class In>
using KahanDefault = KahanSum<DefaultAccumulation<In>>;

template <template <class> class AccFor, class In>
class SinglePassSum final : public DeviceSum<typename AccFor<In>::Result, In> {
public:
    explicit SinglePassSum(std::size_t n) : pass_(n) {}

    void enqueue(In* in, typename AccFor<In>::Result* out, cudaStream_t stream) override { pass_.enqueue(in, out, stream); }

private:
    SinglePass<AccFor<In>, In> pass_;
};

template <template <class> class AccFor>
DeviceBackendSpec<MakeSum> single_pass(std::string name, std::string description) {
    return {.name = std::move(name),
            .description = std::move(description),
            .traits = kFixedTree(AccFor<float>::kAccumulator),
            .traits_by_type = {{ElementType::f64, kFixedTree(AccFor<double>::kAccumulator)}},
            .make = [](std::size_t n, ElementType type) {
                return with_device_type(type, [n]<class In>(std::type_identity<In>) -> std::unique_ptr<AnyDeviceSum> {
                    return std::make_unique<SinglePassSum<AccFor, In>>(n);
                });
            },
            .element_types = {std::begin(kElementTypes), std::end(kElementTypes)}};
}

[[maybe_unused]] const bool registered_f32 = register_device_backend(kRuntime, single_pass<PlainDefault>(
    "cuda/single-pass",
    "one launch: 16-byte loads, block sums to slots, the block drawing the last atomic ticket combines them in block order; "
    "adds in double for f64 input, in float otherwise"));
[[maybe_unused]] const bool registered_f64 = register_device_backend(kRuntime, single_pass<PlainDouble>(
    "cuda/single-pass-f64", "cuda/single-pass accumulating in double: each element widened before adding, double block slots"));
[[maybe_unused]] const bool registered_kahan = register_device_backend(kRuntime, single_pass<KahanDefault>(
    "cuda/single-pass-kahan",
    "cuda/single-pass with Kahan-compensated sums per thread (double for f64 input, float otherwise), states combined by TwoSum "
    "with their errors"));

}  // namespace
}  // namespace shootout::cuda
