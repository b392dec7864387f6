// Threads + SIMD at their best: a persistent pinned thread pool, started in prepare, each thread
// summing its static part with the widest double-lane kernel (floats widened, doubles as they are),
// in chunks that idle threads take over from a slow one (balanced_chunks.hpp).
#include "cpu/parallel/balanced_chunks.hpp"
#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

[[maybe_unused]] const bool registered = register_backend(parallel_backend<float, double>(
    "cpu/pool/simd",
    "persistent pinned thread pool, static parts read in chunks that idle threads take over, widest SIMD double-lane kernel, floats widened (AVX-512, AVX2, SVE, NEON or portable)",
    kStaticChunks(Accumulator::f64), [](auto input, int threads) {
        using T = typename decltype(input)::value_type;
        return make_chunked_reduction(input, threads, simd::best().sum_f64_of<T>());
    }));

}  // namespace
}  // namespace shootout
