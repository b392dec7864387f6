#include "opencl/runtime/queue.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace shootout::opencl {
namespace {

// The largest last-level cache of the GPUs whose OpenCL drivers report a smaller cache (bytes): 4x it,
// 512 MiB of copies, defeats any of them.
constexpr std::size_t kUnreportedCacheFloor = std::size_t{128} << 20;

cl_ulong profile(cl_event event, cl_profiling_info what) {
    cl_ulong ns = 0;
    check(clGetEventProfilingInfo(event, what, sizeof ns, &ns, nullptr), "clGetEventProfilingInfo");
    return ns;
}

}  // namespace

Buffer make_buffer(std::size_t bytes) {
    const DeviceProperties& device = device_properties();
    bytes = std::max<std::size_t>(bytes, 1);
    if (bytes > device.max_allocation)
        throw ResourceExhausted("an OpenCL buffer of " + std::to_string(bytes) + " bytes: the device allocates at most " +
                                std::to_string(device.max_allocation) + " in one buffer (CL_DEVICE_MAX_MEM_ALLOC_SIZE)");
    cl_int status = CL_SUCCESS;
    Buffer buffer(clCreateBuffer(context(), CL_MEM_READ_WRITE, bytes, nullptr, &status));
    if (status == CL_OUT_OF_RESOURCES) status = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    check(status, "clCreateBuffer");
    return buffer;
}

Kernel make_kernel(cl_program program, const char* name) {
    cl_int status = CL_SUCCESS;
    Kernel kernel(clCreateKernel(program, name, &status));
    check(status, name);
    return kernel;
}

OpenCLQueue::OpenCLQueue() { open_lanes(1); }

OpenCLQueue::~OpenCLQueue() {
    for (std::size_t lane = 0; lane < opened_; ++lane) clFinish(lanes_[lane]);
    for (Event& first : first_) first.reset();
    fence_.reset();
    for (std::size_t lane = 0; lane < opened_; ++lane) clReleaseCommandQueue(lanes_[lane]);
}

void OpenCLQueue::open_lanes(std::size_t count) {
    for (; opened_ < std::min(count, kLanes); ++opened_) {
        cl_int status = CL_SUCCESS;
        lanes_[opened_] = clCreateCommandQueue(context(), device_properties().device, CL_QUEUE_PROFILING_ENABLE, &status);
        check(status, "clCreateCommandQueue");
    }
}

std::size_t OpenCLQueue::cache_bytes() const {
    const DeviceProperties& device = device_properties();
    return device.is_gpu() ? std::max(device.cache_bytes, kUnreportedCacheFloor) : device.cache_bytes;
}

std::unique_ptr<DeviceQueue::Memory> OpenCLQueue::allocate(std::size_t bytes) {
    auto memory = std::make_unique<ClMemory>(make_buffer(bytes));
    // Drivers allocate on first use: a one-byte fill makes an allocation that cannot be had fail here,
    // as ResourceExhausted, not in the middle of timing.
    const cl_uchar zero = 0;
    cl_int status = clEnqueueFillBuffer(lanes_[0], memory->buffer.get(), &zero, 1, 0, 1, 0, nullptr, nullptr);
    if (status == CL_SUCCESS) status = clFinish(lanes_[0]);
    if (status == CL_OUT_OF_RESOURCES) status = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    check(status, "allocating device memory");
    return memory;
}

// Host memory the driver allocated for a buffer and mapped: pinned where the driver pins (NVIDIA's
// does for CL_MEM_ALLOC_HOST_PTR), so copies from it run at the link's speed.
std::shared_ptr<void> OpenCLQueue::allocate_staging(std::size_t bytes) {
    cl_int status = CL_SUCCESS;
    auto buffer = std::make_shared<Buffer>(clCreateBuffer(context(), CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, nullptr, &status));
    check(status, "clCreateBuffer(CL_MEM_ALLOC_HOST_PTR)");
    void* host = clEnqueueMapBuffer(lanes_[0], buffer->get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &status);
    check(status, "clEnqueueMapBuffer");
    const cl_command_queue queue = lanes_[0];
    clRetainCommandQueue(queue);
    return {host, [buffer, queue](void* p) {
                clEnqueueUnmapMemObject(queue, buffer->get(), p, 0, nullptr, nullptr);
                clFinish(queue);
                clReleaseCommandQueue(queue);
            }};
}

void OpenCLQueue::copy_in(Memory& to, std::size_t offset, const void* from, std::size_t bytes) {
    gather();
    check(clEnqueueWriteBuffer(lanes_[0], buffer_of(to), CL_FALSE, offset, bytes, from, 0, nullptr, slot(0)), "clEnqueueWriteBuffer");
    keep(0);
    copied_ = true;
}

