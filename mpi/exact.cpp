// mpi/exact: each rank's exact sum of its shard, combined exactly: the ranks' superaccumulator
// words added as integers by one MPI_Allreduce (bench/exact_sum.hpp, words()), then rounded once.
// Integer sums do not depend on order, so the result is the same bits for every rank count.
//
// The seam: the per-rank exact sum is bench's ExactAccumulator, on one thread, until the exact
// backends (issue 10: exact/exact_accumulator.hpp, cpu/exact/*) are in main; then the rank's state
// becomes theirs (its digits are integer words too) and only ExactOverRanks::run() changes.
#include "exact_sum.hpp"
#include "mpi_reduction.hpp"

namespace shootout::mpi {
namespace {

#ifdef SHOOTOUT_HAVE_MPI
class ExactOverRanks final : public Reduction {
public:
    explicit ExactOverRanks(std::span<const float> shard) : shard_(shard) {}
    std::optional<double> run() override {
        return timed_collective("mpi/exact", [&] {
            ExactAccumulator local;
            local.add(shard_);
            total_ = sum(local);
        });
    }
    double result() override { return total_.round(); }

private:
    std::span<const float> shard_;
    ExactAccumulator total_;
};
#endif

[[maybe_unused]] const bool registered = register_distributed_backend({
    .name = "mpi/exact",
    .description = "per rank: the exact sum of its shard (superaccumulator); the ranks' integer words added by MPI_Allreduce, rounded once",
    .device = Device::cpu,
    .traits = {.accumulator = Accumulator::exact, .order = Order::sequential, .reproducibility = Reproducibility::any_thread_count},
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
