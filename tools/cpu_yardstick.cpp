// The yardstick for the CPU kernels: the plainest loops a reader would write for each instruction
// set and accumulator, registered beside the product backends in a program of their own
// (cpu_yardstick: accumulate_bench's front end, the same harness and rules), so that
//     cpu_yardstick --backend='yardstick/*,cpu/avx512/*' --threads=1 --sizes=2^12..2^30
// measures both side by side, interleaved, warm, each on its own placed copy of the input.
//
// Every loop: A independent vector accumulators over full blocks, ordinary unaligned loads, no
// software prefetch, no unit tricks; the rest one vector at a time into accumulator 0, then one
// element at a time. Each is written out with its instruction set's intrinsics in a function of that
// target alone (gnu::target), so an AVX2 loop gets AVX2's 16 registers and encodings. Nothing here
// is a product backend: these names exist in this program only, and the read ceiling
// (cpu/baseline/read) does not know them.
#include <immintrin.h>

#include <cstddef>
#include <span>
#include <string>

#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"
#include "cpu/parallel/new_threads.hpp"
#include "cpu/parallel/static_chunks.hpp"

namespace shootout {
namespace {

// ---- AVX-512: 16 float or 8 double lanes.

// The masked conversion with every lane selected: GCC 12's _mm512_cvtps_pd (and its reduce_add
// helpers) trip -Wmaybe-uninitialized on their _mm512_undefined_*(); this is the same vcvtps2pd.
[[gnu::target("avx512f")]] __m512d widen(__m256 v) { return _mm512_maskz_cvtps_pd(0xFF, v); }

[[gnu::target("avx512f")]] float horizontal_sum(__m512 v) {
    alignas(64) float lane[16];
    _mm512_store_ps(lane, v);
    float sum = 0;
    for (float l : lane) sum += l;
    return sum;
}

[[gnu::target("avx512f")]] double horizontal_sum(__m512d v) {
    alignas(64) double lane[8];
    _mm512_store_pd(lane, v);
    double sum = 0;
    for (double l : lane) sum += l;
    return sum;
}

template <int A>
[[gnu::target("avx512f")]] float avx512_f32(const float* x, std::size_t n) {
    __m512 acc[A];
    for (auto& a : acc) a = _mm512_setzero_ps();
    std::size_t i = 0;
    for (; i + 16 * A <= n; i += 16 * A)
#pragma GCC unroll 16
        for (int a = 0; a < A; ++a) acc[a] = _mm512_add_ps(acc[a], _mm512_loadu_ps(x + i + 16 * a));
    for (; i + 16 <= n; i += 16) acc[0] = _mm512_add_ps(acc[0], _mm512_loadu_ps(x + i));
#pragma GCC unroll 16
    for (int a = 1; a < A; ++a) acc[0] = _mm512_add_ps(acc[0], acc[a]);
    float sum = horizontal_sum(acc[0]);
    for (; i < n; ++i) sum += x[i];
    return sum;
}

template <int A>
[[gnu::target("avx512f")]] double avx512_f64(const float* x, std::size_t n) {
    __m512d acc[A];
    for (auto& a : acc) a = _mm512_setzero_pd();
    std::size_t i = 0;
    for (; i + 8 * A <= n; i += 8 * A)
#pragma GCC unroll 16
        for (int a = 0; a < A; ++a) acc[a] = _mm512_add_pd(acc[a], widen(_mm256_loadu_ps(x + i + 8 * a)));
    for (; i + 8 <= n; i += 8) acc[0] = _mm512_add_pd(acc[0], widen(_mm256_loadu_ps(x + i)));
#pragma GCC unroll 16
    for (int a = 1; a < A; ++a) acc[0] = _mm512_add_pd(acc[0], acc[a]);
    double sum = horizontal_sum(acc[0]);
    for (; i < n; ++i) sum += x[i];
    return sum;
}

// Kahan in every lane; the lanes' sums and compensations added in double at the end.
template <int A>
[[gnu::target("avx512f")]] float avx512_kahan(const float* x, std::size_t n) {
    __m512 sum[A], compensation[A];
    for (int a = 0; a < A; ++a) sum[a] = compensation[a] = _mm512_setzero_ps();
    std::size_t i = 0;
    for (; i + 16 * A <= n; i += 16 * A)
#pragma GCC unroll 16
        for (int a = 0; a < A; ++a) {
            const __m512 y = _mm512_sub_ps(_mm512_loadu_ps(x + i + 16 * a), compensation[a]);
            const __m512 t = _mm512_add_ps(sum[a], y);
            compensation[a] = _mm512_sub_ps(_mm512_sub_ps(t, sum[a]), y);
            sum[a] = t;
        }
    double total = 0;
    for (int a = 0; a < A; ++a) {
        alignas(64) float s[16], c[16];
        _mm512_store_ps(s, sum[a]);
        _mm512_store_ps(c, compensation[a]);
        for (int l = 0; l < 16; ++l) total += double{s[l]} - double{c[l]};
    }
    for (; i < n; ++i) total += x[i];
    return static_cast<float>(total);
}

// ---- AVX2: 8 float or 4 double lanes.

[[gnu::target("avx2")]] float horizontal_sum(__m256 v) {
    alignas(32) float lane[8];
    _mm256_store_ps(lane, v);
    return ((lane[0] + lane[4]) + (lane[1] + lane[5])) + ((lane[2] + lane[6]) + (lane[3] + lane[7]));
}

[[gnu::target("avx2")]] double horizontal_sum(__m256d v) {
    alignas(32) double lane[4];
    _mm256_store_pd(lane, v);
    return (lane[0] + lane[2]) + (lane[1] + lane[3]);
}

template <int A>
[[gnu::target("avx2")]] float avx2_f32(const float* x, std::size_t n) {
    __m256 acc[A];
    for (auto& a : acc) a = _mm256_setzero_ps();
    std::size_t i = 0;
    for (; i + 8 * A <= n; i += 8 * A)
#pragma GCC unroll 16
        for (int a = 0; a < A; ++a) acc[a] = _mm256_add_ps(acc[a], _mm256_loadu_ps(x + i + 8 * a));
    for (; i + 8 <= n; i += 8) acc[0] = _mm256_add_ps(acc[0], _mm256_loadu_ps(x + i));
#pragma GCC unroll 16
    for (int a = 1; a < A; ++a) acc[0] = _mm256_add_ps(acc[0], acc[a]);
    float sum = horizontal_sum(acc[0]);
    for (; i < n; ++i) sum += x[i];
    return sum;
}

template <int A>
[[gnu::target("avx2")]] double avx2_f64(const float* x, std::size_t n) {
    __m256d acc[A];
    for (auto& a : acc) a = _mm256_setzero_pd();
    std::size_t i = 0;
    for (; i + 4 * A <= n; i += 4 * A)
#pragma GCC unroll 16
        for (int a = 0; a < A; ++a) acc[a] = _mm256_add_pd(acc[a], _mm256_cvtps_pd(_mm_loadu_ps(x + i + 4 * a)));
    for (; i + 4 <= n; i += 4) acc[0] = _mm256_add_pd(acc[0], _mm256_cvtps_pd(_mm_loadu_ps(x + i)));
#pragma GCC unroll 16
    for (int a = 1; a < A; ++a) acc[0] = _mm256_add_pd(acc[0], acc[a]);
    double sum = horizontal_sum(acc[0]);
    for (; i < n; ++i) sum += x[i];
    return sum;
}

template <int A>
[[gnu::target("avx2")]] float avx2_kahan(const float* x, std::size_t n) {
    __m256 sum[A], compensation[A];
    for (int a = 0; a < A; ++a) sum[a] = compensation[a] = _mm256_setzero_ps();
    std::size_t i = 0;
    for (; i + 8 * A <= n; i += 8 * A)
#pragma GCC unroll 16
        for (int a = 0; a < A; ++a) {
            const __m256 y = _mm256_sub_ps(_mm256_loadu_ps(x + i + 8 * a), compensation[a]);
            const __m256 t = _mm256_add_ps(sum[a], y);
            compensation[a] = _mm256_sub_ps(_mm256_sub_ps(t, sum[a]), y);
            sum[a] = t;
        }
    double total = 0;
    for (int a = 0; a < A; ++a) total += double{horizontal_sum(sum[a])} - double{horizontal_sum(compensation[a])};
    for (; i < n; ++i) total += x[i];
    return static_cast<float>(total);
}

// ---- Registration: yardstick/ISA/ACCUMULATOR-A, the traits of the product kernel it measures.

using FloatLoop = float (*)(const float*, std::size_t);
using DoubleLoop = double (*)(const float*, std::size_t);

template <class Loop>
void register_loop(const std::string& name, const std::string& description, Accumulator accumulator, Loop loop,
                   UnavailableReason unavailable) {
    register_backend(serial_backend<float>("yardstick/" + name, description, kSerial(accumulator, Order::lanes),
                                           [loop](const float* x, std::size_t n) { return loop(x, n); }, unavailable));
}

template <int... A>
void register_accumulator_counts() {
    (register_loop("avx512/f32-" + std::to_string(A), "plain AVX-512 float lanes", Accumulator::f32, FloatLoop{avx512_f32<A>},
                   simd::avx512_unavailable),
     ...);
    (register_loop("avx512/f64-" + std::to_string(A), "plain AVX-512 double lanes, floats widened", Accumulator::f64,
                   DoubleLoop{avx512_f64<A>}, simd::avx512_unavailable),
     ...);
    (register_loop("avx512/kahan-" + std::to_string(A), "plain AVX-512 Kahan float lanes", Accumulator::compensated_f32,
                   FloatLoop{avx512_kahan<A>}, simd::avx512_unavailable),
     ...);
    (register_loop("avx2/f32-" + std::to_string(A), "plain AVX2 float lanes", Accumulator::f32, FloatLoop{avx2_f32<A>},
                   simd::avx2_unavailable),
     ...);
    (register_loop("avx2/f64-" + std::to_string(A), "plain AVX2 double lanes, floats widened", Accumulator::f64,
                   DoubleLoop{avx2_f64<A>}, simd::avx2_unavailable),
     ...);
    (register_loop("avx2/kahan-" + std::to_string(A), "plain AVX2 Kahan float lanes", Accumulator::compensated_f32,
                   FloatLoop{avx2_kahan<A>}, simd::avx2_unavailable),
     ...);
}

// Threads as cpu/threads/simd starts them (new_threads.hpp), each summing its static chunk with a
// plain loop.
template <class Loop>
void register_threaded(const std::string& name, const std::string& description, Accumulator accumulator, Loop loop) {
    register_backend(parallel_backend<float>(
        "yardstick/threads/" + name, description, kStaticChunks(accumulator),
        [loop](std::span<const float> input, int threads) {
            PlacedInput placed(input, threads, [threads](auto& copy_part) { run_on_new_threads("yardstick/threads", threads, copy_part); });
            return make_placed_reduction(std::move(placed), [partials = PartialSums(threads), loop](std::span<const float> x) mutable {
                auto sum_part = [&](int part) { sum_chunk(x, partials, part, loop); };
                run_on_new_threads("yardstick/threads", partials.size(), sum_part);
                return partials.total();
            });
        },
        simd::avx512_unavailable));
}

[[maybe_unused]] const bool registered = [] {
    register_accumulator_counts<4, 8>();
    register_threaded("avx512/f32-4", "std::threads started on every call, static chunks, plain AVX-512 float lanes",
                      Accumulator::f32, FloatLoop{avx512_f32<4>});
    register_threaded("avx512/f64-8", "std::threads started on every call, static chunks, plain AVX-512 double lanes",
                      Accumulator::f64, DoubleLoop{avx512_f64<8>});
    return true;
}();

}  // namespace
}  // namespace shootout
