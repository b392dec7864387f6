// Every registered CPU backend against the exact sum, on every element type it declares.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "api/backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/error_bounds.hpp"

namespace shootout {
namespace {

std::vector<const Backend*> available_cpu_backends() {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (b.device == Device::cpu && !b.why_unavailable()) list.push_back(&b);
    return list;
}

template <class T>
double sum_with(const Backend& backend, std::span<const T> input, int threads = 2) {
    auto reduction = backend.prepare(input, {.threads = threads});
    reduction->run();
    reduction->run();  // a second call must give the same, from scratch
    return reduction->result();
}

class EveryCpuBackend : public ::testing::TestWithParam<const Backend*> {};

TEST_P(EveryCpuBackend, EmptyIsZero) {
    for_each_element_type(*GetParam(), [&]<class T>(std::type_identity<T>) {
        EXPECT_EQ(sum_with(*GetParam(), std::span<const T>()), 0.0);
    });
}

// One element, lane remainders (of 8 and 16 lanes, and of the 32 values one 64-byte load of 16-bit
// values widens into two vectors), and starts off the vector alignment (by one and three elements); a
// 16-bit accumulator only up to the sizes whose every partial sum it holds exactly. The largest size
// is a tenth for the 16-bit types: their loops are the float ones, and the suite runs under emulation.
TEST_P(EveryCpuBackend, ExactOnLaneRemaindersAndUnalignedStarts) {
    for_each_element_type(*GetParam(), [&]<class T>(std::type_identity<T>) {
        const std::size_t largest = sizeof(T) == 2 ? 100003 : 1000003;
        const auto data = small_integers<T>(largest + 16, kExactMagnitude<T>, 1);
        const double most = exact_up_to(GetParam()->traits_for(element_type_of<T>).accumulator) / kExactMagnitude<T>;
        for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{9}, std::size_t{15}, std::size_t{16}, std::size_t{17},
                              std::size_t{31}, std::size_t{33}, std::size_t{48}, std::size_t{1000}, largest})
            for (std::size_t offset : {0u, 1u, 3u}) {
                if (static_cast<double>(n) > most) continue;
                const std::span<const T> input(data.data() + offset, n);
                EXPECT_EQ(sum_with(*GetParam(), input), exact_sum_of(input).round()) << "n=" << n << " offset=" << offset;
            }
    });
}

TEST_P(EveryCpuBackend, NanAndInfinityPropagate) {
    for_each_element_type(*GetParam(), [&]<class T>(std::type_identity<T>) {
        for (std::size_t n : {std::size_t{1}, std::size_t{33}, sizeof(T) == 2 ? std::size_t{100003} : std::size_t{1000003}})
            for (std::size_t where : {std::size_t{0}, n / 2, n - 1}) {
                std::vector<T> v(n, T(1));
                v[where] = std::numeric_limits<T>::quiet_NaN();
                EXPECT_TRUE(std::isnan(sum_with(*GetParam(), std::span<const T>(v)))) << "NaN at " << where << " of " << n;
                v[where] = std::numeric_limits<T>::infinity();
                EXPECT_EQ(sum_with(*GetParam(), std::span<const T>(v)), std::numeric_limits<double>::infinity())
                    << "Inf at " << where << " of " << n;
            }
    });
}

// Finite floats whose running float sums overflow: the SIMD Kahan lanes keep the infinity their sums
// reached (an unguarded compensation turns it into inf - inf, NaN). A run of 512 FLT_MAX puts at
// least two in every lane of every accumulator, wherever it starts.
TEST(SimdKahan, OverflowEndsAtInfinity) {
    constexpr std::size_t run = 512;
    for (const char* name : {"cpu/avx2/kahan", "cpu/avx512/kahan", "cpu/neon/kahan", "cpu/sve/kahan"}) {
        const Backend* backend = find_backend(name);
        ASSERT_NE(backend, nullptr) << name;
        if (backend->why_unavailable()) continue;
        for (std::size_t n : {run, std::size_t{1000}, std::size_t{1000003}})
            for (std::size_t where : {std::size_t{0}, (n - run) / 2, n - run}) {
                std::vector<float> v(n, 1.0f);
                std::fill_n(v.begin() + static_cast<std::ptrdiff_t>(where), run, std::numeric_limits<float>::max());
                EXPECT_EQ(sum_with(*backend, std::span<const float>(v)), std::numeric_limits<double>::infinity())
                    << name << ": FLT_MAX from " << where << " of " << n;
            }
    }
}

// Any order of n - 1 additions in the element type is within gamma_{n-1} sum |x| of S (Higham,
// Accuracy and Stability of Numerical Algorithms, 2nd ed., eq. 4.4), and no backend's accumulator
// is narrower than its input. n is 2^20, or for the 16-bit types 2^(p - 4), p their significand
// bits: where n u = 1/16, and the bound still says something.
TEST_P(EveryCpuBackend, WithinTheRecursiveSummationBoundOnUniformData) {
    for_each_element_type(*GetParam(), [&]<class T>(std::type_identity<T>) {
        const auto v = uniform_values<T>(std::size_t{1} << std::min(20, std::numeric_limits<T>::digits - 4), 5);
        const ExactAccumulator s = exact_sum_of(v);  // all positive: sum |x| = S
        const bounds::Problem p{.n = v.size(), .abs_sum = s.round(), .exact = s.round(), .threads = 2};
        EXPECT_LE(absolute_error(sum_with(*GetParam(), std::span<const T>(v)), s), bounds::any_order(p, bounds::kUnitRoundoff<T>));
    });
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryCpuBackend, ::testing::ValuesIn(available_cpu_backends()), backend_test_name);

