// What every OpenCL backend shares: the OpenCL queue of the device-neutral timing layer
// (api/device_timing.hpp: rotating copies, isolated and batched timing, --include-transfer), the
// result's buffer and its one copy back (the OpenCL API's DeviceRuntime, api/device_backend.hpp),
// and the launch shape chosen from the device's properties.
// A backend supplies only a KernelSum: "enqueue the reduction of the input at this offset into
// `out`", with its kernels and temporary storage.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/backend.hpp"
#include "api/device_backend.hpp"
#include "api/launch_tuning.hpp"
#include "opencl/runtime/device.hpp"
#include "opencl/runtime/opencl_api.hpp"
#include "opencl/runtime/queue.hpp"

namespace shootout::opencl {

// What a backend's kernels leave in `out`: a float, the bits of a double (the exact kernel needs no
// cl_khr_fp64 to return one), or nothing (the launch floor sums nothing: its result is NaN, and no
// copy back is enqueued).
enum class ResultKind { f32, f64_bits, none };

// One backend's device work for one input size, made before timing.
class KernelSum {
public:
    virtual ~KernelSum() = default;
    // Enqueues the reduction of the n elements at byte `offset` (a multiple of 256) of `in` into `out`.
    virtual void enqueue(OpenCLQueue& queue, cl_mem in, std::size_t offset, const Buffer& out) = 0;
    // What the kernels leave in `out`.
    virtual ResultKind result() const = 0;
    // What it chose for this size, for the CSV's configuration column.
    virtual std::string configuration() const = 0;
    // How many values it leaves in `out`: more than one are float partial sums the host adds in order.
    virtual std::size_t results() const { return 1; }
    // Calls of a batch in flight at once (its launch shape's), each on a lane with a KernelSum of its own.
    virtual std::size_t calls_in_flight() const { return 1; }
};

// The work-group size and count, and the 16-byte loads each work-item keeps in flight, of a
// grid-stride kernel over n elements, from the kernel's and the device's properties:
//   group size  8 x the kernel's preferred work-group size multiple (the SIMD width: a warp, a
//               wavefront, a CPU's vector lanes), capped by the kernel's maximum, a power of two
//               (the tree halves it)
//   loads       a cache line per two work-items: cache line / 32 loads of 16 bytes, 1 to 8
//   groups      enough to fill every compute unit twice over at its maximum work-group size, but
//               no more than cover n with one pass of every work-item's loads
//   in flight   one call at a time to 2^22, 8 above (default_knobs)
struct LaunchShape {
    std::size_t group_size = 1, groups = 1, in_flight = 1;
    int loads = 1;
    std::string describe() const;
};

// The tuned launch of a single-pass kernel (api/launch_tuning.hpp): the shape above is its defaults
// for a size band (group size, loads, groups per compute unit 2 x the device's largest work-group /
// the group size, calls in flight), the knobs within what the kernel and device run; a knobs' shape
// covers n as above, at most groups_per_unit groups on each compute unit. The loads are a build
// define (LOADS).
LaunchKnobs default_knobs(const Kernel& kernel, int band);
LaunchSpace launch_space(const Kernel& kernel);
LaunchShape launch_shape(std::size_t n, std::size_t element_bytes, const LaunchKnobs& knobs);
// The loads in flight for this device (the build option a kernel's program needs before the shape).
int loads_in_flight();
// The kernel's SIMD width on the device: its preferred work-group size multiple (a warp, a wavefront,
// a CPU's vector lanes), at least 1 and at most the kernel's largest work-group.
std::size_t simd_width(const Kernel& kernel);
LaunchShape launch_shape(const Kernel& kernel, std::size_t n, std::size_t element_bytes);
// The knobs' shape for this kernel: its group size at most the kernel's largest work-group (knobs
// tuned on floats may ask more than a type's kernel, doubles', takes).
LaunchShape launch_shape(const Kernel& kernel, std::size_t n, std::size_t element_bytes, LaunchKnobs knobs);

// What an OpenCL backend supplies (DeviceBackendSpec::make): its KernelSum for n elements (n may be
// 0) of the type, enqueueing any set-up on the queue (finished before the first call); throws
// ResourceExhausted when its storage does not fit.
using MakeKernelSum = std::function<std::unique_ptr<KernelSum>(OpenCLQueue& queue, std::size_t n, ElementType type)>;

// The OpenCL API's part of every OpenCL backend: the device found, an OpenCLQueue on it, and the
// call of a backend's KernelSum with the result's buffer and its copy back. A backend registers with
// register_device_backend(kRuntime, {...}).
std::unique_ptr<DeviceQueue> make_queue();
std::unique_ptr<DeviceCall> make_call(const DeviceBackendSpec<MakeKernelSum>& backend, DeviceQueue& queue, Elements input);
inline constexpr DeviceRuntime<MakeKernelSum> kRuntime{kDevice, why_no_device, device_info, make_queue, make_call};

// A backend's KernelSum for n elements of a type, launched with these knobs (their source named in
// its configuration).
using MakeKnobbedSum =
    std::function<std::unique_ptr<KernelSum>(OpenCLQueue& queue, std::size_t n, ElementType type, const LaunchKnobs& knobs, LaunchSource source)>;

// `backend`'s KernelSum with its launch shapes on this device (api/launch_tuning.hpp): `defaults` per
// size band, or the cache's or the tuner's within `space`, the tuner timing each candidate as the
// backend's call made by `make` on a queue of its own.
std::unique_ptr<KernelSum> tuned_kernel_sum(const std::string& backend, OpenCLQueue& queue, std::size_t n, ElementType type,
                                            const std::function<LaunchKnobs(int band)>& defaults, const LaunchSpace& space,
                                            const MakeKnobbedSum& make);

// Build options every program gets: the OpenCL C version (1.2 unless a kernel needs a later one),
// no fast-math, the loads in flight (the device's unless given) and the element type (element_define()); then `extra`.
std::string build_options(ElementType type, const std::string& extra = {}, const std::string& c_version = "CL1.2",
                          int loads = loads_in_flight());

// Why the device cannot do double arithmetic (no cl_khr_fp64), for f64 input; nullopt for other types.
std::optional<std::string> lacks_doubles(ElementType type);

}  // namespace shootout::opencl
