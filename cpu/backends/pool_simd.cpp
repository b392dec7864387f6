// Threads + SIMD at their best: a persistent pinned thread pool, started in prepare, each thread
// summing its static part with the widest float->double kernel, in chunks that idle threads take
// over from a slow one (balanced_chunks.hpp).
#include "cpu/parallel/balanced_chunks.hpp"
#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

[[maybe_unused]] const bool registered = register_backend(parallel_backend(
    "cpu/pool/simd",
    "persistent pinned thread pool, static parts read in chunks that idle threads take over, widest SIMD float->double kernel (AVX-512, AVX2, SVE, NEON or portable)",
    kStaticChunks(Accumulator::f64),
    [](std::span<const float> input, int threads) { return make_chunked_reduction(input, threads, simd::best().sum_f64); }));

}  // namespace
}  // namespace shootout
