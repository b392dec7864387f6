// mpi/exact: each rank adds its shard exactly into a superaccumulator with the exact kernel
// (cpu/backends/exact_kernel.hpp: cpu/exact/simd's), the ranks' sums travel as integer words
// (exact::to_words: normalized digits and one word per kind of special value) added by one
// MPI_Allreduce, and the total is rounded once. Integer sums do not depend on order, so the result
// is the same bits for every rank count (and equals the CPU and CUDA exact backends').
#include "mpi/mpi_reduction.hpp"

#ifdef SHOOTOUT_HAVE_MPI
#include <array>
#include <cstdint>

#include "cpu/backends/exact_kernel.hpp"
#include "cpu/parallel/placed_input.hpp"
#include "exact/exact_accumulator.hpp"
#endif

namespace shootout::mpi {
namespace {

#ifdef SHOOTOUT_HAVE_MPI
template <class T>
exact::Sum<T> over_ranks(const exact::Sum<T>& mine) {
    if (world().size == 1) return mine;
    std::array<std::int64_t, exact::kWords<T>> words{}, total{};
    exact::to_words(mine, words.data());
    MPI_Allreduce(words.data(), total.data(), static_cast<int>(words.size()), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    return exact::from_words<T>(total.data());
}

template <class T>
class ExactOverRanks final : public Reduction {
public:
    // The shard is read from a copy of its own, made (and so placed) by the thread that reads it, as
    // every CPU backend's input (placed_input.hpp).
    explicit ExactOverRanks(std::span<const T> shard)
        : placed_(shard, 1, [](auto& copy_part) { copy_part(0); }), shard_(placed_.span()) {}

    std::optional<double> run() override {
        return timed_collective("mpi/exact", [&] {
            exact::Sum<T> mine;
            accumulate_exact(shard_.data(), shard_.size(), mine);
            total_ = over_ranks(mine);
        });
    }
    double result() override { return total_.round(); }
    Elements host_input() const override { return shard_; }

private:
    PlacedInputOf<T> placed_;
    std::span<const T> shard_;  // placed_'s copy
    exact::Sum<T> total_;
};
#endif

[[maybe_unused]] const bool registered = register_distributed_backend({
    .name = "mpi/exact",
    .description = "per rank: the exact SIMD kernel on its shard (superaccumulator digits); the ranks' digits added as integers by MPI_Allreduce, rounded once",
    .device = Device::cpu,
    .traits = {.accumulator = Accumulator::exact, .order = Order::lanes, .reproducibility = Reproducibility::any_thread_count},
    .element_types = {ElementType::f32, ElementType::f64},
#ifdef SHOOTOUT_HAVE_MPI
    .make = [](Elements shard, const PrepareOptions&) {
        return shard.visit<float, double>([]<class T>(std::span<const T> values) -> std::unique_ptr<Reduction> {
            return std::make_unique<ExactOverRanks<T>>(values);
        });
    },
#else
    .make = {},
#endif
});

}  // namespace
}  // namespace shootout::mpi
