// nccl/exact: each GPU adds its shard exactly into integer words (gpu/agents/exponent_bins.cuh, a seam
// until cuda/exact's kernel can hand its digits to an all-reduce), one ncclAllReduce (ncclInt64,
// ncclSum) adds the GPUs' words, which is exact and independent of order, and the host rounds the
// total once: the same bits for 1, 2, 4 or 8 GPUs, and the same as every exact backend's. The rounding happens in result(), after timing: the timed region ends
// with the all-reduce, when every GPU holds the exact total.
#include <array>
#include <cstdint>
#include <limits>
#include <memory>

#include "gpu/runtime/multi_gpu.cuh"

#ifdef SHOOTOUT_HAVE_NCCL
#include "gpu/runtime/cuda_check.hpp"
#include "gpu/runtime/device_buffer.cuh"
#include "bench/exact_sum.hpp"
#include "gpu/agents/exponent_bins.cuh"
#include "gpu/runtime/launch_config.cuh"
#endif

namespace shootout::cuda {
namespace {

#ifdef SHOOTOUT_HAVE_NCCL
class WordsSum final : public ShardSum {
public:
    explicit WordsSum(std::size_t n)
        : n_(n), grid_(n > 0 ? resident_blocks(exponent_bins::add, kBlock) : 0), words_(exponent_bins::kWords) {}

    void enqueue(const float* in, cudaStream_t stream) override {
        SHOOTOUT_CUDA_CHECK(cudaMemsetAsync(words_.get(), 0, bytes(), stream));
        if (n_ == 0) return;
        exponent_bins::add<<<grid_, kBlock, 0, stream>>>(in, n_, words_.get());
        SHOOTOUT_CUDA_CHECK_LAUNCH(exponent_bins::add);
    }

    void all_reduce(ncclComm_t comm, cudaStream_t stream) override {
        SHOOTOUT_NCCL_CHECK(ncclAllReduce(words_.get(), words_.get(), exponent_bins::kWords, ncclInt64, ncclSum, comm, stream));
    }

    double result() override {
        std::array<std::int64_t, exponent_bins::kWords> words{};
        SHOOTOUT_CUDA_CHECK(cudaMemcpy(words.data(), words_.get(), bytes(), cudaMemcpyDeviceToHost));
        ExactAccumulator total;
        total.add_exponent_bins(std::span<const std::int64_t, ExactAccumulator::kExponentBins>(words.data(), exponent_bins::kExponents));
        if (words[exponent_bins::kNan] != 0) total.add(std::numeric_limits<double>::quiet_NaN());
        if (words[exponent_bins::kPlusInfinity] != 0) total.add(std::numeric_limits<double>::infinity());
        if (words[exponent_bins::kMinusInfinity] != 0) total.add(-std::numeric_limits<double>::infinity());
        return total.round();
    }

private:
    static constexpr unsigned kBlock = 256;
    static std::size_t bytes() { return exponent_bins::kWords * sizeof(std::int64_t); }

    std::size_t n_;
    unsigned grid_;
    DeviceBuffer<unsigned long long> words_;
};
#endif

[[maybe_unused]] const bool registered = register_multi_gpu_backend({
    .name = "nccl/exact",
    .description = "equal contiguous shards over the GPUs, exact integer words per GPU, one ncclAllReduce (int64 sum), rounded once",
    .traits = {.accumulator = Accumulator::exact, .order = Order::unordered, .reproducibility = Reproducibility::any_thread_count},
#ifdef SHOOTOUT_HAVE_NCCL
    .make = [](std::size_t n) -> std::unique_ptr<ShardSum> { return std::make_unique<WordsSum>(n); },
#else
    .make = {},
#endif
});

}  // namespace
}  // namespace shootout::cuda
