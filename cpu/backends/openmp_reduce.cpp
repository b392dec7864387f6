// OpenMP: the textbook reduction clause on floats, and one team running the SIMD kernel.
//
// Placement is OpenMP's: OMP_PLACES / OMP_PROC_BIND from the environment, read when the runtime
// starts; the published sweeps leave them unset. With OMP_PROC_BIND set, libgomp's idle threads keep
// spinning on their cores after each region (measured: oneTBB and std::thread backends run after it
// at half speed on 2 cores, at one core's speed on 16), so bind only when measuring OpenMP alone
// (--backend=cpu/openmp/*).
#include <omp.h>

#include <stdexcept>
#include <string>

#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"
#include "cpu/parallel/static_chunks.hpp"

namespace shootout {
namespace {

// Dynamic adjustment off, so a team of `threads` is exactly `threads` strong (the runtime may
// otherwise hand out fewer); checked, because a smaller team under this name would be a lie in the CSV.
void require_full_team(const char* backend, int threads) {
    omp_set_dynamic(0);
    int team = 0;
#pragma omp parallel num_threads(threads)
    {
#pragma omp single
        team = omp_get_num_threads();
    }
    if (team != threads)
        throw std::runtime_error(std::string(backend) + ": omp parallel num_threads(" + std::to_string(threads) +
                                 ") gave a team of " + std::to_string(team));
}

// #pragma omp parallel for reduction(+ : sum) on a float, static schedule: each thread adds its
// contiguous range into a private float, one element at a time (no reassociation is allowed, so
// no vectorisation), and the runtime adds the private sums in an unspecified order.
float sum_reduction_clause(std::span<const float> x, int threads) {
    const float* data = x.data();
    const std::size_t n = x.size();
    float sum = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : sum)
    for (std::size_t i = 0; i < n; ++i) sum += data[i];
    return sum;
}

// The input copied in static chunks, OpenMP thread k taking chunk k: the contiguous ranges that the
// team's thread k reads in both backends here (libgomp keeps its team's threads from one parallel
// region to the next). schedule(static)'s ranges start at n/T rather than on a cache line, a
// difference of under one line per thread.
PlacedInput placed_by_team(std::span<const float> input, int threads) {
    return PlacedInput(input, threads, [threads](auto& copy_part) {
#pragma omp parallel num_threads(threads)
        copy_part(omp_get_thread_num());
    });
}

double sum_simd_team(std::span<const float> x, PartialSums& partials, simd::SumToDouble kernel) {
#pragma omp parallel num_threads(partials.size())
    sum_chunk(x, partials, omp_get_thread_num(), kernel);
    return partials.total();
}

[[maybe_unused]] const bool registered_reduction = register_backend(parallel_backend(
    "cpu/openmp/reduction", "#pragma omp parallel for reduction(+ : sum) on a float, static schedule (the seed's)",
    // The runtime adds the private sums in the order the threads arrive.
    Traits{.accumulator = Accumulator::f32, .order = Order::thread_chunks, .reproducibility = Reproducibility::none},
    [](std::span<const float> input, int threads) {
        require_full_team("cpu/openmp/reduction", threads);
        return make_placed_reduction(placed_by_team(input, threads),
                                     [threads](std::span<const float> x) { return sum_reduction_clause(x, threads); });
    }));
[[maybe_unused]] const bool registered_simd = register_backend(parallel_backend(
    "cpu/openmp/simd", "one OpenMP team, omp_set_dynamic(0), each thread the widest SIMD float->double kernel on its static chunk",
    kStaticChunks(Accumulator::f64),
    [](std::span<const float> input, int threads) {
        require_full_team("cpu/openmp/simd", threads);
        return make_placed_reduction(placed_by_team(input, threads), [partials = PartialSums(threads), kernel = simd::best().sum_f64](
                                                                         std::span<const float> x) mutable {
            return sum_simd_team(x, partials, kernel);
        });
    }));

}  // namespace
}  // namespace shootout
