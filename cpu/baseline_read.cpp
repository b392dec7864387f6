// The machine's read ceiling, against which every parallel CPU row is judged: the pool's threads
// stream their chunks with the lightest kernel that still reads every byte, wide float adds into
// 8 independent vector accumulators, so nothing but memory limits it. Its result is that float-lane
// sum (per-thread partials added in double), compared with the exact sum like every other row.
#include "host_backend.hpp"
#include "pool_reduction.hpp"
#include "simd_kernels.hpp"

namespace shootout {
namespace {

[[maybe_unused]] const bool registered = register_backend(parallel_backend(
    "cpu/baseline/read",
    "read ceiling: pinned thread pool streaming static chunks with the widest float-lane kernel (8 vector accumulators)",
    kStaticChunks(Accumulator::f32, Role::ceiling),
    [](std::span<const float> input, int threads) { return make_pool_reduction(input, threads, simd::best().sum_f32); }));

}  // namespace
}  // namespace shootout
