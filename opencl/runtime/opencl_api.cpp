// Registers the OpenCL device API: compiled in every build, so that a build without OpenCL still
// names the backends it lacks and why.
#include "api/device_api.hpp"
#include "opencl/runtime/opencl_api.hpp"

#ifdef SHOOTOUT_HAVE_OPENCL
#include "opencl/runtime/device.hpp"
#endif

namespace shootout::opencl {
namespace {

[[maybe_unused]] const bool registered = register_device_api({
    .device = kDevice,
    .backend_patterns = {"opencl/*"},
#ifdef SHOOTOUT_HAVE_OPENCL
    .unbuilt = std::nullopt,
    .visible_devices = visible_devices,
#else
    .unbuilt = "built without OpenCL (no OpenCL headers and ICD loader at configure time: Debian's ocl-icd-opencl-dev "
               "and opencl-c-headers)",
    .visible_devices = {},
#endif
});

}  // namespace
}  // namespace shootout::opencl
