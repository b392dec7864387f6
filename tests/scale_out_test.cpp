// The backends that split an input, in every element type they take: nccl/* over the GPUs of this
// machine, at every GPU count it has, and their partial slots (NcclSlots); mpi/* as one rank in this
// process (tests/mpi_ranks_test.py runs them under mpirun). Without a GPU (or without NCCL) the GPU
// tests report skipped with the reason the backend gives.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "api/backend.hpp"
#include "cuda/runtime/multi_gpu.cuh"
#include "tests/backend_test_support.hpp"
#include "tests/error_bounds.hpp"
#include "exact/exact_sum.hpp"
#include "bench/inputs.hpp"

#ifdef SHOOTOUT_HAVE_NCCL
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_buffer.cuh"
#endif

namespace shootout {
namespace {

std::vector<const Backend*> backends_where(bool (*keep)(const Backend&)) {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (keep(b)) list.push_back(&b);
    return list;
}

// The GPU counts this machine can test: 1 .. every visible GPU.
std::vector<int> gpu_counts(const Backend& backend) {
    std::vector<int> counts;
    for (int gpus = 1; gpus <= backend.device_info().visible; ++gpus) counts.push_back(gpus);
    return counts;
}

double sum_with(const Backend& backend, Elements input, int gpus) {
    auto reduction = backend.prepare(input, {.threads = 2, .gpus = gpus});
    const std::optional<double> seconds = reduction->run();
    EXPECT_TRUE(seconds && *seconds > 0) << "run() must return the time it measured";
    reduction->run();  // a second call must give the same, from scratch
    return reduction->result();
}

class EveryMultiGpuBackend : public ::testing::TestWithParam<const Backend*> {
protected:
    void SetUp() override {
        if (auto reason = GetParam()->why_unavailable()) GTEST_SKIP() << *reason;
    }
    const Backend& backend() const { return *GetParam(); }
};

TEST_P(EveryMultiGpuBackend, DeclaresWhatTheHarnessNeeds) {
    EXPECT_TRUE(backend().multi_gpu);
    EXPECT_EQ(backend().timing, Timing::device_events);
    EXPECT_TRUE(backend().batches);
    ASSERT_TRUE(backend().device_info);
    EXPECT_GE(backend().device_info().visible, 1);
    EXPECT_FALSE(backend().device_info().name.empty());
}

// Sizes below, at and above the GPU count (some GPUs get empty shards), odd sizes, and unaligned
// starts; small integers, so every correct order is exact.
TEST_P(EveryMultiGpuBackend, ExactOnEveryGpuCount) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto data = small_integers<T>(1000003 + 3, kExactMagnitude<T>, 1);
        for (int gpus : gpu_counts(backend()))
            for (std::size_t n : {0u, 1u, 3u, 31u, 1000u, 1000003u})
                for (std::size_t offset : {0u, 3u}) {
                    const auto input = std::span<const T>(data).subspan(offset, n);
                    EXPECT_EQ(sum_with(backend(), input, gpus), exact_sum_of(input).round()) << "n=" << n << " gpus=" << gpus;
                }
    });
}

TEST_P(EveryMultiGpuBackend, WithinTheBoundOfItsTraitsOnUniformData) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto v = uniform_values<T>((1 << 22) + 3, 5);
        const ExactAccumulator s = exact_sum_of(v);
        const double bound = bounds::for_traits(backend().traits_for(element_type_of<T>),
                                                {.n = v.size(), .abs_sum = s.round(), .exact = s.round(), .threads = 1})
                                 .value();
        for (int gpus : gpu_counts(backend()))
            EXPECT_LE(absolute_error(sum_with(backend(), std::span<const T>(v), gpus), s), bound) << gpus << " GPUs";
    });
}