void OpenCLQueue::copy(Memory& to, std::size_t to_offset, const Memory& from, std::size_t from_offset, std::size_t bytes) {
    gather();
    check(clEnqueueCopyBuffer(lanes_[0], buffer_of(from), buffer_of(to), from_offset, to_offset, bytes, 0, nullptr, slot(0)),
          "clEnqueueCopyBuffer");
    keep(0);
    copied_ = true;
}

void OpenCLQueue::launch(const Kernel& kernel, std::size_t groups, std::size_t group_size) {
    const std::size_t global = groups * group_size;
    check(clEnqueueNDRangeKernel(lane_queue(), kernel.get(), 1, nullptr, &global, &group_size, 0, nullptr, slot(lane_)),
          "clEnqueueNDRangeKernel");
    keep(lane_);
}

void OpenCLQueue::read(cl_mem from, std::size_t bytes, void* to) {
    check(clEnqueueReadBuffer(lane_queue(), from, CL_FALSE, 0, bytes, to, 0, nullptr, slot(lane_)), "clEnqueueReadBuffer");
    keep(lane_);
}

void OpenCLQueue::fill_zero(cl_mem buffer, std::size_t bytes) {
    const cl_uchar zero = 0;
    check(clEnqueueFillBuffer(lane_queue(), buffer, &zero, 1, 0, bytes, 0, nullptr, slot(lane_)), "clEnqueueFillBuffer");
    keep(lane_);
}

void OpenCLQueue::use_lane(std::size_t lane) {
    if (lane >= opened_) throw std::logic_error("OpenCL lane " + std::to_string(lane) + " of " + std::to_string(opened_) + " opened");
    lane_ = lane;
}

cl_command_queue OpenCLQueue::lane_queue() {
    if (lane_ == 0) return lanes_[0];
    if (copied_) {
        cl_event marker = nullptr;
        check(clEnqueueMarkerWithWaitList(lanes_[0], 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
        fence_ = Event(marker);
        fenced_.fill(false);
        copied_ = false;
    }
    if (fence_.get() && !fenced_[lane_]) {
        const cl_event fence = fence_.get();
        check(clEnqueueBarrierWithWaitList(lanes_[lane_], 1, &fence, nullptr), "clEnqueueBarrierWithWaitList");
        fenced_[lane_] = true;
    }
    behind_[lane_] = true;
    return lanes_[lane_];
}

void OpenCLQueue::gather() {
    std::vector<Event> markers;
    std::vector<cl_event> waits;
    for (std::size_t lane = 1; lane < opened_; ++lane) {
        if (!behind_[lane]) continue;
        cl_event marker = nullptr;
        check(clEnqueueMarkerWithWaitList(lanes_[lane], 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
        markers.emplace_back(marker);
        waits.push_back(marker);
        behind_[lane] = false;
    }
    if (!waits.empty())
        check(clEnqueueBarrierWithWaitList(lanes_[0], static_cast<cl_uint>(waits.size()), waits.data(), nullptr), "clEnqueueBarrierWithWaitList");
}

void OpenCLQueue::keep(std::size_t lane) {
    if (!pending_) return;
    first_[lane] = Event(pending_);
    pending_ = nullptr;
}

void OpenCLQueue::start_timer() {
    for (Event& first : first_) first.reset();
    timing_ = true;
}

// The region runs from the earliest first command of a lane to the end of a marker on lane 0 after
// every lane's commands (gathered): a marker completes once every command before it has.
double OpenCLQueue::stop_timer() {
    timing_ = false;
    gather();
    cl_event marker = nullptr;
    check(clEnqueueMarkerWithWaitList(lanes_[0], 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
    const Event end(marker);
    for (std::size_t lane = 0; lane < opened_; ++lane) check(clFlush(lanes_[lane]), "clFlush");
    check(clWaitForEvents(1, &marker), "clWaitForEvents");
    cl_ulong start_ns = std::numeric_limits<cl_ulong>::max();
    for (const Event& first : first_)
        if (first.get()) start_ns = std::min(start_ns, profile(first.get(), CL_PROFILING_COMMAND_START));
    if (start_ns == std::numeric_limits<cl_ulong>::max()) throw std::logic_error("an OpenCL timed region with no command in it");
    const cl_ulong end_ns = profile(marker, CL_PROFILING_COMMAND_END);
    if (end_ns < start_ns) throw std::runtime_error("the OpenCL driver's marker ended before the timed region's first command started");
    return static_cast<double>(end_ns - start_ns) * 1e-9;
}

// Every lane idle: nothing is left to order.
void OpenCLQueue::finish() {
    for (std::size_t lane = 0; lane < opened_; ++lane) check(clFinish(lanes_[lane]), "clFinish");
    behind_.fill(false);
    copied_ = false;
    fence_.reset();
}

}  // namespace shootout::opencl
