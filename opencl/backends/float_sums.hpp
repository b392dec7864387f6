// The float and double sums of opencl/kernels/reduce.cl as KernelSums: the one-launch sum (its tree or
// sub-group variant), the two-kernel tree and the read ceiling (floats only) share the launch shape
// and the partials buffer. A double input is summed in double (cl_khr_fp64).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "opencl/runtime/opencl_reduction.hpp"

namespace shootout::opencl {

enum class FloatKernel { single_pass, two_kernel_tree, read_all };

class FloatSum final : public KernelSum {
public:
    // `type`: f32 or f64. `extra` and `c_version`: reduce.cl's build options beyond build_options()'s
    // (-DSUBGROUPS and the C version it needs).
    // `knobs`: the launch (api/launch_tuning.hpp) and where it came from, named in the configuration;
    // none: the device's defaults (launch_shape).
    FloatSum(OpenCLQueue& queue, FloatKernel kind, std::size_t n, ElementType type, const std::string& extra = {},
             const std::string& c_version = "CL1.2", std::optional<LaunchKnobs> knobs = std::nullopt,
             LaunchSource source = LaunchSource::defaults);

    void enqueue(OpenCLQueue& queue, cl_mem in, std::size_t offset, const Buffer& out) override;
    ResultKind result() const override { return element_bytes_ == sizeof(double) ? ResultKind::f64_bits : ResultKind::f32; }
    std::string configuration() const override { return shape_.describe() + variant_; }
    std::size_t results() const override { return kind_ == FloatKernel::read_all ? shape_.groups : 1; }
    std::size_t calls_in_flight() const override { return shape_.in_flight; }

private:
    FloatKernel kind_;
    cl_ulong n_;
    std::size_t element_bytes_;
    Kernel main_, combine_;
    LaunchShape shape_;
    std::size_t combine_size_ = 0;
    Buffer partials_, ticket_;
    std::string variant_;
};

// The one-launch FloatSum of `backend` (its reduce.cl build options `extra`, `c_version`) with the
// backend's launch shapes on this device: its defaults, its cache or the tuner's (launch_tuning.hpp).
std::unique_ptr<KernelSum> tuned_single_pass(const std::string& backend, OpenCLQueue& queue, std::size_t n, ElementType type,
                                             const std::string& extra = {}, const std::string& c_version = "CL1.2");

}  // namespace shootout::opencl
