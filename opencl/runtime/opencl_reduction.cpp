#include "opencl/runtime/opencl_reduction.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "api/device_timing.hpp"
#include "opencl/runtime/element_dispatch.hpp"
#include "opencl/runtime/opencl_api.hpp"

namespace shootout::opencl {
namespace {

template <class T>
T kernel_info(const Kernel& kernel, cl_kernel_work_group_info what) {
    T value{};
    check(clGetKernelWorkGroupInfo(kernel.get(), device_properties().device, what, sizeof value, &value, nullptr),
          "clGetKernelWorkGroupInfo");
    return value;
}

// One backend's KernelSum as the timing layer's call, with the result's buffer and its copy back.
// Calls in flight together read different inputs (two reading the same bytes at once share the
// cache's lines): a call goes on the lane of the copy it reads, copy index mod the calls in flight,
// so calls of one copy follow each other and lanes read disjoint copies. Each lane has its own
// KernelSum and result buffer: calls on two lanes share no buffer.
class OpenCLCall final : public DeviceCall {
public:
    OpenCLCall(const DeviceBackendSpec<MakeKernelSum>& backend, OpenCLQueue& queue, Elements input)
        : queue_(queue), stride_(copy_stride(input.size_bytes())) {
        do {
            Lane& lane = lanes_.emplace_back();
            lane.sum = backend.make(queue, input.size(), input.type());
            kind_ = lane.sum->result();
            lane.out = make_buffer(bytes(*lane.sum));
        } while (lanes_.size() < std::clamp<std::size_t>(lanes_.front().sum->calls_in_flight(), 1, OpenCLQueue::kLanes));
        queue.open_lanes(lanes_.size());
        host_out_.resize(std::max<std::size_t>(lanes_[0].sum->results(), 1));
    }

    void enqueue(DeviceQueue::Memory& input, std::size_t offset, bool result_to_host) override {
        last_ = offset / stride_ % lanes_.size();
        Lane& lane = lanes_[last_];
        queue_.use_lane(last_);
        lane.sum->enqueue(queue_, buffer_of(input), offset, lane.out);
        to_host_ = result_to_host && kind_ != ResultKind::none;
        if (to_host_) queue_.read(lane.out.get(), bytes(*lane.sum), host_out_.data());
    }

    double result() override {
        if (kind_ == ResultKind::none) return std::numeric_limits<double>::quiet_NaN();
        const KernelSum& sum = *lanes_[last_].sum;
        if (!to_host_) {
            queue_.use_lane(last_);
            queue_.read(lanes_[last_].out.get(), bytes(sum), host_out_.data());
            queue_.finish();
        }
        if (kind_ == ResultKind::f64_bits) return std::bit_cast<double>(host_out_[0]);
        const auto* floats = reinterpret_cast<const float*>(host_out_.data());
        float total = floats[0];
        for (std::size_t i = 1; i < sum.results(); ++i) total += floats[i];
        return static_cast<double>(total);
    }

    // The launch shape, and the cache the rotation defeats (OpenCL reports no L2: a floor stands in).
    std::string configuration() const override {
        return lanes_[0].sum->configuration() + " rotation_cache=" + std::to_string(queue_.cache_bytes() >> 20) + "MiB";
    }

private:
    struct Lane {
        std::unique_ptr<KernelSum> sum;
        Buffer out;
    };
    std::size_t bytes(const KernelSum& sum) const { return kind_ == ResultKind::f64_bits ? 8 : 4 * sum.results(); }

