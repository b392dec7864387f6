// Threads + SIMD at their best: a persistent thread pool, started in prepare, each thread summing
// its static chunk with the widest float->double kernel.
#include "host_backend.hpp"
#include "pool_reduction.hpp"
#include "simd_kernels.hpp"

namespace shootout {
namespace {

[[maybe_unused]] const bool registered = register_backend(parallel_backend(
    "cpu/pool/simd",
    "persistent pinned thread pool, static chunks, widest SIMD float->double kernel per thread (AVX-512, AVX2, SVE, NEON or portable)",
    kStaticChunks(Accumulator::f64),
    [](std::span<const float> input, int threads) { return make_pool_reduction(input, threads, simd::best().sum_f64); }));

}  // namespace
}  // namespace shootout
