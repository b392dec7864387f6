// The exact sum on a persistent thread pool: part k of the pool adds the k-th static chunk into its
// own superaccumulator with the widest exact SIMD kernel; the parts' digits then merge by integer
// addition, which is exact in any order, and the total is rounded once. So the result is the same
// for every thread count, unlike every other parallel CPU backend's. Part k copied the k-th chunk of
// the input in prepare (placed_input.hpp), so it reads what it placed.
#include <memory>
#include <vector>

#include "exact_accumulator.hpp"
#include "host_backend.hpp"
#include "simd_kernels.hpp"
#include "static_chunks.hpp"
#include "thread_pool.hpp"

namespace shootout {
namespace {

// One part's sum on its own cache lines, so that parts writing their digits share none.
struct alignas(64) PartSum {
    exact::Sum sum;
};

class ExactPoolReduction final : public Reduction {
public:
    ExactPoolReduction(std::span<const float> input, int threads)
        : pool_(threads),
          placed_(input, threads, [this](auto& copy_part) { pool_.run(copy_part); }),
          input_(placed_.span()),
          parts_(static_cast<std::size_t>(threads)),
          kernel_(simd::best().accumulate_exact) {}

    std::optional<double> run() override {
        auto sum_part = [this](int part) {
            const auto chunk = static_chunk(input_, part, pool_.size());
            exact::Sum& sum = parts_[static_cast<std::size_t>(part)].sum;
            sum = {};
            kernel_(chunk.data(), chunk.size(), sum);  // leaves the digits normalized
        };
        pool_.run(sum_part);
        exact::Sum total;
        for (const PartSum& part : parts_) total.merge(part.sum);
        last_ = total.round();
        return std::nullopt;
    }
    double result() override { return last_; }
    std::span<const float> host_input() const override { return input_; }

private:
    ThreadPool pool_;       // before placed_: its threads copy the input
    PlacedInput placed_;
    std::span<const float> input_;  // placed_'s copy
    std::vector<PartSum> parts_;
    simd::AccumulateExact kernel_;
    double last_ = 0;
};

[[maybe_unused]] const bool registered = register_backend(parallel_backend(
    "cpu/exact/parallel",
    "exact sum rounded once: persistent pinned thread pool, static chunks, exact SIMD kernel per thread, digits merged as integers",
    {.accumulator = Accumulator::exact, .order = Order::thread_chunks, .reproducibility = Reproducibility::any_thread_count},
    [](std::span<const float> input, int threads) -> std::unique_ptr<Reduction> {
        return std::make_unique<ExactPoolReduction>(input, threads);
    }));

}  // namespace
}  // namespace shootout
