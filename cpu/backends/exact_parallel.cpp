// The exact sum on a persistent thread pool: each thread adds chunks of the input into its own
// superaccumulator with the widest exact SIMD kernel, its own static part first, then what is left
// of a slower thread's (balanced_chunks.hpp); the threads' digits then merge by integer addition,
// which is exact in any order, and the total is rounded once. So the result is the same for every
// thread count and whichever thread read which chunk, unlike every other parallel CPU backend's.
// Part k copied the k-th static chunk of the input in prepare (placed_input.hpp), so it reads what
// it placed.
#include <memory>
#include <vector>

#include "cpu/parallel/balanced_chunks.hpp"
#include "exact/exact_accumulator.hpp"
#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

// One thread's sum on its own cache lines, so that threads writing their digits share none.
struct alignas(64) ThreadSum {
    exact::Sum sum;
};

class ExactPoolReduction final : public Reduction {
public:
    ExactPoolReduction(std::span<const float> input, int threads)
        : chunks_(threads),
          placed_(input, threads, [this](auto& copy_part) { chunks_.pool().run(copy_part); }),
          input_(placed_.span()),
          threads_(static_cast<std::size_t>(threads)),
          kernel_(simd::best().accumulate_exact) {}

    std::optional<double> run() override {
        for (ThreadSum& thread : threads_) thread.sum = {};
        chunks_.for_each_chunk(input_, [this](int thread, int, std::size_t, std::span<const float> piece) {
            kernel_(piece.data(), piece.size(), threads_[static_cast<std::size_t>(thread)].sum);  // leaves the digits normalized
        });
        exact::Sum total;
        for (const ThreadSum& thread : threads_) total.merge(thread.sum);
        last_ = total.round();
        return std::nullopt;
    }
    double result() override { return last_; }
    Elements host_input() const override { return input_; }

private:
    BalancedChunks chunks_;  // before placed_: its pool's threads copy the input
    PlacedInput placed_;
    std::span<const float> input_;  // placed_'s copy
    std::vector<ThreadSum> threads_;
    simd::AccumulateExact kernel_;
    double last_ = 0;
};

[[maybe_unused]] const bool registered = register_backend(parallel_backend(
    "cpu/exact/parallel",
    "exact sum rounded once: persistent pinned thread pool, static parts read in chunks that idle threads take over, exact SIMD kernel, digits merged as integers",
    {.accumulator = Accumulator::exact, .order = Order::thread_chunks, .reproducibility = Reproducibility::any_thread_count},
    [](std::span<const float> input, int threads) -> std::unique_ptr<Reduction> {
        return std::make_unique<ExactPoolReduction>(input, threads);
    }));

}  // namespace
}  // namespace shootout
