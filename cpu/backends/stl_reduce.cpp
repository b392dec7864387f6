// std::reduce with std::execution::par and par_unseq: GCC's parallel STL, whose parallel backend is
// oneTBB. Run inside a task_arena of the requested thread count. The initial value is a double, so
// every float is widened before it is added: the same arithmetic as cpu/pool/simd, which makes the
// two rows' speeds comparable; likewise a float for float16 and bfloat16 input (pool/simd's float
// lanes).
//
// Without oneTBB, libstdc++'s <execution> quietly runs these serially; that is detected at compile
// time and the names are then listed as unavailable rather than timed as a serial loop.
#include "cpu/backends/host_backend.hpp"

#ifdef SHOOTOUT_HAVE_TBB
#include <execution>
#include <numeric>

#include "cpu/parallel/tbb_threads.hpp"
#endif

namespace shootout {
namespace {

const std::string kPar = "cpu/stl/par", kParUnseq = "cpu/stl/par_unseq";
const std::string kParDescription =
    "std::reduce(std::execution::par, ..., 0.0) on GCC's parallel STL over oneTBB, in a task_arena (0.0f for 16-bit input)";
// The TBB backend splits the range dynamically: the partials meet in whatever order the tasks finish.
constexpr Traits kTraits{.accumulator = Accumulator::f64, .order = Order::unordered, .reproducibility = Reproducibility::none};
const std::string kParUnseqDescription =
    "std::reduce(std::execution::par_unseq, ..., 0.0) on GCC's parallel STL over oneTBB, in a task_arena (0.0f for 16-bit input)";

#if defined(SHOOTOUT_HAVE_TBB) && defined(_PSTL_PAR_BACKEND_TBB)
template <class Policy>
Backend stl_backend(const std::string& name, const std::string& description, const Policy& policy) {
    return parallel_backend_in_lanes(name, description, kTraits, [&policy](auto input, int threads) {
        using T = typename decltype(input)::value_type;
        return make_arena_reduction(input, threads, [&policy](std::span<const T> x) {
            using Sum = std::conditional_t<sizeof(T) == 2, float, double>;  // the lanes parallel_backend_in_lanes declares
            return std::reduce(policy, x.begin(), x.end(), Sum{0});
        });
    });
}

[[maybe_unused]] const bool registered_par = register_backend(stl_backend(kPar, kParDescription, std::execution::par));
[[maybe_unused]] const bool registered_par_unseq =
    register_backend(stl_backend(kParUnseq, kParUnseqDescription, std::execution::par_unseq));
#else
#ifdef SHOOTOUT_HAVE_TBB
const std::string kWhy = "this standard library's std::execution has no oneTBB backend: it would run serially";
#else
const std::string kWhy = "built without oneTBB";
#endif
[[maybe_unused]] const bool registered_par = register_backend(unavailable_backend(kPar, kParDescription, kTraits, kWhy));
[[maybe_unused]] const bool registered_par_unseq =
    register_backend(unavailable_backend(kParUnseq, kParUnseqDescription, kTraits, kWhy));
#endif

}  // namespace
}  // namespace shootout
