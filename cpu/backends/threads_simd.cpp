// The same work as cpu/pool/simd, with threads started and joined on every call: what a pool saves
// is measured against it. Threads are not pinned: the OS places each new one.
#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"
#include "cpu/parallel/new_threads.hpp"
#include "cpu/parallel/static_chunks.hpp"

namespace shootout {
namespace {

constexpr const char* kName = "cpu/threads/simd";

template <class T, class Kernel>
double sum_on_new_threads(std::span<const T> x, PartialSums& partials, Kernel kernel) {
    auto sum_part = [&](int part) { sum_chunk(x, partials, part, kernel); };
    run_on_new_threads(kName, partials.size(), sum_part);
    return partials.total();
}

[[maybe_unused]] const bool registered = register_backend(parallel_backend_in_lanes(
    kName,
    "std::threads started and joined on every call, static chunks, widest SIMD double-lane kernel (float lanes for 16-bit input)",
    kStaticChunks(Accumulator::f64),
    [](auto input, int threads) {
        using T = typename decltype(input)::value_type;
        // Placed by new threads too, in the same chunks: where the OS puts a new thread is its own choice.
        PlacedInputOf<T> placed(input, threads, [threads](auto& copy_part) { run_on_new_threads(kName, threads, copy_part); });
        return make_placed_reduction(std::move(placed), [partials = PartialSums(threads), kernel = simd::best().lanes_of<T>()](
                                                            std::span<const T> x) mutable {
            return sum_on_new_threads(x, partials, kernel);
        });
    }));

}  // namespace
}  // namespace shootout
