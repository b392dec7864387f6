// A build without nvcc still lists the CUDA backends, each saying why it cannot run.
#include "backend.hpp"

namespace shootout {
namespace {

bool register_unavailable(const char* name) {
    return register_backend({
        .name = name,
        .device = Device::cuda,
        .description = "CUDA backend; this build has none",
        .timing = Timing::device_events,
        .unavailable_reason = [] { return std::optional<std::string>("built without CUDA (no nvcc at configure time)"); },
        .prepare = [](std::span<const float>, const PrepareOptions&) -> std::unique_ptr<Reduction> {
            throw std::logic_error("a CUDA backend was prepared in a build without CUDA");
        },
    });
}

[[maybe_unused]] const bool registered = [] {
    for (const char* name : {
             "cuda/atomic/grid", "cuda/baseline/copy", "cuda/baseline/read", "cuda/cub",
             "cuda/ladder/01-interleaved-global", "cuda/ladder/02-interleaved-shared", "cuda/ladder/03-branching-global",
             "cuda/ladder/04-branching-shared", "cuda/ladder/05-sequential-global", "cuda/ladder/06-sequential-shared",
             "cuda/ladder/07-first-add-during-load", "cuda/ladder/08-warp-unrolled", "cuda/ladder/09-complete-unroll",
             "cuda/ladder/10-grid-stride", "cuda/ladder/11-vector-loads", "cuda/ladder/12-shuffle-down",
             "cuda/shuffle", "cuda/shuffle-f64", "cuda/shuffle-kahan", "cuda/thrust"})
        register_unavailable(name);
    return true;
}();

}  // namespace
}  // namespace shootout
