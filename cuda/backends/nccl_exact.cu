// nccl/exact: each GPU runs cuda/exact's kernel (cuda/dispatch/exact_dispatch.cuh) on its shard, whose
// last block writes the grid's unrounded total as integer words (exact::to_words: normalized digits
// and one 0/1 word per kind of special value); one ncclAllReduce (ncclInt64, ncclSum) adds the GPUs'
// words, which is exact and independent of order, and the host rounds the total once
// (exact::round_to_double): the same bits for 1, 2, 4 or 8 GPUs, and the same as every exact
// backend's. The rounding happens in result(), after timing: the timed region ends with the last
// call's all-reduce, when every GPU holds the exact total in that call's slot.
#include <cstdint>
#include <memory>
#include <vector>

#include "cuda/runtime/multi_gpu.cuh"

#ifdef SHOOTOUT_HAVE_NCCL
#include "exact/exact_accumulator.hpp"
#include "cuda/dispatch/exact_dispatch.cuh"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.cuh"
#endif

namespace shootout::cuda {
namespace {

#ifdef SHOOTOUT_HAVE_NCCL
// The last block's Finish: the total as words, for the all-reduce.
struct ToWords {
    long long* words;
    template <class T>
    __device__ void operator()(const exact::Sum<T>& total) const {
        exact::to_words(total, reinterpret_cast<std::int64_t*>(words));
    }
};

template <class T>
class WordsSum final : public ShardSum<T> {
public:
    explicit WordsSum(std::size_t n) : launch_(n), words_(kCallsInFlight * exact::kWords<T>) {}

    // An empty shard launches the kernel all the same: its last block writes a zero sum's words.
    void enqueue(const T* in, int slot, cudaStream_t stream) override { launch_.enqueue(in, ToWords{words(slot)}, stream); }

    void all_reduce(int slot, ncclComm_t comm, cudaStream_t stream) override {
        SHOOTOUT_NCCL_CHECK(ncclAllReduce(words(slot), words(slot), exact::kWords<T>, ncclInt64, ncclSum, comm, stream));
    }

    double result(int slot) override {
        std::vector<std::int64_t> host(exact::kWords<T>);
        SHOOTOUT_CUDA_CHECK(cudaMemcpy(host.data(), words(slot), host.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
        return exact::from_words<T>(host.data()).round();
    }

private:
    long long* words(int slot) { return words_.get() + static_cast<std::size_t>(slot) * exact::kWords<T>; }

    exact_agent::ExactLaunch<T, ToWords> launch_;
    DeviceBuffer<long long> words_;  // exact::kWords<T> per slot
};
#endif

[[maybe_unused]] const bool registered = register_multi_gpu_backend({
    .name = "nccl/exact",
    .description = "equal contiguous shards over the GPUs, cuda/exact's kernel per GPU up to its unrounded total as integer words, "
                   "one ncclAllReduce (int64 sum), rounded once",
    .traits = {.accumulator = Accumulator::exact, .order = Order::unordered, .reproducibility = Reproducibility::any_thread_count},
#ifdef SHOOTOUT_HAVE_NCCL
    .make = [](std::size_t n) -> std::unique_ptr<ShardSum<float>> { return std::make_unique<WordsSum<float>>(n); },
    .make_f64 = [](std::size_t n) -> std::unique_ptr<ShardSum<double>> { return std::make_unique<WordsSum<double>>(n); },
#else
    .make = {},
#endif
});

}  // namespace
}  // namespace shootout::cuda
