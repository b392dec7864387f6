// Every registered CUDA backend against the exact sum. Without a usable GPU every test reports
// skipped, with the reason the backend gives.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "bench/backend.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/error_bounds.hpp"
#include "bench/exact_sum.hpp"
#include "bench/inputs.hpp"

namespace shootout {
namespace {

// One-GPU, one-process backends: nccl/* and mpi/cuda have tests/scale_out_test.cpp.
std::vector<const Backend*> cuda_backends() {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (b.device == cuda::kDevice && !b.multi_gpu && !b.distributed) list.push_back(&b);
    return list;
}

class EveryCudaBackend : public ::testing::TestWithParam<const Backend*> {
protected:
    void SetUp() override {
        if (auto reason = GetParam()->why_unavailable()) GTEST_SKIP() << *reason;
    }
    const Backend& backend() const { return *GetParam(); }
    void expect_exact(std::span<const float> input, bool include_transfer = false) {
        if (!sums(backend())) {
            EXPECT_TRUE(std::isnan(device_sum(backend(), input, include_transfer))) << "a copy reports no sum";
            return;
        }
        EXPECT_EQ(device_sum(backend(), input, include_transfer), exact_sum(input).round())
            << "n=" << input.size() << (include_transfer ? " with transfer" : "");
    }
};

TEST_P(EveryCudaBackend, EmptyIsZero) {
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    EXPECT_EQ(device_sum(backend(), {}), 0.0);
    EXPECT_EQ(device_sum(backend(), {}, true), 0.0);
}

// The small and odd sizes: compute-sanitizer runs these (scripts/gpu_check.sh).
TEST_P(EveryCudaBackend, ExactOnSmallAndOddSizes) {
    const auto data = small_integers(1000003 + 3, 1, 1);
    for (std::size_t n : {1u, 31u, 1000u, 1000003u})
        for (std::size_t offset : {0u, 3u}) expect_exact(std::span<const float>(data).subspan(offset, n));
}

TEST_P(EveryCudaBackend, ExactOn2To24Plus5) {
    const auto data = small_integers((1u << 24) + 5, 1, 2);
    expect_exact(data);
}

TEST_P(EveryCudaBackend, ExactWithHostToDeviceTransfer) {
    const auto data = small_integers(1000003, 1, 3);
    expect_exact(data, true);
}

// Above 2^31 elements, where 32-bit indices wrap. Ones every 257 elements and in the last 1000, zeros
// elsewhere: the sum (under 2^24) is exact in any order, and a lost or repeated stretch, the end
// past 2^31 included, changes it.
TEST_P(EveryCudaBackend, ExactAbove2To31Elements) {
    static const std::vector<float> data = [] {
        std::vector<float> v((std::size_t{1} << 31) + 1001, 0.0f);
        for (std::size_t i = 0; i < v.size(); i += 257) v[i] = 1.0f;
        std::fill(v.end() - 1000, v.end(), 1.0f);
        return v;
    }();
    static const double exact = exact_sum(data).round();
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    try {
        EXPECT_EQ(device_sum(backend(), data), exact);
    } catch (const ResourceExhausted& e) {
        GTEST_SKIP() << "the device lacks the memory: " << e.what();
    }
}

// The bound the backend's traits promise (tests/error_bounds.hpp).
TEST_P(EveryCudaBackend, WithinTheBoundOfItsTraitsOnUniformData) {
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    std::vector<float> v((1 << 22) + 3);
    fill(v, Distribution::uniform, 5);
    const double s = exact_sum(v).round();  // all positive: sum |x| = S
    const double bound = bounds::for_traits(backend().traits, {.n = v.size(), .abs_sum = s, .exact = s, .threads = 1}).value();
    ASSERT_TRUE(std::isfinite(bound));
    EXPECT_LE(std::abs(device_sum(backend(), v) - s), bound)
        << "accumulator " << to_string(backend().traits.accumulator) << ", order " << to_string(backend().traits.order);
}

// Each float is added as the terms its accumulator declares (bounds::as_added), rounded no more and
// no less. Two inputs whose sums every order adds exactly in float: 2049 floats 1 + 2^-12 (13
// significant bits) among zeros, every 512th element, partial sums under 2^12 (24 bits), which one
// TF32 term rounds to 1; and two floats 1 + 2^-12 + 2^-23 (24 bits), one in a whole tile and one in
// the tail, whose rest after an 11-bit head, 12 bits, the split's second term rounds.
TEST_P(EveryCudaBackend, AddsEachFloatAsItsAccumulatorDeclares) {
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    const Accumulator accumulator = backend().traits.accumulator;
    const auto expect_as_added = [&](const std::vector<float>& v) {
        double expected = 0;  // exact in double
        for (float x : v) expected += bounds::as_added(x, accumulator);
        EXPECT_EQ(device_sum(backend(), v), expected) << "accumulator " << to_string(accumulator) << ", exact sum " << exact_sum(v).round();
    };
    std::vector<float> sparse((1u << 20) + 3, 0.0f);
    for (std::size_t i = 1; i < sparse.size(); i += 512) sparse[i] = 1 + 0x1p-12f;
    expect_as_added(sparse);
    std::vector<float> pair((1u << 20) + 3, 0.0f);
    pair[5] = pair[pair.size() - 2] = 1 + 0x1p-12f + 0x1p-23f;
    expect_as_added(pair);
}

// A backend that declares itself reproducible gives the same bits on every call, isolated or batched.
TEST_P(EveryCudaBackend, ReproducibleBackendsGiveTheSameBitsOnEveryCall) {
    if (!sums(backend()) || backend().traits.reproducibility == Reproducibility::none)
        GTEST_SKIP() << "declares no reproducibility";
    std::vector<float> v(1000003);
    fill(v, Distribution::normal, 9);
    auto reduction = backend().prepare(v, {.batch = 3});
    reduction->run();
    const double first = reduction->result();
    for (int call = 0; call < 20; ++call) {
        reduction->run();
        ASSERT_EQ(reduction->result(), first) << "call " << call;
    }
    reduction->run_batch(3);
    EXPECT_EQ(reduction->result(), first) << "after a batch";
}

// A batch of calls leaves the same sum as one call; in-place kernels get a fresh copy for each call.
TEST_P(EveryCudaBackend, BatchedCallsSumTheInputEachTime) {
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    const auto data = small_integers(1000003, 1, 4);
    auto reduction = backend().prepare(data, {.batch = 5});
    for (int batch = 0; batch < 3; ++batch) {
        const double seconds = reduction->run_batch(5);
        EXPECT_GT(seconds, 0);
        EXPECT_EQ(reduction->result(), exact_sum(data).round()) << "batch " << batch;
    }
}

TEST_P(EveryCudaBackend, NanAndInfinityPropagate) {
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    for (std::size_t n : {1u, 33u, 1000003u})
        for (std::size_t where : {std::size_t{0}, n / 2, n - 1}) {
            std::vector<float> v(n, 1.0f);
            v[where] = std::numeric_limits<float>::quiet_NaN();
            EXPECT_TRUE(std::isnan(device_sum(backend(), v))) << "NaN at " << where << " of " << n;
            v[where] = std::numeric_limits<float>::infinity();
            EXPECT_EQ(device_sum(backend(), v), std::numeric_limits<double>::infinity()) << "Inf at " << where << " of " << n;
        }
}

TEST_P(EveryCudaBackend, NamesItsDevice) {
    ASSERT_TRUE(backend().device_info);
    const DeviceInfo info = backend().device_info();
    EXPECT_FALSE(info.name.empty());
    EXPECT_GT(info.peak_gbps, 0) << info.name;
    EXPECT_EQ(backend().timing, Timing::device_events);
    EXPECT_TRUE(backend().supports_transfer);
    EXPECT_TRUE(backend().batches);
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryCudaBackend, ::testing::ValuesIn(cuda_backends()), backend_test_name);
// A build without CUDA has no CUDA backends to instantiate the suite with.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EveryCudaBackend);

TEST(CudaBuild, SaysWhyItHasNoCudaBackends) {
    if (const auto missing = cuda_unbuilt()) {
        EXPECT_TRUE(cuda_backends().empty());
        GTEST_SKIP() << *missing;
    }
    EXPECT_FALSE(cuda_backends().empty());
}

}  // namespace
}  // namespace shootout
