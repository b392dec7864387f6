// Every registered CUDA backend against the exact sum, on every element type it takes. Without a
// usable GPU every test reports skipped, with the reason the backend gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "api/backend.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/device_suite_checks.hpp"
#include "tests/error_bounds.hpp"
#include "exact/exact_sum.hpp"
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

// Integers whose every partial sum, in any order, the backend's accumulator for T holds exactly
// (exact_up_to): small integers of T's magnitude where n of them allow it, else -1, 0 or 1 at every
// stride-th element and zeros between, at most exact_up_to of them, so that a 16-bit accumulator
// too must return the exact sum however long the input.
template <class T>
std::vector<T> exact_integers(const Backend& backend, std::size_t n, unsigned seed) {
    const double most = exact_up_to(backend.traits_for(element_type_of<T>).accumulator);
    if (static_cast<double>(n) * kExactMagnitude<T> <= most) return small_integers<T>(n, kExactMagnitude<T>, seed);
    const auto stride = static_cast<std::size_t>(std::ceil(static_cast<double>(n) / most));
    std::vector<T> v = small_integers<T>(n, 1, seed);
    for (std::size_t i = 0; i < n; ++i)
        if (i % stride != 0) v[i] = T(0);
    return v;
}

class EveryCudaBackend : public ::testing::TestWithParam<const Backend*> {
protected:
    void SetUp() override {
        if (auto reason = GetParam()->why_unavailable()) GTEST_SKIP() << *reason;
    }
    const Backend& backend() const { return *GetParam(); }
    template <class T>
    void expect_exact(std::span<const T> input, bool include_transfer = false) {
        if (!sums(backend())) {
            EXPECT_TRUE(std::isnan(device_sum(backend(), input, include_transfer))) << "a copy reports no sum";
            return;
        }
        EXPECT_EQ(device_sum(backend(), input, include_transfer), exact_sum_of(input).round())
            << "n=" << input.size() << (include_transfer ? " with transfer" : "");
    }
};

TEST_P(EveryCudaBackend, EmptyIsZero) {
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        EXPECT_EQ(device_sum(backend(), std::span<const T>()), 0.0);
        EXPECT_EQ(device_sum(backend(), std::span<const T>(), true), 0.0);
    });
}

// The small and odd sizes, from starts off the 16-byte vectors: compute-sanitizer runs these
// (scripts/gpu_check.sh).
TEST_P(EveryCudaBackend, ExactOnSmallAndOddSizes) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const auto data = exact_integers<T>(backend(), 1000003 + 3, 1);
        for (std::size_t n : {1u, 31u, 1000u, 1000003u})
            for (std::size_t offset : {0u, 1u, 3u}) expect_exact(std::span<const T>(data).subspan(offset, n));
    });
}

TEST_P(EveryCudaBackend, ExactOn2To24Plus5) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { expect_exact<T>(exact_integers<T>(backend(), (1u << 24) + 5, 2)); });
}

TEST_P(EveryCudaBackend, ExactWithHostToDeviceTransfer) {
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        expect_exact<T>(exact_integers<T>(backend(), 1000003, 3), true);
    });
}

// Ones every 257 elements and in the last 1000, zeros elsewhere, 2^31 + 1001 of them: the sum (under
// 2^24, ceil((n - 1000) / 257) + 1000) is exact in any order, and a lost or repeated stretch, the end
// past 2^31 included, changes it. Made once per type.
template <class T>
const std::vector<T>& above_2_to_31() {
    static const std::vector<T> data = [] {
        std::vector<T> v((std::size_t{1} << 31) + 1001, T(0));
        for (std::size_t i = 0; i < v.size(); i += 257) v[i] = T(1);
        std::fill(v.end() - 1000, v.end(), T(1));
        return v;
    }();
    return data;
}

// Above 2^31 elements, where 32-bit indices wrap, in every type the backend takes.
TEST_P(EveryCudaBackend, ExactAbove2To31Elements) {
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        const std::vector<T>& data = above_2_to_31<T>();
        const double exact = static_cast<double>((data.size() - 1000 + 256) / 257 + 1000);
        if (exact > exact_up_to(backend().traits_for(element_type_of<T>).accumulator)) {
            std::cout << "[ SKIPPED  ] " << to_string(element_type_of<T>) << ": its accumulator cannot hold " << exact << '\n';
            return;
        }
        try {
            EXPECT_EQ(device_sum(backend(), std::span<const T>(data)), exact);
        } catch (const ResourceExhausted& e) {
            GTEST_SKIP() << "the device lacks the memory: " << e.what();
        }
    });
}

