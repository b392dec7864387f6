// OpenMP: the textbook reduction clause (on a float, or a double for float64 input), and one team
// running the SIMD kernel.
//
// Placement is OpenMP's: OMP_PLACES / OMP_PROC_BIND from the environment, read when the runtime
// starts; the published sweeps leave them unset. With OMP_PROC_BIND set, libgomp's idle threads keep
// spinning on their cores after each region (measured: oneTBB and std::thread backends run after it
// at half speed on 2 cores, at one core's speed on 16), so bind only when measuring OpenMP alone
// (--backend=cpu/openmp/*).
#include <omp.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"
#include "cpu/parallel/static_chunks.hpp"
#include "cpu/parallel/thread_headroom.hpp"

namespace shootout {
namespace {

// The team of one prepared case. Dynamic adjustment off, so a team of `threads` is exactly `threads`
// strong (the runtime may otherwise hand out fewer); checked, because a smaller team under this name
// would be a lie in the CSV. The threads are asked for first: libgomp exits the process when one will
// not start (a process limit). libgomp keeps a team's threads after it; they are let go with the
// case, so that no idle team holds threads that another backend's case needs.
class OpenMpTeam {
public:
    OpenMpTeam(const char* backend, int threads) {
        omp_set_dynamic(0);
        require_threads(backend, threads);
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
    OpenMpTeam(OpenMpTeam&& other) noexcept : owner_(std::exchange(other.owner_, false)) {}
    OpenMpTeam& operator=(OpenMpTeam&&) = delete;
    ~OpenMpTeam() {
        if (owner_) omp_pause_resource_all(omp_pause_hard);
    }

private:
    bool owner_ = true;
};

// #pragma omp parallel for reduction(+ : sum) on a float (a double for float64 input; 16-bit input
// widened), static schedule: each thread adds its contiguous range into a private sum, one element
// at a time (no reassociation is allowed, so no vectorisation), and the runtime adds the private
// sums in an unspecified order.
template <class T>
ArithmeticOf<T> sum_reduction_clause(std::span<const T> x, int threads) {
    const T* data = x.data();
    const std::size_t n = x.size();
    ArithmeticOf<T> sum = 0;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : sum)
    for (std::size_t i = 0; i < n; ++i) sum += data[i];
    return sum;
}

// The input copied in static chunks, OpenMP thread k taking chunk k: the contiguous ranges that the
// team's thread k reads in both backends here (libgomp keeps its team's threads from one parallel
// region to the next). schedule(static)'s ranges start at n/T rather than on a cache line, a
// difference of under one line per thread.
template <class T>
PlacedInputOf<T> placed_by_team(std::span<const T> input, int threads) {
    return PlacedInputOf<T>(input, threads, [threads](auto& copy_part) {
#pragma omp parallel num_threads(threads)
        copy_part(omp_get_thread_num());
    });
}

template <class T, class Kernel>
double sum_simd_team(std::span<const T> x, PartialSums& partials, Kernel kernel) {
#pragma omp parallel num_threads(partials.size())
    sum_chunk(x, partials, omp_get_thread_num(), kernel);
    return partials.total();
}

Backend reduction_clause_backend() {
    // The runtime adds the private sums in the order the threads arrive.
    constexpr Traits kFloat{.accumulator = Accumulator::f32, .order = Order::thread_chunks, .reproducibility = Reproducibility::none};
    Backend backend = parallel_backend<float, double, Float16, BFloat16>(
        "cpu/openmp/reduction",
        "#pragma omp parallel for reduction(+ : sum) on a float (the seed's; a double for float64 input), static schedule", kFloat,
        [](auto input, int threads) {
            OpenMpTeam team("cpu/openmp/reduction", threads);
            using T = typename decltype(input)::value_type;
            return make_placed_reduction(placed_by_team(input, threads), [threads, team = std::move(team)](std::span<const T> x) {
                return sum_reduction_clause(x, threads);
            });
        });
    Traits of_doubles = kFloat;
    of_doubles.accumulator = Accumulator::f64;
    backend.traits_by_type = {{ElementType::f64, of_doubles}};
    return backend;
}

[[maybe_unused]] const bool registered_reduction = register_backend(reduction_clause_backend());
[[maybe_unused]] const bool registered_simd = register_backend(parallel_backend_in_lanes(
    "cpu/openmp/simd",
    "one OpenMP team, omp_set_dynamic(0), each thread the widest SIMD double-lane kernel on its static chunk (float lanes for 16-bit input)",
    kStaticChunks(Accumulator::f64), [](auto input, int threads) {
        OpenMpTeam team("cpu/openmp/simd", threads);
        using T = typename decltype(input)::value_type;
        return make_placed_reduction(placed_by_team(input, threads), [partials = PartialSums(threads), kernel = simd::best().lanes_of<T>(),
                                                                      team = std::move(team)](std::span<const T> x) mutable {
            return sum_simd_team(x, partials, kernel);
        });
    }));

}  // namespace
}  // namespace shootout
