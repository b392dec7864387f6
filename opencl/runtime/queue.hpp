// The OpenCL side of the device-neutral timing layer (api/device_timing.hpp): in-order command queues
// with profiling on, and buffers, on the device of opencl/runtime/device.hpp.
//
// Lanes: the queue is up to kLanes in-order command queues, lane 0 made with it and the others when
// a call asks for them, before timing (open_lanes). A call's commands go to the lane it picks
// (use_lane), so that calls on different lanes, which share no buffer, may run side by side (NVIDIA's
// driver runs each queue as a stream of its own); the rule is results/README.md's "The overlap rule".
// The timing layer's copies go to lane 0 after every lane's commands, and every lane's next command
// waits for them.
//
// The device's clock: the first command of each lane between start_timer() and stop_timer() gets an
// event, and the time is the earliest one's CL_PROFILING_COMMAND_START to the end of a marker that
// follows every lane's commands, so the device work and the gaps between its commands, none of the
// host's submission before the first.
#pragma once

#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "api/device_timing.hpp"
#include "opencl/runtime/device.hpp"

namespace shootout::opencl {

// An OpenCL object's reference, released by the destructor.
template <class Handle, cl_int (*Release)(Handle)>
class Owned {
public:
    Owned() = default;
    explicit Owned(Handle handle) : handle_(handle) {}
    ~Owned() { reset(); }
    Owned(Owned&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
    Owned& operator=(Owned&& other) noexcept {
        if (this != &other) {
            reset();
            handle_ = other.handle_;
            other.handle_ = nullptr;
        }
        return *this;
    }
    Handle get() const { return handle_; }
    void reset() {
        if (handle_) Release(handle_);
        handle_ = nullptr;
    }

private:
    Handle handle_ = nullptr;
};

using Buffer = Owned<cl_mem, clReleaseMemObject>;
using Kernel = Owned<cl_kernel, clReleaseKernel>;
using Event = Owned<cl_event, clReleaseEvent>;

struct ClMemory final : DeviceQueue::Memory {
    explicit ClMemory(Buffer b) : buffer(std::move(b)) {}
    Buffer buffer;
};
inline cl_mem buffer_of(const DeviceQueue::Memory& memory) { return static_cast<const ClMemory&>(memory).buffer.get(); }

// Device memory of `bytes` (at least 1); throws ResourceExhausted past the device's largest allocation.
Buffer make_buffer(std::size_t bytes);
// A kernel of a built program.
Kernel make_kernel(cl_program program, const char* name);

// A kernel argument that is local memory of this many bytes.
struct LocalBytes {
    std::size_t bytes;
};

// Sets the kernel's arguments in order: buffers, LocalBytes, and plain values.
template <class... Args>
void set_args(const Kernel& kernel, const Args&... args) {
    cl_uint index = 0;
    auto one = [&](const auto& arg) {
        using A = std::remove_cvref_t<decltype(arg)>;
        cl_int status;
        if constexpr (std::is_same_v<A, Buffer>) {
            const cl_mem m = arg.get();
            status = clSetKernelArg(kernel.get(), index, sizeof m, &m);
        } else if constexpr (std::is_same_v<A, LocalBytes>) {
            status = clSetKernelArg(kernel.get(), index, arg.bytes, nullptr);
        } else {
            status = clSetKernelArg(kernel.get(), index, sizeof arg, &arg);
        }
        check(status, "clSetKernelArg");
        ++index;
    };
    (one(args), ...);
}

class OpenCLQueue final : public DeviceQueue {
public:
    // Calls in flight at most: as Vulkan's (vulkan_reduction.cpp, kCallsInFlight).
    static constexpr std::size_t kLanes = 8;

    OpenCLQueue();
    ~OpenCLQueue() override;

    // What rotation defeats: the driver's global memory cache size, but on a GPU at least
    // kUnreportedCacheFloor: drivers report a per-compute-unit cache there, not the L2 (NVIDIA's does).
    std::size_t cache_bytes() const override;
    std::unique_ptr<Memory> allocate(std::size_t bytes) override;
    std::shared_ptr<void> allocate_staging(std::size_t bytes) override;
    void copy_in(Memory& to, std::size_t offset, const void* from, std::size_t bytes) override;
    void copy(Memory& to, std::size_t to_offset, const Memory& from, std::size_t from_offset, std::size_t bytes) override;
    void start_timer() override;
    double stop_timer() override;
    void finish() override;

    // Makes lanes up to `count` (at most kLanes), once: a call's calls in flight.
    void open_lanes(std::size_t count);
    // The lane (one opened) that launch, read and fill_zero enqueue on from now; lane 0 at first.
    void use_lane(std::size_t lane);
    // Enqueues `groups` work-groups of `group_size` work-items of the kernel (1-D).
    void launch(const Kernel& kernel, std::size_t groups, std::size_t group_size);
    // Enqueues the copy of `bytes` of a buffer to host memory, which must stay valid until finish().
    void read(cl_mem from, std::size_t bytes, void* to);
    // Enqueues zeros over the first `bytes` of a buffer.
    void fill_zero(cl_mem buffer, std::size_t bytes);

private:
    // The current lane's queue, once it waits for lane 0's commands since it last did.
    cl_command_queue lane_queue();
    // Orders lane 0 after every other lane's commands (a marker on each, lane 0 waits for them).
    void gather();
    // The event slot for the next command on `lane`: the timed region's first command on each lane
    // gets one, no other command does (an event costs NVIDIA's driver about 8 us per command on the host).
    cl_event* slot(std::size_t lane) { return timing_ && !first_[lane].get() ? &pending_ : nullptr; }
    // Keeps the event the lane's first command just got.
    void keep(std::size_t lane);

    std::array<cl_command_queue, kLanes> lanes_{};
    std::size_t opened_ = 0;  // lanes_[0, opened_) exist
    std::size_t lane_ = 0;
    std::array<bool, kLanes> behind_{};  // the lane has commands lane 0 has not gathered
    bool copied_ = false;                // lane 0 has commands no other lane waited for
    Event fence_;                        // a marker after them, once a lane needs it
    std::array<bool, kLanes> fenced_{};  // the lane waits for fence_
    bool timing_ = false;
    cl_event pending_ = nullptr;
    std::array<Event, kLanes> first_;
};

}  // namespace shootout::opencl
