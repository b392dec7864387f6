// The exact sum on a persistent thread pool: each thread adds chunks of the input into its own
// superaccumulator with the exact kernel (exact_kernel.hpp), its own static part first, then what is
// left of a slower thread's (balanced_chunks.hpp); the threads' digits then merge by integer
// addition, which is exact in any order, and the total is rounded once. So the result is the same
// for every thread count and whichever thread read which chunk, unlike every other parallel CPU
// backend's. Part k copied the k-th static chunk of the input in prepare (placed_input.hpp), so it
// reads what it placed.
#include <memory>
#include <vector>

#include "cpu/backends/exact_kernel.hpp"
#include "cpu/backends/host_backend.hpp"
#include "cpu/parallel/balanced_chunks.hpp"
#include "exact/exact_accumulator.hpp"

namespace shootout {
namespace {

// One thread's sum on its own cache lines, so that threads writing their digits share none.
template <class T>
struct alignas(64) ThreadSum {
    ExactSumOf<T> sum;
};

template <class T>
class ExactPoolReduction final : public Reduction {
public:
    ExactPoolReduction(std::span<const T> input, int threads)
        : chunks_(threads),
          placed_(input, threads, [this](auto& copy_part) { chunks_.pool().run(copy_part); }),
          input_(placed_.span()),
          threads_(static_cast<std::size_t>(threads)) {}

    std::optional<double> run() override {
        for (ThreadSum<T>& thread : threads_) thread.sum = {};
        chunks_.for_each_chunk(input_, [this](int thread, int, std::size_t, std::span<const T> piece) {
            accumulate_exact(piece.data(), piece.size(), threads_[static_cast<std::size_t>(thread)].sum);
        });
        ExactSumOf<T> total;
        for (const ThreadSum<T>& thread : threads_) total.merge(thread.sum);
        last_ = total.round();
        return std::nullopt;
    }
    double result() override { return last_; }
    Elements host_input() const override { return input_; }

private:
    BalancedChunks chunks_;  // before placed_: its pool's threads copy the input
    PlacedInputOf<T> placed_;
    std::span<const T> input_;  // placed_'s copy
    std::vector<ThreadSum<T>> threads_;
    double last_ = 0;
};

[[maybe_unused]] const bool registered = register_backend({
    .name = "cpu/exact/parallel",
    .device = Device::cpu,
    .description = "exact sum rounded once: persistent pinned thread pool, static parts read in chunks that idle threads take over, "
                   "exact SIMD kernel (floats), digits merged as integers",
    .parallel = true,
    .traits = {.accumulator = Accumulator::exact, .order = Order::thread_chunks, .reproducibility = Reproducibility::any_thread_count},
    .element_types = {ElementType::f32, ElementType::f64, ElementType::f16, ElementType::bf16},
    .prepare = [](Elements input, const PrepareOptions& options) {
        return input.visit([&]<class T>(std::span<const T> values) -> std::unique_ptr<Reduction> {
            return std::make_unique<ExactPoolReduction<T>>(values, options.threads);
        });
    },
});

}  // namespace
}  // namespace shootout
