#include "opencl/runtime/device.hpp"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "opencl/runtime/kernel_sources.hpp"
#include "opencl/runtime/opencl_api.hpp"

namespace shootout::opencl {
namespace {

template <class T>
T info(cl_device_id device, cl_device_info what) {
    T value{};
    check(clGetDeviceInfo(device, what, sizeof value, &value, nullptr), "clGetDeviceInfo");
    return value;
}

template <class Get, class Object, class What>
std::string text(Get get, Object object, What what) {
    std::size_t size = 0;
    check(get(object, what, 0, nullptr, &size), "clGet*Info");
    std::string s(size, '\0');
    check(get(object, what, size, s.data(), nullptr), "clGet*Info");
    while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
    return s;
}

std::vector<cl_platform_id> platforms() {
    cl_uint count = 0;
    const cl_int status = clGetPlatformIDs(0, nullptr, &count);
    if (status == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (status == CL_SUCCESS && count == 0)) return {};
    check(status, "clGetPlatformIDs");
    std::vector<cl_platform_id> list(count);
    check(clGetPlatformIDs(count, list.data(), nullptr), "clGetPlatformIDs");
    return list;
}

std::vector<cl_device_id> devices(cl_platform_id platform, cl_device_type type) {
    cl_uint count = 0;
    const cl_int status = clGetDeviceIDs(platform, type, 0, nullptr, &count);
    if (status == CL_DEVICE_NOT_FOUND || count == 0) return {};
    check(status, "clGetDeviceIDs");
    std::vector<cl_device_id> list(count);
    check(clGetDeviceIDs(platform, type, count, list.data(), nullptr), "clGetDeviceIDs");
    return list;
}

DeviceProperties properties_of(cl_platform_id platform, cl_device_id device) {
    DeviceProperties p;
    p.platform = platform;
    p.device = device;
    p.name = text(clGetDeviceInfo, device, CL_DEVICE_NAME);
    p.platform_name = text(clGetPlatformInfo, platform, CL_PLATFORM_NAME);
    p.device_version = text(clGetDeviceInfo, device, CL_DEVICE_VERSION);
    p.driver_version = text(clGetDeviceInfo, device, CL_DRIVER_VERSION);
    p.c_version = text(clGetDeviceInfo, device, CL_DEVICE_OPENCL_C_VERSION);
    p.extensions = text(clGetDeviceInfo, device, CL_DEVICE_EXTENSIONS);
    p.type = info<cl_device_type>(device, CL_DEVICE_TYPE);
    p.compute_units = info<cl_uint>(device, CL_DEVICE_MAX_COMPUTE_UNITS);
    p.max_work_group = info<std::size_t>(device, CL_DEVICE_MAX_WORK_GROUP_SIZE);
    p.max_allocation = static_cast<std::size_t>(info<cl_ulong>(device, CL_DEVICE_MAX_MEM_ALLOC_SIZE));
    p.cache_bytes = static_cast<std::size_t>(info<cl_ulong>(device, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE));
    p.cache_line = std::max<cl_uint>(info<cl_uint>(device, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE), 16);
    // "OpenCL C <major>.<minor> <vendor text>"
    if (std::sscanf(p.c_version.c_str(), "OpenCL C %d.%d", &p.c_major, &p.c_minor) != 2) p.c_major = 1, p.c_minor = 2;
    return p;
}

// The chosen device, or why there is none: GPUs first, then accelerators, then any device.
struct Found {
    std::optional<DeviceProperties> properties;
    std::string why_not;
    cl_context context = nullptr;
};

const Found& found() {
    static const Found instance = [] {
        Found f;
        try {
            const auto all = platforms();
            if (all.empty()) {
                f.why_not = "no OpenCL platform: the ICD loader found no driver (none listed in /etc/OpenCL/vendors/*.icd, "
                            "or OCL_ICD_VENDORS names none)";
                return f;
            }
            for (cl_device_type type : {cl_device_type{CL_DEVICE_TYPE_GPU}, cl_device_type{CL_DEVICE_TYPE_ACCELERATOR},
                                        cl_device_type{CL_DEVICE_TYPE_ALL}}) {
                for (cl_platform_id platform : all) {
                    const auto list = devices(platform, type);
                    if (list.empty()) continue;
                    f.properties = properties_of(platform, list.front());
                    break;
                }
                if (f.properties) break;
            }
            if (!f.properties) {
                f.why_not = "no OpenCL device: " + std::to_string(all.size()) + " platform(s), none with a device";
                return f;
            }
            if (!info<cl_bool>(f.properties->device, CL_DEVICE_COMPILER_AVAILABLE)) {
                f.why_not = "the OpenCL device " + f.properties->name + " has no compiler, and the kernels are built from source";
                f.properties.reset();
                return f;
            }
            cl_int status = CL_SUCCESS;
            f.context = clCreateContext(nullptr, 1, &f.properties->device, nullptr, nullptr, &status);
            check(status, "clCreateContext");
        } catch (const std::exception& e) {
            f.properties.reset();
            f.why_not = std::string("OpenCL: ") + e.what();
        }
        return f;
    }();
    return instance;
}

std::string type_name(cl_device_type type) {
    if (type & CL_DEVICE_TYPE_GPU) return "GPU";
    if (type & CL_DEVICE_TYPE_CPU) return "CPU device, not a GPU";
    if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "device";
}

}  // namespace

bool DeviceProperties::has_extension(std::string_view name) const {
    std::istringstream words(extensions);
    for (std::string word; words >> word;)
        if (word == name) return true;
    return false;
}

std::optional<std::string> why_no_device() {
    if (found().properties) return std::nullopt;
    return found().why_not;
}

const DeviceProperties& device_properties() {
    if (!found().properties) throw std::runtime_error(found().why_not);
    return *found().properties;
}

cl_context context() {
    device_properties();
    return found().context;
}

std::string describe() {
    const DeviceProperties& p = device_properties();
    return p.name + " [" + type_name(p.type) + "; platform " + p.platform_name + "; " + p.device_version + "; driver " +
           p.driver_version + "]";
}

DeviceInfo device_info() { return {.name = describe(), .peak_gbps = 0, .visible = 1}; }

// CPU devices (PoCL's) are left out: the fingerprint counts the host's CPUs already, and installing
// a CPU driver does not change the machine.
std::vector<std::string> visible_devices() {
    std::vector<std::string> names;
    try {
        for (cl_platform_id platform : platforms())
            for (cl_device_id device : devices(platform, CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR))
                names.push_back(text(clGetDeviceInfo, device, CL_DEVICE_NAME));
    } catch (const std::exception&) {
        return {};  // a broken driver shows in the backends' reasons; the fingerprint counts what it can
    }
    return names;
}

cl_program program(std::string_view source, const std::string& options) {
    static std::mutex mutex;
    static std::map<std::pair<std::string, std::string>, cl_program> built;
    const std::lock_guard lock(mutex);
    const auto key = std::make_pair(std::string(source), options);
    if (const auto it = built.find(key); it != built.end()) return it->second;

    const DeviceProperties& device = device_properties();
    const std::string_view code = kernel_source(source);
    const char* text_ptr = code.data();
    const std::size_t length = code.size();
    cl_int status = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(context(), 1, &text_ptr, &length, &status);
    check(status, "clCreateProgramWithSource");
    status = clBuildProgram(p, 1, &device.device, options.c_str(), nullptr, nullptr);
    if (status != CL_SUCCESS) {
        std::string log;
        try {
            log = text([](cl_program q, cl_program_build_info what, std::size_t size, void* value, std::size_t* size_ret) {
                return clGetProgramBuildInfo(q, device_properties().device, what, size, value, size_ret);
            }, p, CL_PROGRAM_BUILD_LOG);
        } catch (const std::exception&) {
        }
        clReleaseProgram(p);
        throw std::runtime_error("building OpenCL program " + std::string(source) + " (" + options + ") failed with " +
                                 error_name(status) + ":\n" + log);
    }
    return built.emplace(key, p).first->second;
}

std::string error_name(cl_int code) {
    static const std::map<cl_int, const char*> names = {
        {CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND"},
        {CL_DEVICE_NOT_AVAILABLE, "CL_DEVICE_NOT_AVAILABLE"},
        {CL_COMPILER_NOT_AVAILABLE, "CL_COMPILER_NOT_AVAILABLE"},
        {CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
        {CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES"},
        {CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY"},
        {CL_PROFILING_INFO_NOT_AVAILABLE, "CL_PROFILING_INFO_NOT_AVAILABLE"},
        {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE"},
        {CL_MISALIGNED_SUB_BUFFER_OFFSET, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
        {CL_INVALID_VALUE, "CL_INVALID_VALUE"},
        {CL_INVALID_DEVICE, "CL_INVALID_DEVICE"},
        {CL_INVALID_CONTEXT, "CL_INVALID_CONTEXT"},
        {CL_INVALID_COMMAND_QUEUE, "CL_INVALID_COMMAND_QUEUE"},
        {CL_INVALID_MEM_OBJECT, "CL_INVALID_MEM_OBJECT"},
        {CL_INVALID_BUILD_OPTIONS, "CL_INVALID_BUILD_OPTIONS"},
        {CL_INVALID_PROGRAM_EXECUTABLE, "CL_INVALID_PROGRAM_EXECUTABLE"},
        {CL_INVALID_KERNEL_NAME, "CL_INVALID_KERNEL_NAME"},
        {CL_INVALID_KERNEL_ARGS, "CL_INVALID_KERNEL_ARGS"},
        {CL_INVALID_ARG_INDEX, "CL_INVALID_ARG_INDEX"},
        {CL_INVALID_ARG_SIZE, "CL_INVALID_ARG_SIZE"},
        {CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE"},
        {CL_INVALID_WORK_ITEM_SIZE, "CL_INVALID_WORK_ITEM_SIZE"},
        {CL_INVALID_GLOBAL_WORK_SIZE, "CL_INVALID_GLOBAL_WORK_SIZE"},
        {CL_INVALID_EVENT, "CL_INVALID_EVENT"},
        {CL_INVALID_BUFFER_SIZE, "CL_INVALID_BUFFER_SIZE"},
        {CL_INVALID_OPERATION, "CL_INVALID_OPERATION"},
        {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    };
    const auto it = names.find(code);
    return it != names.end() ? it->second : "OpenCL error " + std::to_string(code);
}

void check(cl_int code, const char* what) {
    if (code == CL_SUCCESS) return;
    const std::string message = std::string(what) + " failed: " + error_name(code);
    if (code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_HOST_MEMORY || code == CL_INVALID_BUFFER_SIZE)
        throw ResourceExhausted(message);
    throw std::runtime_error(message);
}

}  // namespace shootout::opencl
