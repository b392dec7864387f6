// The same work as cpu/pool/simd (static parts read in chunks that idle threads take over,
// balanced_chunks.hpp), with threads started and joined on every call: what a pool saves is measured
// against it. Threads are not pinned: the OS places each new one. One that starts late or runs on a
// starved vCPU leaves its part to the others instead of holding up every call (cpu/PERFORMANCE.md).
#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"
#include "cpu/parallel/balanced_chunks.hpp"
#include "cpu/parallel/new_threads.hpp"

namespace shootout {
namespace {

constexpr const char* kName = "cpu/threads/simd";

[[maybe_unused]] const bool registered = register_backend(parallel_backend_in_lanes(
    kName,
    "std::threads started and joined on every call, static parts read in chunks that idle threads take over, widest SIMD "
    "double-lane kernel (float lanes for 16-bit input)",
    kStaticChunks(Accumulator::f64), [](auto input, int threads) {
        using T = typename decltype(input)::value_type;
        return make_chunked_reduction<NewThreads>(input, threads, simd::best().lanes_of<T>(), kName);
    }));

}  // namespace
}  // namespace shootout
