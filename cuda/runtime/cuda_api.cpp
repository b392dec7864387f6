// Registers the CUDA device API: compiled in every build, so that a build without nvcc still names
// the backends it lacks and why.
#include "api/device_api.hpp"
#include "cuda/runtime/cuda_api.hpp"

#ifdef SHOOTOUT_HAVE_CUDA
#include "cuda/runtime/device.hpp"
#endif

namespace shootout::cuda {
namespace {

[[maybe_unused]] const bool registered = register_device_api({
    .device = kDevice,
    .backend_patterns = {"cuda/*", "nccl/*", "mpi/cuda"},
#ifdef SHOOTOUT_HAVE_CUDA
    .unbuilt = std::nullopt,
    .visible_devices = []() -> std::vector<std::string> {
        if (why_no_device()) return {};
        return std::vector<std::string>(static_cast<std::size_t>(visible_devices()), device_properties().name);
    },
#else
    .unbuilt = "built without CUDA (no nvcc at configure time)",
    .visible_devices = {},
#endif
});

}  // namespace
}  // namespace shootout::cuda
