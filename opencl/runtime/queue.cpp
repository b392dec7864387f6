#include "opencl/runtime/queue.hpp"

#include <algorithm>
#include <string>

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

OpenCLQueue::OpenCLQueue() {
    cl_int status = CL_SUCCESS;
    queue_ = clCreateCommandQueue(context(), device_properties().device, CL_QUEUE_PROFILING_ENABLE, &status);
    check(status, "clCreateCommandQueue");
}

OpenCLQueue::~OpenCLQueue() {
    clFinish(queue_);
    first_.reset();
    clReleaseCommandQueue(queue_);
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
    cl_int status = clEnqueueFillBuffer(queue_, memory->buffer.get(), &zero, 1, 0, 1, 0, nullptr, nullptr);
    if (status == CL_SUCCESS) status = clFinish(queue_);
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
    void* host = clEnqueueMapBuffer(queue_, buffer->get(), CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, 0, nullptr, nullptr, &status);
    check(status, "clEnqueueMapBuffer");
    const cl_command_queue queue = queue_;
    clRetainCommandQueue(queue);
    return {host, [buffer, queue](void* p) {
                clEnqueueUnmapMemObject(queue, buffer->get(), p, 0, nullptr, nullptr);
                clFinish(queue);
                clReleaseCommandQueue(queue);
            }};
}

void OpenCLQueue::copy_in(Memory& to, std::size_t offset, const void* from, std::size_t bytes) {
    check(clEnqueueWriteBuffer(queue_, buffer_of(to), CL_FALSE, offset, bytes, from, 0, nullptr, slot()), "clEnqueueWriteBuffer");
    keep();
}

void OpenCLQueue::copy(Memory& to, std::size_t to_offset, const Memory& from, std::size_t from_offset, std::size_t bytes) {
    check(clEnqueueCopyBuffer(queue_, buffer_of(from), buffer_of(to), from_offset, to_offset, bytes, 0, nullptr, slot()),
          "clEnqueueCopyBuffer");
    keep();
}

void OpenCLQueue::launch(const Kernel& kernel, std::size_t groups, std::size_t group_size) {
    const std::size_t global = groups * group_size;
    check(clEnqueueNDRangeKernel(queue_, kernel.get(), 1, nullptr, &global, &group_size, 0, nullptr, slot()),
          "clEnqueueNDRangeKernel");
    keep();
}

void OpenCLQueue::read(cl_mem from, std::size_t bytes, void* to) {
    check(clEnqueueReadBuffer(queue_, from, CL_FALSE, 0, bytes, to, 0, nullptr, slot()), "clEnqueueReadBuffer");
    keep();
}

void OpenCLQueue::fill_zero(cl_mem buffer, std::size_t bytes) {
    const cl_uchar zero = 0;
    check(clEnqueueFillBuffer(queue_, buffer, &zero, 1, 0, bytes, 0, nullptr, slot()), "clEnqueueFillBuffer");
    keep();
}

void OpenCLQueue::keep() {
    if (!pending_) return;
    first_ = Event(pending_);
    pending_ = nullptr;
}

void OpenCLQueue::start_timer() {
    first_.reset();
    timing_ = true;
}

// The region runs from its first command's start to the end of a marker after its last command: a
// marker completes once every command before it has (in-order queue).
double OpenCLQueue::stop_timer() {
    timing_ = false;
    if (!first_.get()) throw std::logic_error("an OpenCL timed region with no command in it");
    cl_event marker = nullptr;
    check(clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &marker), "clEnqueueMarkerWithWaitList");
    const Event end(marker);
    check(clWaitForEvents(1, &marker), "clWaitForEvents");
    const cl_ulong start_ns = profile(first_.get(), CL_PROFILING_COMMAND_START), end_ns = profile(marker, CL_PROFILING_COMMAND_END);
    if (end_ns < start_ns) throw std::runtime_error("the OpenCL driver's marker ended before the timed region's first command started");
    return static_cast<double>(end_ns - start_ns) * 1e-9;
}

void OpenCLQueue::finish() { check(clFinish(queue_), "clFinish"); }

}  // namespace shootout::opencl
