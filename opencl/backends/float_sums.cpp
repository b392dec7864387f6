#include "opencl/backends/float_sums.hpp"

#include <array>

namespace shootout::opencl {

FloatSum::FloatSum(OpenCLQueue& queue, FloatKernel kind, std::size_t n, ElementType type, const std::string& extra,
                   const std::string& c_version, std::optional<LaunchKnobs> knobs, LaunchSource source)
    : kind_(kind), n_(n), element_bytes_(element_bytes(type)) {
    const cl_program program =
        opencl::program("reduce", build_options(type, extra, c_version, knobs ? static_cast<int>(knobs->loads) : loads_in_flight()));
    main_ = make_kernel(program, kind == FloatKernel::single_pass ? "single_pass" : kind == FloatKernel::read_all ? "read_all" : "partials");
    shape_ = knobs ? launch_shape(main_, n, element_bytes_, *knobs) : launch_shape(main_, n, element_bytes_);
    if (knobs) variant_ = " per_unit=" + std::to_string(knobs->groups_per_unit) + " shape=" + std::string(to_string(source));
    if (kind == FloatKernel::two_kernel_tree) {
        combine_ = make_kernel(program, "combine");
        combine_size_ = launch_shape(combine_, 0, element_bytes_).group_size;
        variant_ = " combine_group_size=" + std::to_string(combine_size_);
    }
    if (kind != FloatKernel::read_all) partials_ = make_buffer(shape_.groups * element_bytes_);
    if (kind == FloatKernel::single_pass) {
        ticket_ = make_buffer(sizeof(cl_uint));
        queue.fill_zero(ticket_.get(), sizeof(cl_uint));  // before the first launch; every launch leaves it zero
    }
}

void FloatSum::enqueue(OpenCLQueue& queue, cl_mem in, std::size_t offset, const Buffer& out) {
    const cl_ulong first = offset / element_bytes_;
    const LocalBytes scratch{shape_.group_size * element_bytes_};
    const cl_mem input = in;
    switch (kind_) {
        case FloatKernel::single_pass:
            set_args(main_, input, first, n_, partials_, ticket_, out, scratch);
            queue.launch(main_, shape_.groups, shape_.group_size);
            break;
        case FloatKernel::two_kernel_tree:
            set_args(main_, input, first, n_, partials_, scratch);
            queue.launch(main_, shape_.groups, shape_.group_size);
            set_args(combine_, partials_, static_cast<cl_uint>(shape_.groups), out, LocalBytes{combine_size_ * element_bytes_});
            queue.launch(combine_, 1, combine_size_);
            break;
        case FloatKernel::read_all:
            set_args(main_, input, first, n_, out, scratch);
            queue.launch(main_, shape_.groups, shape_.group_size);
            break;
    }
}

std::unique_ptr<KernelSum> tuned_single_pass(const std::string& backend, OpenCLQueue& queue, std::size_t n, ElementType type,
                                             const std::string& extra, const std::string& c_version) {
    const Kernel probe = make_kernel(opencl::program("reduce", build_options(type, extra, c_version)), "single_pass");
    std::array<LaunchKnobs, kSizeBands> defaults;
    for (int band = 0; band < kSizeBands; ++band) defaults[static_cast<std::size_t>(band)] = default_knobs(probe, band);
    return tuned_kernel_sum(backend, queue, n, type, [defaults](int band) { return defaults[static_cast<std::size_t>(band)]; },
                            launch_space(probe),
                            [&](OpenCLQueue& q, std::size_t count, ElementType t, const LaunchKnobs& knobs, LaunchSource source) {
                                return std::make_unique<FloatSum>(q, FloatKernel::single_pass, count, t, extra, c_version, knobs, source);
                            });
}

}  // namespace shootout::opencl
