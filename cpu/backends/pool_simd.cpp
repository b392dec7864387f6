// Threads + SIMD at their best: a persistent pinned thread pool, started in prepare, each thread
// summing its static part with the widest double-lane kernel (floats widened, doubles as they are;
// float lanes for float16 and bfloat16, widened), in chunks that idle threads take over from a slow
// one (balanced_chunks.hpp).
#include "cpu/parallel/balanced_chunks.hpp"
#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

[[maybe_unused]] const bool registered = register_backend(parallel_backend_in_lanes(
    "cpu/pool/simd",
    "persistent pinned thread pool, static parts read in chunks that idle threads take over, widest SIMD double-lane kernel, floats widened (float lanes for 16-bit input; AVX-512, AVX2, SVE, NEON or portable)",
    kStaticChunks(Accumulator::f64), [](auto input, int threads) {
        using T = typename decltype(input)::value_type;
        return make_chunked_reduction(input, threads, simd::best().lanes_of<T>());
    }));

}  // namespace
}  // namespace shootout
