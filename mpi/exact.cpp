// mpi/exact: each rank adds its shard exactly into a superaccumulator with the widest exact SIMD
// kernel (cpu/exact/simd's: exact/exact_accumulator.hpp's digits, left normalized), the ranks' digits
// are added as 64-bit integers by one MPI_Allreduce, and the total is rounded once. Integer sums do
// not depend on order, so the result is the same bits for every rank count (and equals the CPU and
// CUDA exact backends').
#include "mpi/mpi_reduction.hpp"

#ifdef SHOOTOUT_HAVE_MPI
#include <array>
#include <cstdint>

#include "exact/exact_accumulator.hpp"
#include "cpu/parallel/placed_input.hpp"
#include "cpu/kernels/simd_kernels.hpp"
#endif

namespace shootout::mpi {
namespace {

#ifdef SHOOTOUT_HAVE_MPI
// A rank's exact sum as integer words: the digits, then one word per kind of special value seen
// (NaN, +Inf, -Inf) as 0 or 1. Word-wise integer sums of normalized sums' words are the words of
// their sum (each digit below 2^32, for up to 2^31 ranks); flags are summed, not OR-ed, as words.
constexpr std::size_t kWords = exact::kDigits + 3;
constexpr unsigned kSpecials[3] = {exact::kNan, exact::kPlusInfinity, exact::kMinusInfinity};

exact::Sum over_ranks(const exact::Sum& mine) {
    std::array<std::int64_t, kWords> words{}, total{};
    for (int k = 0; k < exact::kDigits; ++k) words[k] = mine.digits[k];
    for (int s = 0; s < 3; ++s) words[exact::kDigits + s] = (mine.specials & kSpecials[s]) != 0;
    if (world().size == 1) total = words;
    else MPI_Allreduce(words.data(), total.data(), static_cast<int>(kWords), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    exact::Sum sum;
    for (int k = 0; k < exact::kDigits; ++k) sum.digits[k] = total[k];
    for (int s = 0; s < 3; ++s)
        if (total[exact::kDigits + s] != 0) sum.specials |= kSpecials[s];
    return sum;
}

class ExactOverRanks final : public Reduction {
public:
    // The shard is read from a copy of its own, made (and so placed) by the thread that reads it, as
    // every CPU backend's input (placed_input.hpp).
    explicit ExactOverRanks(std::span<const float> shard)
        : placed_(shard, 1, [](auto& copy_part) { copy_part(0); }), shard_(placed_.span()), kernel_(simd::best().accumulate_exact) {}

    std::optional<double> run() override {
        return timed_collective("mpi/exact", [&] {
            exact::Sum mine;
            kernel_(shard_.data(), shard_.size(), mine);  // leaves the digits normalized
            total_ = over_ranks(mine);
        });
    }
    double result() override { return total_.round(); }
    Elements host_input() const override { return shard_; }

private:
    PlacedInput placed_;
    std::span<const float> shard_;  // placed_'s copy
    simd::AccumulateExact kernel_;
    exact::Sum total_;
};
#endif

[[maybe_unused]] const bool registered = register_distributed_backend({
    .name = "mpi/exact",
    .description = "per rank: the exact SIMD kernel on its shard (superaccumulator digits); the ranks' digits added as integers by MPI_Allreduce, rounded once",
    .device = Device::cpu,
    .traits = {.accumulator = Accumulator::exact, .order = Order::lanes, .reproducibility = Reproducibility::any_thread_count},
#ifdef SHOOTOUT_HAVE_MPI
    .make = [](std::span<const float> shard, const PrepareOptions&) -> std::unique_ptr<Reduction> {
        return std::make_unique<ExactOverRanks>(shard);
    },
#else
    .make = {},
#endif
});

}  // namespace
}  // namespace shootout::mpi