    OpenCLQueue& queue_;
    std::size_t stride_;
    std::vector<Lane> lanes_;
    ResultKind kind_ = ResultKind::none;
    std::vector<std::uint64_t> host_out_;  // a double's bits, or floats packed from the first byte
    std::size_t last_ = 0;                 // the last call's lane
    bool to_host_ = false;
};

}  // namespace

std::string LaunchShape::describe() const {
    return "group_size=" + std::to_string(group_size) + " groups=" + std::to_string(groups) + " loads=" + std::to_string(loads) +
           " in_flight=" + std::to_string(in_flight);
}

int loads_in_flight() { return static_cast<int>(std::clamp<unsigned>(device_properties().cache_line / 32, 1, 8)); }

std::size_t simd_width(const Kernel& kernel) {
    const auto multiple = kernel_info<std::size_t>(kernel, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    return std::clamp<std::size_t>(multiple, 1, std::max<std::size_t>(kernel_info<std::size_t>(kernel, CL_KERNEL_WORK_GROUP_SIZE), 1));
}

LaunchKnobs default_knobs(const Kernel& kernel, int band) {
    const std::size_t most = kernel_info<std::size_t>(kernel, CL_KERNEL_WORK_GROUP_SIZE);
    const auto group_size = static_cast<std::uint32_t>(std::bit_floor(std::max<std::size_t>(std::min(8 * simd_width(kernel), most), 1)));
    const auto per_unit = static_cast<std::uint32_t>(std::bit_floor(2 * std::max<std::size_t>(device_properties().max_work_group / group_size, 1)));
    // Calls in flight from 2^22 on. H100: opencl/single-pass 21.8 us a call at 2^24 on 8 lanes, 27.1 in
    // order; at 2^16..2^20 in order is 1-1.5 us a call faster (a lane's launch costs more).
    const std::uint32_t in_flight = band == kSizeBands - 1 ? OpenCLQueue::kLanes : 1;
    return {.group_size = group_size, .loads = static_cast<std::uint32_t>(loads_in_flight()), .groups_per_unit = per_unit, .in_flight = in_flight};
}

LaunchSpace launch_space(const Kernel& kernel) {
    const LaunchKnobs defaults = default_knobs(kernel, 0);
    const auto most = static_cast<std::uint32_t>(std::bit_floor(std::min<std::size_t>(kernel_info<std::size_t>(kernel, CL_KERNEL_WORK_GROUP_SIZE), 1024)));
    const auto powers = [](std::uint32_t low, std::uint32_t high) {
        std::vector<std::uint32_t> values;
        for (std::uint32_t v = low; v <= high; v *= 2) values.push_back(v);
        return values;
    };
    // Loads: 1 to 8 (reduce.cl's range); groups per unit: 1 to 16, or to the defaults' where higher.
    return {.group_sizes = powers(std::min<std::uint32_t>(32, most), most),
            .loads = powers(1, 8),
            .groups_per_unit = powers(1, std::max<std::uint32_t>(16, defaults.groups_per_unit)),
            .in_flight = powers(1, OpenCLQueue::kLanes)};
}

LaunchShape launch_shape(std::size_t n, std::size_t element_bytes, const LaunchKnobs& knobs) {
    LaunchShape shape;
    shape.loads = static_cast<int>(knobs.loads);
    shape.group_size = knobs.group_size;
    shape.in_flight = std::min<std::size_t>(knobs.in_flight, OpenCLQueue::kLanes);
    const std::size_t resident = std::size_t{device_properties().compute_units} * knobs.groups_per_unit;
    const std::size_t per_group_pass = shape.group_size * shape.loads * (16 / element_bytes);
    shape.groups = std::clamp<std::size_t>((n + per_group_pass - 1) / per_group_pass, 1, std::max<std::size_t>(resident, 1));
    return shape;
}

LaunchShape launch_shape(const Kernel& kernel, std::size_t n, std::size_t element_bytes) {
    return launch_shape(n, element_bytes, default_knobs(kernel, size_band(n)));
}

LaunchShape launch_shape(const Kernel& kernel, std::size_t n, std::size_t element_bytes, LaunchKnobs knobs) {
    const std::size_t most = std::max<std::size_t>(kernel_info<std::size_t>(kernel, CL_KERNEL_WORK_GROUP_SIZE), 1);
    knobs.group_size = static_cast<std::uint32_t>(std::min<std::size_t>(knobs.group_size, std::bit_floor(most)));
    return launch_shape(n, element_bytes, knobs);
}

std::unique_ptr<KernelSum> tuned_kernel_sum(const std::string& backend, OpenCLQueue& queue, std::size_t n, ElementType type,
                                            const std::function<LaunchKnobs(int band)>& defaults, const LaunchSpace& space,
                                            const MakeKnobbedSum& make) {
    const TunedLaunch launch = tuned_launch({
        .kernel = backend,
        .device = describe(),
        .defaults = defaults,
        .space = space,
        .seconds_per_call = [&](const LaunchKnobs& knobs, std::size_t size) {
            const DeviceBackendSpec<MakeKernelSum> spec{
                .name = backend, .description = {}, .traits = {},
                .make = [&](OpenCLQueue& q, std::size_t count, ElementType t) { return make(q, count, t, knobs, LaunchSource::tuner); }};
            return seconds_per_call({.make_queue = make_queue, .make_call = [&spec](DeviceQueue& q, Elements input) { return make_call(spec, q, input); }},
                                    size);
        },
    });
    return make(queue, n, type, launch.for_size(n), launch.source);
}

std::string build_options(ElementType type, const std::string& extra, const std::string& c_version, int loads) {
    return "-cl-std=" + c_version + " -DLOADS=" + std::to_string(loads) + " " + element_define(type) +
           (extra.empty() ? "" : " " + extra);
}

std::optional<std::string> lacks_doubles(ElementType type) {
    const DeviceProperties& device = device_properties();
    if (type != ElementType::f64 || device.has_extension("cl_khr_fp64")) return std::nullopt;
    return device.name + " (" + device.platform_name + ") lacks cl_khr_fp64: no double arithmetic";
}

std::unique_ptr<DeviceQueue> make_queue() { return std::make_unique<OpenCLQueue>(); }

std::unique_ptr<DeviceCall> make_call(const DeviceBackendSpec<MakeKernelSum>& backend, DeviceQueue& queue, Elements input) {
    return std::make_unique<OpenCLCall>(backend, static_cast<OpenCLQueue&>(queue), input);
}

}  // namespace shootout::opencl
