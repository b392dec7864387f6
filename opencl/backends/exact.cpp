// opencl/exact: the exact sum of floats, doubles, float16 or bfloat16, rounded once to double on the
// device: the same bits as cpu/exact/* and cuda/exact (opencl/kernels/exact.cl, in cuda/exact's
// layers). One launch; the work-groups' digits meet in the last work-group, so only 32-bit atomics
// are needed.
#include <cstdint>
#include <memory>
#include <string>

#include "exact/exact_accumulator.hpp"
#include "opencl/runtime/opencl_reduction.hpp"

namespace shootout::opencl {
namespace {

class ExactSum final : public KernelSum {
public:
    ExactSum(OpenCLQueue& queue, std::size_t n, ElementType type) : n_(n), element_bytes_(element_bytes(type)) {
        // The 16-bit values are floats: summed in floats' digits, their kernel told apart by a define.
        const bool doubles = type == ElementType::f64;
        const int digits = doubles ? exact::kDigits<double> : exact::kDigits<float>;
        const std::string input = type == ElementType::f16 ? " -DINPUT_F16" : type == ElementType::bf16 ? " -DINPUT_BF16" : "";
        kernel_ = make_kernel(program("exact", build_options(doubles ? ElementType::f64 : ElementType::f32,
                                                             "-DDIGITS=" + std::to_string(digits) + input)),
                              "exact_sum");
        shape_ = launch_shape(kernel_, n, element_bytes_);
        // Calls in flight at every size: the last group's combine of the digits is long enough to hide
        // a lane's launch. H100: 8.7 us a call at 2^20 on 8 lanes, 11.5 in order; 11.7 against 23.4 at 2^22.
        shape_.in_flight = OpenCLQueue::kLanes;
        // A slot a group: its specials, digit range and digits (exact.cl's SLOT_LONGS).
        partials_ = make_buffer(shape_.groups * (digits + 3) * sizeof(std::int64_t));
        ticket_ = make_buffer(sizeof(cl_uint));
        queue.fill_zero(ticket_.get(), sizeof(cl_uint));  // before the first launch; every launch leaves it zero
    }

    void enqueue(OpenCLQueue& queue, cl_mem in, std::size_t offset, const Buffer& out) override {
        const cl_ulong first = offset / element_bytes_;
        set_args(kernel_, in, first, n_, partials_, ticket_, out, LocalBytes{shape_.group_size * 4 * sizeof(std::int64_t)});
        queue.launch(kernel_, shape_.groups, shape_.group_size);
    }
    ResultKind result() const override { return ResultKind::f64_bits; }
    std::string configuration() const override { return shape_.describe(); }
    std::size_t calls_in_flight() const override { return shape_.in_flight; }

private:
    cl_ulong n_;
    std::size_t element_bytes_;
    Kernel kernel_;
    LaunchShape shape_;
    Buffer partials_, ticket_;
};

[[maybe_unused]] const bool registered = register_device_backend(kRuntime, {
    .name = "opencl/exact",
    .description = "exact sum rounded once: a fixed-point window (floats, bfloat16), an integer (float16) or a "
                   "double expansion in registers, the rest into per-work-item superaccumulator digits; work-groups sum "
                   "the digits they reach, the last one adds the groups' and rounds",
    .traits = {.accumulator = Accumulator::exact, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count},
    .make = [](OpenCLQueue& queue, std::size_t n, ElementType type) { return std::make_unique<ExactSum>(queue, n, type); },
    .element_types = {ElementType::f32, ElementType::f64, ElementType::f16, ElementType::bf16},
});

}  // namespace
}  // namespace shootout::opencl