// Double input goes to every backend that keeps its precision, and to none that would round it.
TEST(CpuElementTypes, DoubleInputWhereTheSumKeepsItsPrecision) {
    const std::pair<const char*, Accumulator> takes_doubles[] = {
        {"cpu/serial/accumulate-f64", Accumulator::f64}, {"cpu/serial/kahan", Accumulator::compensated_f64},
        {"cpu/serial/neumaier", Accumulator::compensated_f64}, {"cpu/serial/pairwise", Accumulator::f64},
        {"cpu/serial/unrolled", Accumulator::f64}, {"cpu/pool/simd", Accumulator::f64},
    };
    for (const auto& [name, accumulator] : takes_doubles) {
        const Backend* backend = find_backend(name);
        ASSERT_NE(backend, nullptr) << name;
        EXPECT_TRUE(backend->takes(ElementType::f64)) << name;
        EXPECT_TRUE(backend->takes(ElementType::f32)) << name;
        EXPECT_EQ(backend->traits_for(ElementType::f64).accumulator, accumulator) << name;
    }
    const Backend& float_only = *find_backend("cpu/serial/accumulate-f32");
    EXPECT_FALSE(float_only.takes(ElementType::f64));
    // The harness never prepares a backend with a type it does not declare; a caller that does is told.
    const std::vector<double> doubles(5, 1.0);
    EXPECT_THROW(float_only.prepare(std::span<const double>(doubles), {}), std::logic_error);
    EXPECT_EQ(find_backend("cpu/serial/kahan")->traits_for(ElementType::f32).accumulator, Accumulator::compensated_f32);
}

// The double-input kernels of every instruction set, called directly: the backends reach only the
// widest one this CPU runs (simd::best()). A test name holds the kernel's name, so that the
// emulated SVE runs' filter (*_sve_*, tests/CMakeLists.txt) takes the SVE one.
struct DoubleKernel {
    const char* name;
    std::optional<std::string> (*unavailable)();
    simd::SumDoublesToDouble sum;
};
void PrintTo(const DoubleKernel& kernel, std::ostream* os) { *os << kernel.name; }

const DoubleKernel kDoubleKernels[] = {
    {"sum_avx2_f64", simd::avx2_unavailable, simd::sum_avx2_f64},
    {"sum_avx512_f64", simd::avx512_unavailable, simd::sum_avx512_f64},
    {"sum_neon_f64", simd::neon_unavailable, simd::sum_neon_f64},
    {"sum_sve_f64", simd::sve_unavailable, simd::sum_sve_f64},
    {"sum_unrolled_f64", [] { return std::optional<std::string>(); }, simd::sum_unrolled_f64},
};

class EveryDoubleKernel : public ::testing::TestWithParam<DoubleKernel> {
protected:
    void SetUp() override {
        if (auto why = GetParam().unavailable()) GTEST_SKIP() << *why;
    }
};

// Every length up to four blocks of the widest (8 accumulators x 8 lanes), longer ones, from starts
// off the vector alignment; integers up to 2^30, which floats would round.
TEST_P(EveryDoubleKernel, ExactOnEveryRemainderAndUnalignedStart) {
    const auto data = small_integers<double>(100003 + 8, kExactMagnitude<double>, 6);
    std::vector<std::size_t> sizes(257);
    std::iota(sizes.begin(), sizes.end(), 0);
    sizes.insert(sizes.end(), {1000, 4099, 100003});
    for (std::size_t n : sizes)
        for (std::size_t offset : {0u, 1u, 3u, 7u}) {
            const std::span<const double> input(data.data() + offset, n);
            EXPECT_EQ(GetParam().sum(input.data(), n), exact_sum_of(input).round()) << "n=" << n << " offset=" << offset;
        }
}

TEST_P(EveryDoubleKernel, NanAndInfinityPropagate) {
    for (std::size_t n : {1u, 5u, 67u, 4099u})
        for (std::size_t where : {std::size_t{0}, n / 2, n - 1}) {
            std::vector<double> v(n, 1.0);
            v[where] = std::numeric_limits<double>::quiet_NaN();
            EXPECT_TRUE(std::isnan(GetParam().sum(v.data(), n))) << "NaN at " << where << " of " << n;
            v[where] = -std::numeric_limits<double>::infinity();
            EXPECT_EQ(GetParam().sum(v.data(), n), -std::numeric_limits<double>::infinity()) << "-Inf at " << where << " of " << n;
        }
}

INSTANTIATE_TEST_SUITE_P(Kernels, EveryDoubleKernel, ::testing::ValuesIn(kDoubleKernels),
                         [](const auto& info) { return std::string(info.param.name); });

// At one thread and below one chunk (balanced_chunks.hpp), cpu/pool/simd is one call of the best
// double kernel: bit for bit its sum.
TEST(CpuElementTypes, PoolSimdSumsDoublesWithTheBestDoubleKernel) {
    const auto data = uniform_values<double>(10007, 8);
    const std::span<const double> input(data.data() + 1, data.size() - 1);
    EXPECT_EQ(sum_with(*find_backend("cpu/pool/simd"), input, 1), simd::best().sum_f64_doubles(input.data(), input.size()));
}

}  // namespace
}  // namespace shootout
