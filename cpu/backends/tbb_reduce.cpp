// oneTBB parallel_reduce and parallel_deterministic_reduce around the widest SIMD double-lane
// kernel (float lanes for float16 and bfloat16), in an arena of the requested thread count.
#include "cpu/backends/host_backend.hpp"

#ifdef SHOOTOUT_HAVE_TBB
#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_reduce.h>

#include <functional>

#include "cpu/kernels/simd_kernels.hpp"
#include "cpu/parallel/tbb_threads.hpp"
#endif

namespace shootout {
namespace {

const std::string kReduce = "cpu/tbb/reduce", kDeterministic = "cpu/tbb/deterministic";
const std::string kReduceDescription =
    "oneTBB parallel_reduce (auto partitioner) in a task_arena, widest SIMD double-lane kernel per range (float lanes for 16-bit input)";
const std::string kDeterministicDescription =
    "oneTBB parallel_deterministic_reduce, simple partitioner: the same split and joins, so the same bits, for any thread count";

// parallel_reduce's auto partitioner splits by load: the joins follow whatever the tasks did.
constexpr Traits kReduceTraits{.accumulator = Accumulator::f64, .order = Order::unordered, .reproducibility = Reproducibility::none};
// parallel_deterministic_reduce with a simple partitioner: one fixed tree of fixed leaves.
constexpr Traits kDeterministicTraits{.accumulator = Accumulator::f64, .order = Order::tree,
                                      .reproducibility = Reproducibility::any_thread_count};

#ifdef SHOOTOUT_HAVE_TBB
struct Reduce {
    template <class T>
    double operator()(std::span<const T> x) const {
        return sum_stolen_ranges(x, simd::best().lanes_of<T>());
    }
};

struct DeterministicReduce {
    template <class T>
    double operator()(std::span<const T> x) const {
        const auto kernel = simd::best().lanes_of<T>();
        return tbb::parallel_deterministic_reduce(
            tbb::blocked_range<std::size_t>(0, x.size(), kRangeElements<T>), 0.0,
            [&](const tbb::blocked_range<std::size_t>& r, double sum) { return sum + kernel(x.data() + r.begin(), r.size()); },
            std::plus<>(), tbb::simple_partitioner());
    }
};

template <class Sum>
Backend tbb_backend(const std::string& name, const std::string& description, Traits traits, Sum sum) {
    return parallel_backend_in_lanes(name, description, traits,
                                     [sum](auto input, int threads) { return make_arena_reduction(input, threads, sum); });
}

[[maybe_unused]] const bool registered_reduce = register_backend(tbb_backend(kReduce, kReduceDescription, kReduceTraits, Reduce{}));
[[maybe_unused]] const bool registered_deterministic =
    register_backend(tbb_backend(kDeterministic, kDeterministicDescription, kDeterministicTraits, DeterministicReduce{}));
#else
[[maybe_unused]] const bool registered_reduce =
    register_backend(unavailable_backend(kReduce, kReduceDescription, kReduceTraits, "built without oneTBB"));
[[maybe_unused]] const bool registered_deterministic =
    register_backend(unavailable_backend(kDeterministic, kDeterministicDescription, kDeterministicTraits, "built without oneTBB"));
#endif

}  // namespace
}  // namespace shootout