// Declared reproducible at a GPU count: the same bits on every call, isolated or batched (a batch of
// more calls than the partial slots: its result is its last call's); declared so for any count: the
// same bits for 1, 2, 4, 8 GPUs.
TEST_P(EveryMultiGpuBackend, ReproducibleAsDeclared) {
    constexpr int kBatch = cuda::kCallsInFlight + 3;
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto v = normal_values<T>(3000017, 9);
        std::optional<std::uint64_t> first_count_bits;
        for (int gpus : gpu_counts(backend())) {
            auto reduction = backend().prepare(std::span<const T>(v), {.batch = kBatch, .gpus = gpus});
            reduction->run();
            const double first = reduction->result();
            for (int call = 0; call < 10; ++call) {
                reduction->run();
                ASSERT_EQ(std::bit_cast<std::uint64_t>(reduction->result()), std::bit_cast<std::uint64_t>(first)) << "call " << call;
            }
            reduction->run_batch(kBatch);
            EXPECT_EQ(std::bit_cast<std::uint64_t>(reduction->result()), std::bit_cast<std::uint64_t>(first)) << "after a batch";
            if (backend().traits.reproducibility != Reproducibility::any_thread_count) continue;
            if (!first_count_bits) first_count_bits = std::bit_cast<std::uint64_t>(first);
            EXPECT_EQ(std::bit_cast<std::uint64_t>(first), *first_count_bits) << gpus << " GPUs differ from 1";
        }
    });
}

TEST_P(EveryMultiGpuBackend, BatchedCallsSumTheInputEachTime) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto data = small_integers<T>(1000003, kExactMagnitude<T>, 4);
        for (int gpus : gpu_counts(backend())) {
            auto reduction = backend().prepare(std::span<const T>(data), {.batch = 5, .gpus = gpus});
            for (int batch = 0; batch < 2; ++batch) {
                EXPECT_GT(reduction->run_batch(5), 0);
                EXPECT_EQ(reduction->result(), exact_sum_of(data).round()) << "batch " << batch << ", " << gpus << " GPUs";
            }
        }
    });
}

// A NaN or Inf on the last GPU's shard reaches the all-reduced result.
TEST_P(EveryMultiGpuBackend, NanAndInfinityPropagate) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        for (int gpus : gpu_counts(backend()))
            for (std::size_t n : {1u, 1000003u}) {
                std::vector<T> v(n, T(1));
                v[n - 1] = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
                EXPECT_TRUE(std::isnan(sum_with(backend(), std::span<const T>(v), gpus))) << n << ", " << gpus << " GPUs";
                v[n - 1] = static_cast<T>(-std::numeric_limits<float>::infinity());
                EXPECT_EQ(sum_with(backend(), std::span<const T>(v), gpus), -std::numeric_limits<double>::infinity())
                    << n << ", " << gpus << " GPUs";
            }
    });
}

// More GPUs than the machine has: refused with a message, not a crash.
TEST_P(EveryMultiGpuBackend, MoreGpusThanVisibleIsAnError) {
    const std::vector<float> v(100, 1.0f);
    EXPECT_THROW(backend().prepare(v, {.gpus = backend().device_info().visible + 1}), std::runtime_error);
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryMultiGpuBackend,
                         ::testing::ValuesIn(backends_where([](const Backend& b) { return b.multi_gpu; })), backend_test_name);
// A build without CUDA registers no nccl/* backends (the CUDA API's record names why).
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EveryMultiGpuBackend);

#ifdef SHOOTOUT_HAVE_NCCL
// A ShardSum whose partial is the number of the call that wrote it (1, 2, ... over its life), one
// byte per slot: after the all-reduce a slot holds gpus x that number, so result() shows whose slot
// it read.
class CallNumbers final : public cuda::ShardSum<float> {
public:
    CallNumbers() : slots_(cuda::kCallsInFlight) {}

    void enqueue(const float*, int slot, cudaStream_t stream) override {
        SHOOTOUT_CUDA_CHECK(cudaMemsetAsync(slots_.get() + slot, ++calls_, 1, stream));
    }
    void all_reduce(int slot, ncclComm_t comm, cudaStream_t stream) override {
        SHOOTOUT_NCCL_CHECK(ncclAllReduce(slots_.get() + slot, slots_.get() + slot, 1, ncclUint8, ncclSum, comm, stream));
    }
    double result(int slot) override {
        unsigned char total = 0;
        SHOOTOUT_CUDA_CHECK(cudaMemcpy(&total, slots_.get() + slot, 1, cudaMemcpyDeviceToHost));
        return total;
    }

private:
    int calls_ = 0;
    cuda::DeviceBuffer<unsigned char> slots_;
};