// The bound the backend's traits for the type promise, at 2^22 + 3 elements.
TEST_P(EveryCudaBackend, WithinTheBoundOfItsTraitsOnUniformData) {
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        device_checks::within_the_bound_of_its_traits<T>(backend(), (1u << 22) + 3);
    });
}

// Each float is added as the terms its accumulator declares (bounds::as_added), rounded no more and
// no less. Two inputs whose sums every order adds exactly in float: 2049 floats 1 + 2^-12 (13
// significant bits) among zeros, every 512th element, partial sums under 2^12 (24 bits), which one
// TF32 term rounds to 1; and two floats 1 + 2^-12 + 2^-23 (24 bits), one in a whole tile and one in
// the tail, whose rest after an 11-bit head, 12 bits, the split's second term rounds.
TEST_P(EveryCudaBackend, AddsEachFloatAsItsAccumulatorDeclares) {
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    if (!backend().takes(ElementType::f32)) GTEST_SKIP() << "takes no float input";
    const Accumulator accumulator = backend().traits_for(ElementType::f32).accumulator;
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
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { device_checks::the_same_bits_on_every_call<T>(backend(), 20); });
}

// A batch of calls leaves the same sum as one call; in-place kernels get a fresh copy for each call.
TEST_P(EveryCudaBackend, BatchedCallsSumTheInputEachTime) {
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) {
        device_checks::every_batched_call_sums_the_input<T>(backend(), exact_integers<T>(backend(), 1000003, 4), 5, 3);
    });
}

TEST_P(EveryCudaBackend, NanAndInfinityPropagate) {
    if (!sums(backend())) GTEST_SKIP() << "a copy sums nothing";
    for_each_element_type(backend(), [&]<class T>(std::type_identity<T>) { device_checks::nan_and_infinity_propagate<T>(backend()); });
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

// The backends that take every element type, and what they accumulate each in: double for
// float64 input, float (or Kahan float) for the others unless the backend says double; and the one
// that keeps 16-bit input in 16 bits.
TEST(CudaElementTypes, EveryTypeWithTheAccumulatorItsTraitsName) {
    if (const auto missing = cuda_unbuilt()) GTEST_SKIP() << *missing;
    struct Expected {
        const char* name;
        Accumulator for_f64, otherwise;
    };
    const Expected expected[] = {
        {"cuda/single-pass", Accumulator::f64, Accumulator::f32},
        {"cuda/single-pass-f64", Accumulator::f64, Accumulator::f64},
        {"cuda/single-pass-kahan", Accumulator::compensated_f64, Accumulator::compensated_f32},
        {"cuda/cub", Accumulator::f64, Accumulator::f32},
        {"cuda/thrust", Accumulator::f64, Accumulator::f32},
        {"cuda/exact", Accumulator::exact, Accumulator::exact},
    };
    for (const auto& [name, for_f64, otherwise] : expected) {
        const Backend* backend = find_backend(name);
        ASSERT_NE(backend, nullptr) << name;
        for (ElementType type : kElementTypes) {
            EXPECT_TRUE(backend->takes(type)) << name << " " << to_string(type);
            EXPECT_EQ(backend->traits_for(type).accumulator, type == ElementType::f64 ? for_f64 : otherwise)
                << name << " " << to_string(type);
        }
    }
    // CUB kept in the 16-bit type, for the 16-bit types only.
    const Backend* acc16 = find_backend("cuda/cub-acc16");
    ASSERT_NE(acc16, nullptr);
    EXPECT_EQ(acc16->element_types, (std::vector{ElementType::f16, ElementType::bf16}));
    EXPECT_EQ(acc16->traits_for(ElementType::f16).accumulator, Accumulator::f16);
    EXPECT_EQ(acc16->traits_for(ElementType::bf16).accumulator, Accumulator::bf16);
}

TEST(CudaBuild, SaysWhyItHasNoCudaBackends) {
    if (const auto missing = cuda_unbuilt()) {
        EXPECT_TRUE(cuda_backends().empty());
        GTEST_SKIP() << *missing;
    }
    EXPECT_FALSE(cuda_backends().empty());
}

}  // namespace
}  // namespace shootout
