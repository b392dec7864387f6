// opencl/exact: the exact sum of floats, doubles, float16 or bfloat16, rounded once to double on the
// device: the same bits as cpu/exact/* and cuda/exact (opencl/kernels/exact.cl, in cuda/exact's
// layers). One launch; the work-groups' digits meet in the last work-group, so only 32-bit atomics
// are needed.
#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "exact/exact_accumulator.hpp"
#include "opencl/runtime/opencl_reduction.hpp"

namespace shootout::opencl {
namespace {

// The exact program for a type: the 16-bit values are floats, summed in floats' digits, their kernel
// told apart by a define.
cl_program exact_program(ElementType type, int loads) {
    const bool doubles = type == ElementType::f64;
    const int digits = doubles ? exact::kDigits<double> : exact::kDigits<float>;
    const std::string input = type == ElementType::f16 ? " -DINPUT_F16" : type == ElementType::bf16 ? " -DINPUT_BF16" : "";
    return program("exact", build_options(doubles ? ElementType::f64 : ElementType::f32, "-DDIGITS=" + std::to_string(digits) + input,
                                          "CL1.2", loads));
}

class ExactSum final : public KernelSum {
public:
    ExactSum(OpenCLQueue& queue, std::size_t n, ElementType type, const LaunchKnobs& knobs, LaunchSource source)
        : n_(n), element_bytes_(element_bytes(type)), source_(source) {
        kernel_ = make_kernel(exact_program(type, static_cast<int>(knobs.loads)), "exact_sum");
        shape_ = launch_shape(kernel_, n, element_bytes_, knobs);
        per_unit_ = knobs.groups_per_unit;
        const int digits = type == ElementType::f64 ? exact::kDigits<double> : exact::kDigits<float>;
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
    std::string configuration() const override {
        return shape_.describe() + " per_unit=" + std::to_string(per_unit_) + " shape=" + std::string(to_string(source_));
    }
    std::size_t calls_in_flight() const override { return shape_.in_flight; }

private:
    cl_ulong n_;
    std::size_t element_bytes_;
    LaunchSource source_;
    std::uint32_t per_unit_ = 0;
    Kernel kernel_;
    LaunchShape shape_;
    Buffer partials_, ticket_;
};

// The exact sum with its launch shapes on this device: the single pass's defaults, but calls in flight
// at every size: the last group's combine of the digits is long enough to hide a lane's launch.
// H100: 8.7 us a call at 2^20 on 8 lanes, 11.5 in order; 11.7 against 23.4 at 2^22.
std::unique_ptr<KernelSum> tuned_exact(OpenCLQueue& queue, std::size_t n, ElementType type) {
    const Kernel probe = make_kernel(exact_program(ElementType::f32, loads_in_flight()), "exact_sum");
    std::array<LaunchKnobs, kSizeBands> defaults;
    for (int band = 0; band < kSizeBands; ++band) {
        defaults[static_cast<std::size_t>(band)] = default_knobs(probe, band);
        defaults[static_cast<std::size_t>(band)].in_flight = OpenCLQueue::kLanes;
    }
    return tuned_kernel_sum("opencl/exact", queue, n, type, [defaults](int band) { return defaults[static_cast<std::size_t>(band)]; },
                            launch_space(probe),
                            [](OpenCLQueue& q, std::size_t count, ElementType t, const LaunchKnobs& knobs, LaunchSource source) {
                                return std::make_unique<ExactSum>(q, count, t, knobs, source);
                            });
}

[[maybe_unused]] const bool registered = register_device_backend(kRuntime, {
    .name = "opencl/exact",
    .description = "exact sum rounded once: a fixed-point window (floats, bfloat16), an integer (float16) or a "
                   "double expansion in registers, the rest into per-work-item superaccumulator digits; work-groups sum "
                   "the digits they reach, the last one adds the groups' and rounds",
    .traits = {.accumulator = Accumulator::exact, .order = Order::tree, .reproducibility = Reproducibility::any_thread_count},
    .make = tuned_exact,
    .element_types = {ElementType::f32, ElementType::f64, ElementType::f16, ElementType::bf16},
});

}  // namespace
}  // namespace shootout::opencl