// Batches of one call, of more calls than the slots, of as many and of fewer: the last call's slot
// moves, and result() must read the one the last call wrote and every GPU all-reduced. (18 calls in
// all: gpus x 18 fits a byte up to 14 GPUs.)
TEST(NcclSlots, ResultIsTheLastCallsAllReduce) {
    const Backend* nccl = find_backend("nccl/sum");
    ASSERT_NE(nccl, nullptr);
    if (auto reason = nccl->why_unavailable()) GTEST_SKIP() << *reason;
    const auto spec = std::make_shared<const cuda::MultiGpuSpec>(cuda::MultiGpuSpec{
        .name = "test/call-numbers",
        .description = "each GPU's partial is the number of the call that wrote it",
        .traits = {},
        .make = [](std::size_t) -> std::unique_ptr<cuda::ShardSum<float>> { return std::make_unique<CallNumbers>(); }});
    const std::vector<float> input(1000, 1.0f);
    for (int gpus : gpu_counts(*nccl)) {
        ASSERT_LE(gpus, 14);
        auto reduction = cuda::make_multi_gpu_reduction(spec, std::span<const float>(input), gpus);
        int calls = 0;
        for (int batch : {1, cuda::kCallsInFlight + 3, 1, cuda::kCallsInFlight, cuda::kCallsInFlight - 1, 2}) {
            EXPECT_GT(batch == 1 ? reduction->run().value_or(0) : reduction->run_batch(batch), 0);
            calls += batch;
            EXPECT_EQ(reduction->result(), gpus * calls) << "after a batch of " << batch << ", " << gpus << " GPUs";
        }
    }
}
#endif

// The mpi/* backends as the one rank of a process that MPI was never started in: they make no MPI
// call then, and must sum like their local backends.
class EveryMpiBackendOnOneRank : public ::testing::TestWithParam<const Backend*> {
protected:
    void SetUp() override {
        if (auto reason = GetParam()->why_unavailable()) GTEST_SKIP() << *reason;
    }
    const Backend& backend() const { return *GetParam(); }
};

TEST_P(EveryMpiBackendOnOneRank, ExactOnSmallAndOddSizes) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto data = small_integers<T>(1000003 + 3, kExactMagnitude<T>, 2);
        for (std::size_t n : {0u, 1u, 31u, 1000003u}) {
            const auto input = std::span<const T>(data).subspan(3, n);
            EXPECT_EQ(sum_with(backend(), input, 1), exact_sum_of(input).round()) << "n=" << n;
        }
    });
}

TEST_P(EveryMpiBackendOnOneRank, WithinTheBoundOfItsTraitsOnUniformData) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto v = uniform_values<T>((1 << 20) + 3, 6);
        const ExactAccumulator s = exact_sum_of(v);
        const double bound = bounds::for_traits(backend().traits_for(element_type_of<T>),
                                                {.n = v.size(), .abs_sum = s.round(), .exact = s.round(), .threads = 2})
                                 .value();
        EXPECT_LE(absolute_error(sum_with(backend(), std::span<const T>(v), 1), s), bound);
    });
}

TEST_P(EveryMpiBackendOnOneRank, DeclaresWhatTheHarnessNeeds) {
    EXPECT_TRUE(backend().distributed);
    EXPECT_EQ(backend().timing, Timing::device_events) << "the slowest rank's time, returned by run()";
    EXPECT_FALSE(backend().batches);
    EXPECT_FALSE(backend().multi_gpu);
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryMpiBackendOnOneRank,
                         ::testing::ValuesIn(backends_where([](const Backend& b) { return b.distributed; })), backend_test_name);

}  // namespace
}  // namespace shootout
