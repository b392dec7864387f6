// Every backend whose traits say Accumulator::exact, CPU and CUDA, against bench's exact_sum (an
// independent superaccumulator): the same bits, on the inputs where any other order of additions
// loses, for every thread count and call, and between CPU and GPU. Without a usable GPU the CUDA
// cases report skipped, with the reason the backend gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "api/backend.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/error_bounds.hpp"
#include "exact/exact_accumulator.hpp"
#include "exact/exact_sum.hpp"
#include "bench/inputs.hpp"
#include "cpu/kernels/simd_kernels.hpp"
#include "opencl/runtime/opencl_api.hpp"
#include "vulkan/runtime/vulkan_api.hpp"

namespace shootout {
namespace {

std::vector<const Backend*> exact_backends() {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (b.traits.accumulator == Accumulator::exact) list.push_back(&b);
    return list;
}

std::string hex(double x) {
    char text[40];
    std::snprintf(text, sizeof text, "%a", x);
    return text;
}

// The same bits: NaN's included, +0 is not -0.
::testing::AssertionResult same_bits(double got, double want) {
    if (std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << hex(got) << ", the exact sum rounded is " << hex(want);
}

double exact(Elements input) { return exact_sum(input).round(); }
template <class T>
double exact(const std::vector<T>& input) {
    return exact_sum(std::span<const T>(input)).round();
}

std::vector<float> generate(const std::string& input, std::size_t n, std::uint64_t seed = 42) {
    InputSpec spec;
    if (input == "normal") spec.distribution = Distribution::normal;
    else if (input == "wide") spec.distribution = Distribution::wide;
    else if (input == "cancel") spec.distribution = Distribution::cancel;
    else {
        spec.distribution = Distribution::ill_conditioned;
        spec.condition = std::stod(input.substr(4));  // "ill:1e16"
    }
    spec.seed = seed;
    std::vector<float> v(n);
    fill(v, spec);
    return v;
}

std::vector<float> random_bits(std::size_t n, std::uint32_t mask, std::uint32_t set, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = std::bit_cast<float>((static_cast<std::uint32_t>(rng()) & mask) | set);
    return v;
}

// Doubles: every exact backend takes them and returns their exact sum rounded once, over the whole
// double range.
std::vector<double> random_double_bits(std::size_t n, std::uint64_t mask, std::uint64_t set, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::vector<double> v(n);
    for (double& x : v) x = std::bit_cast<double>((rng() & mask) | set);
    return v;
}

// Signs, significands and every finite binade, from subnormals to DBL_MAX's.
std::vector<double> wide_doubles(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::vector<double> v(n);
    for (double& x : v) {
        const std::uint64_t biased = rng() % 2047;  // 0 (subnormal) .. 2046
        x = std::bit_cast<double>((rng() & 0x800fffffffffffffu) | biased << 52);
    }
    return v;
}

constexpr std::size_t kOdd = 1000003;

class EveryExactBackend : public ::testing::TestWithParam<const Backend*> {
protected:
    void SetUp() override {
        if (auto reason = GetParam()->why_unavailable()) GTEST_SKIP() << *reason;
    }
    const Backend& backend() const { return *GetParam(); }

    // Two calls on one prepared input: the second must give the same from scratch.
    template <class T>
    double sum(const std::vector<T>& input, int threads = 2) const {
        return sum(Elements(std::span<const T>(input)), threads);
    }
    // The exact sum's bits from every call at every thread count.
    template <class T>
    void same_bits_for_every_thread_count(const std::vector<T>& v) const {
        const double s = exact(v);
        for (int threads : {1, 2, 3, 7}) {
            if (!backend().parallel && threads > 1) break;
            auto reduction = backend().prepare(std::span<const T>(v), {.threads = threads});
            for (int call = 0; call < 5; ++call) {
                reduction->run();
                EXPECT_TRUE(same_bits(reduction->result(), s)) << threads << " threads, call " << call;
            }
        }
    }

    // NaN gives NaN, one infinity itself, both NaN: wherever they are in inputs made by make(n).
    template <class T, class Make>
    void nan_and_infinity(Make make, std::size_t largest = kOdd) const {
        constexpr T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
        const double dinf = std::numeric_limits<double>::infinity();
        for (std::size_t n : {std::size_t{1}, std::size_t{33}, largest})
            for (std::size_t where : {std::size_t{0}, n / 2, n - 1}) {
                std::vector<T> v = make(n);
                v[where] = nan;
                EXPECT_TRUE(std::isnan(sum(v))) << "NaN at " << where << " of " << n;
                v[where] = inf;
                EXPECT_TRUE(same_bits(sum(v), dinf)) << "+Inf at " << where << " of " << n;
                v[where] = -inf;
                EXPECT_TRUE(same_bits(sum(v), -dinf)) << "-Inf at " << where << " of " << n;
                if (n == 1) continue;
                v[n - 1 - where == where ? 0 : n - 1 - where] = inf;
                EXPECT_TRUE(std::isnan(sum(v))) << "+Inf and -Inf";
                v[where] = nan;
                EXPECT_TRUE(std::isnan(sum(v))) << "NaN and +Inf";
            }
    }

    double sum(Elements input, int threads = 2) const {
        auto reduction = backend().prepare(input, {.threads = threads});
        reduction->run();
        const double first = reduction->result();
        reduction->run();
        EXPECT_TRUE(same_bits(reduction->result(), first)) << "second call";
        return first;
    }
};

TEST_P(EveryExactBackend, EmptyIsPositiveZero) { EXPECT_TRUE(same_bits(sum({}), 0.0)); }

TEST_P(EveryExactBackend, OneElement) {
    for (float x : {1.0f, -3.5f, 0.1f, 0x1p-149f, -0x1p-126f, FLT_MAX, -FLT_MAX, 0.0f, -0.0f}) {
        const std::vector<float> one{x};
        EXPECT_TRUE(same_bits(sum(one), exact(one))) << x;
    }
}

TEST_P(EveryExactBackend, OddSizesAndUnalignedStarts) {
    const auto data = generate("normal", kOdd + 3);
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{31}, kOdd})
        for (std::size_t offset : {0u, 1u, 3u}) {
            const Elements input = std::span<const float>(data.data() + offset, n);
            EXPECT_TRUE(same_bits(sum(input), exact(input))) << "n=" << n << " offset=" << offset;
        }
}

// Sizes about a GPU grid's shape (cuda/dispatch/exact_dispatch.cuh): one block's pass of 4096 floats
// and one float either side, 33 blocks (more than the 32 copies of the grid's total), a full grid whose
// threads make several trips; on inputs whose threads' windows differ within a warp (normal) and
// that fill the threads' digits (wide).
TEST_P(EveryExactBackend, SizesAboutTheGrid) {
    for (const char* input : {"normal", "wide"}) {
        const auto data = generate(input, (std::size_t{1} << 22) + 3);
        for (std::size_t n : {std::size_t{4095}, std::size_t{4096}, std::size_t{4097}, std::size_t{33 * 4096 + 1}, data.size()}) {
            const Elements x = std::span<const float>(data.data(), n);
            EXPECT_TRUE(same_bits(sum(x), exact(x))) << input << " n=" << n;
        }
    }
}

TEST_P(EveryExactBackend, HardInputs) {
    for (const char* input : {"ill:1e8", "ill:1e16", "ill:1e30", "wide", "cancel"})
        for (std::size_t n : {std::size_t{1000}, kOdd}) {
            const auto v = generate(input, n);
            const double s = exact(v);
            const double got = sum(v);
            EXPECT_TRUE(same_bits(got, s)) << input << " n=" << n;
            // The promise in the harness's terms: at most half an ulp of S, 0 when S is a double.
            EXPECT_LE(relative_error(got, exact_sum(v)), bounds::kDoubleU) << input;
        }
}

TEST_P(EveryExactBackend, AllSubnormal) {
    const auto v = random_bits(kOdd, 0x807fffffu, 0, 1);  // biased exponent 0, both signs
    EXPECT_TRUE(same_bits(sum(v), exact(v)));
    const auto positive = random_bits(kOdd, 0x007fffffu, 0, 2);
    EXPECT_TRUE(same_bits(sum(positive), exact(positive)));
}

// 2^20 floats near FLT_MAX: their sum, about 2^148, overflows any float accumulator but is a
// finite double.
TEST_P(EveryExactBackend, NearFltMaxOverflowsFloatsNotDouble) {
    const auto v = random_bits(std::size_t{1} << 20, 0x007fffffu, 0x7f000000u, 3);  // [2^127, 2^128)
    const double s = exact(v);
    ASSERT_GT(s, FLT_MAX);
    ASSERT_TRUE(std::isfinite(s));
    EXPECT_TRUE(same_bits(sum(v), s));
}

// Exact sums halfway between two doubles round to the even one; a lower bit breaks the tie.
TEST_P(EveryExactBackend, TiesRoundToEven) {
    const std::vector<std::vector<float>> cases = {
        {1.0f, 0x1p-53f},                 // 1 + 2^-53: halfway, down to 1
        {1.0f, 0x1p-52f, 0x1p-53f},       // 1 + 3 2^-53: halfway, up to 1 + 2^-51
        {1.0f, 0x1p-53f, 0x1p-100f},      // just above halfway: up
        {-1.0f, -0x1p-53f, -0x1p-100f},   // and below -halfway: down
        {0x1p60f, 0x1p7f, -0x1p-60f},     // 2^60 + 2^7 - 2^-60: just below halfway, down to 2^60
    };
    const double want[] = {1.0, 1.0 + 0x1p-51, 1.0 + 0x1p-52, -1.0 - 0x1p-52, 0x1p60};
    for (std::size_t c = 0; c < cases.size(); ++c) {
        ASSERT_TRUE(same_bits(exact(cases[c]), want[c])) << "case " << c;
        EXPECT_TRUE(same_bits(sum(cases[c]), want[c])) << "case " << c;
        // The same values spread over a long input of zeros, so that threads and vector lanes split them.
        std::vector<float> spread(kOdd, 0.0f);
        for (std::size_t k = 0; k < cases[c].size(); ++k) spread[k * (kOdd / cases[c].size())] = cases[c][k];
        EXPECT_TRUE(same_bits(sum(spread, 3), want[c])) << "case " << c << ", spread";
    }
}

TEST_P(EveryExactBackend, NanAndInfinityAsIeeeAdditionGivesThem) {
    nan_and_infinity<float>([](std::size_t n) { return generate("ill:1e16", n); });
}

TEST_P(EveryExactBackend, SameBitsForEveryThreadCountAndCall) {
    same_bits_for_every_thread_count(generate("ill:1e16", (std::size_t{1} << 20) + 7));
}

// Every exact backend takes doubles but vulkan/exact (float32 and the 16-bit types:
// docs/portable-gpus/PERFORMANCE.md says why).
TEST_P(EveryExactBackend, TakesDoubles) { EXPECT_EQ(backend().takes(ElementType::f64), backend().name != "vulkan/exact"); }

// The cases of doubles, for every exact backend that takes them.
class EveryExactBackendOfDoubles : public EveryExactBackend {
protected:
    void SetUp() override {
        EveryExactBackend::SetUp();
        if (!IsSkipped() && !backend().takes(ElementType::f64)) GTEST_SKIP() << "takes no doubles";
    }
};

TEST_P(EveryExactBackendOfDoubles, DoublesEmptyAndOne) {
    EXPECT_TRUE(same_bits(sum(Elements(std::span<const double>())), 0.0));
    for (double x : {1.0, -3.5, 0.1, 0x1p-1074, -0x1p-1022, DBL_MAX, -DBL_MAX, 0.0, -0.0, 1e300}) {
        const std::vector<double> one{x};
        EXPECT_TRUE(same_bits(sum(one), exact(one))) << x;
    }
}

TEST_P(EveryExactBackendOfDoubles, DoublesOddSizesAndUnalignedStarts) {
    const auto data = wide_doubles(kOdd + 3, 5);
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{31}, kOdd})
        for (std::size_t offset : {0u, 1u, 3u}) {
            const Elements input = std::span<const double>(data.data() + offset, n);
            EXPECT_TRUE(same_bits(sum(input), exact(input))) << "n=" << n << " offset=" << offset;
        }
}

TEST_P(EveryExactBackendOfDoubles, DoublesOverEveryBinade) {
    for (unsigned seed : {1u, 2u, 3u}) {
        const auto v = wide_doubles(kOdd, seed);
        const double s = exact(v);
        const double got = sum(v, 3);
        EXPECT_TRUE(same_bits(got, s)) << "seed " << seed;
        // Some 500 values of the top binade: S rounds past DBL_MAX, so the correctly rounded sum is
        // infinite, and its error too (an overflow is never exact: plot/ refuses 0 beside exact=inf).
        ASSERT_TRUE(std::isinf(s)) << "seed " << seed;
        EXPECT_EQ(relative_error(got, exact_sum(std::span<const double>(v))), std::numeric_limits<double>::infinity()) << "seed " << seed;
    }
    // Below 1e-300 only, and within 2^60 of 1: narrow ranges, every bit of them kept.
    const auto small = random_double_bits(kOdd, 0x83ffffffffffffffu, 0, 4);
    EXPECT_TRUE(same_bits(sum(small), exact(small)));
    const auto near_one = random_double_bits(kOdd, 0x803fffffffffffffu, 0x3fc0000000000000u, 5);
    EXPECT_TRUE(same_bits(sum(near_one), exact(near_one)));
}

TEST_P(EveryExactBackendOfDoubles, DoublesAllSubnormal) {
    const auto v = random_double_bits(kOdd, 0x800fffffffffffffu, 0, 6);  // biased exponent 0, both signs
    const double s = exact(v);
    ASSERT_LT(std::abs(s), 0x1p-1000);
    EXPECT_TRUE(same_bits(sum(v), s));
    const auto positive = random_double_bits(kOdd, 0x000fffffffffffffu, 0, 7);
    EXPECT_TRUE(same_bits(sum(positive), exact(positive)));
}

TEST_P(EveryExactBackendOfDoubles, DoublesPastDblMaxAreInfinite) {
    const auto v = random_double_bits(std::size_t{1} << 16, 0x000fffffffffffffu, 0x7fe0000000000000u, 8);  // [2^1023, 2^1024)
    EXPECT_TRUE(same_bits(exact(v), std::numeric_limits<double>::infinity()));
    EXPECT_TRUE(same_bits(sum(v), std::numeric_limits<double>::infinity()));
    std::vector<double> negative(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) negative[i] = -v[i];
    EXPECT_TRUE(same_bits(sum(negative), -std::numeric_limits<double>::infinity()));
    // Back below DBL_MAX by the end: finite, and exact.
    std::vector<double> back = v;
    for (double x : v) back.push_back(-x);
    back.push_back(0x1p-1074);
    EXPECT_TRUE(same_bits(sum(back), 0x1p-1074));
    EXPECT_TRUE(same_bits(sum(std::vector<double>{DBL_MAX, 0x1p970}), std::numeric_limits<double>::infinity()));  // the tie, to even
    EXPECT_TRUE(same_bits(sum(std::vector<double>{DBL_MAX, 0x1p969}), DBL_MAX));
}

TEST_P(EveryExactBackendOfDoubles, DoublesMassiveCancellation) {
    EXPECT_TRUE(same_bits(sum(std::vector<double>{1e308, -1e308, 0x1p-1074}), 0x1p-1074));
    std::vector<double> spread(kOdd, 0.0);
    spread[0] = 1e308, spread[kOdd / 2] = 0x1p-1060, spread[kOdd - 1] = -1e308;
    EXPECT_TRUE(same_bits(sum(spread, 3), 0x1p-1060));
    EXPECT_TRUE(same_bits(sum(std::vector<double>{1.0, 0x1p-53, 0x1p-1074}), 1.0 + 0x1p-52));  // above the tie by 2^-1074
}

// The inputs the benchmark sums, in doubles: on the GPU they stay in each thread's expansion of
// three doubles (ill:1e30's small values are 2^100 below its large ones).
TEST_P(EveryExactBackendOfDoubles, DoublesOfEveryBenchInput) {
    for (const char* input : {"uniform", "normal", "cancel", "ill:1e4", "ill:1e16", "ill:1e30"}) {
        InputSpec spec;
        spec.distribution = std::string_view(input) == "uniform" ? Distribution::uniform
                            : std::string_view(input) == "normal" ? Distribution::normal
                            : std::string_view(input) == "cancel" ? Distribution::cancel
                                                                  : Distribution::ill_conditioned;
        if (spec.distribution == Distribution::ill_conditioned) spec.condition = std::stod(std::string(input).substr(4));
        std::vector<double> v(kOdd);
        fill(std::span<double>(v), spec);
        EXPECT_TRUE(same_bits(sum(v, 3), exact(v))) << input;
    }
}

// Inputs spanning more binades than three doubles hold, within each thread's values: what the
// expansion drops must reach the digits, and decide a rounding where it is all that does.
TEST_P(EveryExactBackendOfDoubles, DoublesSpanningMoreThanAnExpansion) {
    for (std::uint64_t span : {60u, 120u, 200u, 400u}) {
        std::mt19937_64 rng(span);
        std::vector<double> v(kOdd);
        for (double& x : v) x = std::bit_cast<double>((rng() & 0x800fffffffffffffu) | (1023 - span + rng() % (span + 1)) << 52);
        EXPECT_TRUE(same_bits(sum(v, 3), exact(v))) << span << " binades";
    }
    // 1 + 2^-53 is a tie; what breaks it is 2^-600 alone, below two values that cancel.
    for (std::size_t n : {std::size_t{8}, std::size_t{4099}, kOdd}) {
        std::vector<double> v(n, 0.0);
        v[0] = 1.0, v[1] = 0x1p-53, v[2] = 0x1p-300, v[3] = 0x1p-600, v[n - 1] = -0x1p-300;
        EXPECT_TRUE(same_bits(sum(v), 1.0 + 0x1p-52)) << n;
        v[3] = -0x1p-600;
        EXPECT_TRUE(same_bits(sum(v), 1.0)) << n;
    }
}

TEST_P(EveryExactBackendOfDoubles, DoublesNanAndInfinity) {
    nan_and_infinity<double>([](std::size_t n) { return wide_doubles(n, 9); });
}

TEST_P(EveryExactBackendOfDoubles, DoublesSameBitsForEveryThreadCount) {
    same_bits_for_every_thread_count(wide_doubles((std::size_t{1} << 20) + 7, 10));
}

// float16 and bfloat16, for each backend that takes them: every finite value with its negation,
// shuffled, and then seven ones; the hard inputs in each format; odd sizes and unaligned starts;
// NaN and infinities; the same bits at every thread count.
template <class T>
std::vector<T> generate_16(const std::string& input, std::size_t n) {
    InputSpec spec;
    spec.distribution = input == "wide" ? Distribution::wide : input == "cancel" ? Distribution::cancel : Distribution::ill_conditioned;
    std::vector<T> v(n);
    fill(std::span<T>(v), spec);
    return v;
}

TEST_P(EveryExactBackend, SixteenBitInputs) {
    constexpr std::size_t kOdd16 = 100003;  // a tenth of kOdd: their loops are those of floats; the suite runs emulated too
    const auto check = [&]<class T>(std::type_identity<T>) {
        if (!backend().takes(element_type_of<T>)) return;
        SCOPED_TRACE(std::string(to_string(element_type_of<T>)));
        std::vector<T> whole;
        for (std::uint32_t bits = 0; bits < 0x10000u; ++bits)
            if (std::isfinite(static_cast<float>(T::from_bits(static_cast<std::uint16_t>(bits))))) whole.push_back(T::from_bits(static_cast<std::uint16_t>(bits)));
        std::shuffle(whole.begin(), whole.end(), std::mt19937(3));
        whole.insert(whole.end(), 7, T(1.0));
        EXPECT_TRUE(same_bits(sum(whole, 3), 7.0));
        for (const char* input : {"wide", "cancel", "ill"}) {
            const auto v = generate_16<T>(input, kOdd16);
            EXPECT_TRUE(same_bits(sum(v, 3), exact(v))) << input;
        }
        const auto data = generate_16<T>("wide", kOdd16 + 3);
        for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{31}, kOdd16})
            for (std::size_t offset : {0u, 1u, 3u}) {
                const Elements input = std::span<const T>(data.data() + offset, n);
                EXPECT_TRUE(same_bits(sum(input), exact(input))) << "n=" << n << " offset=" << offset;
            }
        nan_and_infinity<T>([](std::size_t n) { return generate_16<T>("wide", n); }, kOdd16);
        // The largest finite value, many times: past 2^31 and 2^40 of float16's smallest subnormal;
        // with the smallest subnormal and mixed signs, so that only the subnormals remain.
        const T largest = T::from_bits(std::is_same_v<T, Float16> ? 0x7bff : 0x7f7f), smallest = T::from_bits(0x0001);
        std::vector<T> many(kOdd16, largest);
        EXPECT_TRUE(same_bits(sum(many, 3), static_cast<double>(static_cast<float>(largest)) * kOdd16));
        for (std::size_t i = 0; i < many.size(); ++i) many[i] = i % 3 == 0 ? smallest : i % 3 == 1 ? largest : T::from_bits(static_cast<std::uint16_t>(largest.bits | 0x8000u));
        EXPECT_TRUE(same_bits(sum(many, 3), exact(many)));
        EXPECT_TRUE(same_bits(sum(many, 3), static_cast<double>(static_cast<float>(smallest)) * ((kOdd16 + 2) / 3)));
        same_bits_for_every_thread_count(generate_16<T>("cancel", (std::size_t{1} << 18) + 7));
    };
    check(std::type_identity<Float16>{});
    check(std::type_identity<BFloat16>{});
}

// bfloat16 about cuda/exact's fast window (cuda/primitives/thread_window_sum.cuh, BfloatWindow: a
// trip's 32 values added as int32 when all lie in [2^(t - 15), 2^t)), at a size where a GPU thread makes many
// trips: seven values just below 2 and one at the window's bottom with its lowest bit set in every
// 8; the same with that one a binade lower, below the window (every trip redone one value at a
// time); zeros of both signs between them, which the fast path takes; a value far above midway,
// which moves the window past the rest; the largest bfloat16 with both signs; subnormals.
TEST_P(EveryExactBackend, BFloat16AboutTheFastWindow) {
    if (!backend().takes(ElementType::bf16)) GTEST_SKIP() << "takes no bfloat16";
    const std::size_t n = backend().device == Device::cpu ? 100003 : (std::size_t{1} << 24) + 7;
    const BFloat16 top = BFloat16::from_bits(0x3fff), bottom = BFloat16::from_bits(0x3a01);  // 2 - 2^-7, 2^-11 (1 + 2^-7)
    const BFloat16 below = BFloat16::from_bits(0x3981), far = BFloat16::from_bits(0x4980);  // 2^-12 (1 + 2^-7), 2^20
    const auto pattern = [n, top](BFloat16 eighth) {
        std::vector<BFloat16> v(n, top);
        for (std::size_t i = 7; i < n; i += 8) v[i] = eighth;
        return v;
    };
    const auto check = [&](const std::vector<BFloat16>& v, const char* what) {
        for (std::size_t offset : {0u, 3u}) {
            const Elements input = std::span<const BFloat16>(v.data() + offset, v.size() - offset);
            EXPECT_TRUE(same_bits(sum(input), exact(input))) << what << ", offset " << offset;
        }
    };
    const auto edges = pattern(bottom);
    const auto under = pattern(below);
    // Both exact sums need more bits than a float: a value rounded on the way would change them.
    ASSERT_NE(exact(edges), static_cast<double>(static_cast<float>(exact(edges))));
    ASSERT_NE(exact(under), static_cast<double>(static_cast<float>(exact(under))));
    check(edges, "the window's edges");
    check(under, "below the window");
    auto zeros = edges;
    for (std::size_t i = 0; i < n; i += 3) zeros[i] = BFloat16::from_bits(i % 2 == 0 ? 0x0000 : 0x8000);
    check(zeros, "zeros among them");
    auto moved = edges;
    moved[n / 2] = far;
    moved[n / 2 + n / 5] = BFloat16::from_bits(0xc980);  // -2^20
    check(moved, "a value above the window midway");
    std::vector<BFloat16> largest(n, BFloat16::from_bits(0x7f7f));
    for (std::size_t i = 0; i < n; i += 5) largest[i] = BFloat16::from_bits(0xff7f);
    check(largest, "near FLT_MAX");
    std::vector<BFloat16> subnormal(n);
    for (std::size_t i = 0; i < n; ++i) subnormal[i] = BFloat16::from_bits(static_cast<std::uint16_t>(1 + i % 0x7f));
    check(subnormal, "subnormals");
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryExactBackend, ::testing::ValuesIn(exact_backends()), backend_test_name);
INSTANTIATE_TEST_SUITE_P(Registry, EveryExactBackendOfDoubles, ::testing::ValuesIn(exact_backends()), backend_test_name);

TEST(ExactBackends, TheCpuOnesTakeEveryElementType) {
    for (const Backend* b : exact_backends()) {
        if (b->device != Device::cpu || b->distributed) continue;
        for (ElementType type : kElementTypes) EXPECT_TRUE(b->takes(type)) << b->name << " " << to_string(type);
    }
}

TEST(ExactBackends, OnEveryDeviceThisBuildHas) {
    int cpu = 0, cuda = 0, opencl = 0, vulkan = 0, scale_out = 0;
    for (const Backend* b : exact_backends()) {
        if (b->distributed || b->multi_gpu) ++scale_out;  // mpi/exact, nccl/exact: one process, one GPU here
        else if (b->device == Device::cpu) ++cpu;
        else (b->device == opencl::kDevice ? opencl : b->device == vulkan::kDevice ? vulkan : cuda) += 1;
    }
    EXPECT_EQ(cpu, 3);
    EXPECT_EQ(opencl, find_device_api(opencl::kDevice)->unbuilt ? 0 : 1);
    EXPECT_EQ(vulkan, find_device_api(vulkan::kDevice)->unbuilt ? 0 : 1);
    if (auto missing = cuda_unbuilt()) GTEST_SKIP() << *missing;
    EXPECT_EQ(cuda, 1);
    EXPECT_EQ(scale_out, 2);
}

// The test can fail: a plain float sum of ill:1e16 is nowhere near the exact sum's bits.
TEST(ExactBackends, AWrongOrderDiffersOnIllConditionedInput) {
    const auto v = generate("ill:1e16", kOdd);
    float plain = 0;
    for (float x : v) plain += x;
    EXPECT_FALSE(same_bits(plain, exact(v)));
    EXPECT_GT(relative_error(plain, exact_sum(v)), 1.0);
}

// Above 2^31 elements, where 32-bit indices wrap, on the GPU where its memory allows (the CPU
// backends index with size_t from end to end).
TEST(ExactBackends, AboveTwoTo31ElementsOnTheGpu) {
    if (auto missing = cuda_unbuilt()) GTEST_SKIP() << *missing;
    for (const Backend* b : exact_backends()) {
        if (b->device != cuda::kDevice) continue;
        if (auto reason = b->why_unavailable()) GTEST_SKIP() << b->name << ": " << *reason;
        static const std::vector<float> data = generate("ill:1e16", (std::size_t{1} << 31) + 1001);
        static const double s = exact(data);
        try {
            auto reduction = b->prepare(std::span<const float>(data), {});
            reduction->run();
            EXPECT_TRUE(same_bits(reduction->result(), s)) << b->name;
        } catch (const ResourceExhausted& e) {
            GTEST_SKIP() << "the device lacks the memory: " << e.what();
        }
    }
}

// The same bits from a CPU and a device exact backend (CUDA, OpenCL) on the same input: every device
// backend that can run here is checked, and the others are named.
TEST(ExactBackends, CpuAndDevicesGiveTheSameBits) {
    std::vector<const Backend*> cpu, gpu;
    for (const Backend* b : exact_backends()) {
        if (auto reason = b->why_unavailable()) std::cout << "not checked here: " << b->name << ": " << *reason << '\n';
        else if (b->device == Device::cpu) cpu.push_back(b);
        else gpu.push_back(b);
    }
    if (gpu.empty()) GTEST_SKIP() << "no device exact backend can run here";
    for (const char* input : {"ill:1e16", "ill:1e30", "wide", "cancel", "normal"}) {
        const auto v = generate(input, (std::size_t{1} << 22) + 5);
        for (const Backend* c : cpu)
            for (const Backend* g : gpu) {
                auto on_cpu = c->prepare(std::span<const float>(v), {.threads = 3});
                auto on_gpu = g->prepare(std::span<const float>(v), {});
                on_cpu->run();
                on_gpu->run();
                EXPECT_TRUE(same_bits(on_gpu->result(), on_cpu->result())) << input << ": " << g->name << " vs " << c->name;
            }
    }
}

// The run-time dispatch picks one exact kernel; every one this CPU runs must agree with it, so that
// an AVX-512 machine tests the AVX2 kernel too.
TEST(ExactKernels, EveryKernelThisCpuRunsGivesTheSameBits) {
    struct Kernel {
        const char* name;
        simd::AccumulateExact accumulate;
        std::optional<std::string> (*unavailable)();
    };
    const Kernel kernels[] = {{"scalar", simd::accumulate_exact_scalar, [] { return std::optional<std::string>(); }},
                              {"avx2", simd::accumulate_avx2_exact, simd::avx2_unavailable},
                              {"avx512", simd::accumulate_avx512_exact, simd::avx512_unavailable}};
    for (const char* input : {"ill:1e16", "ill:1e30", "wide", "cancel", "normal"}) {
        const auto v = generate(input, kOdd);
        for (std::size_t offset : {0u, 3u}) {
            const std::span<const float> x(v.data() + offset, v.size() - offset);
            const double s = exact(Elements(x));
            for (const Kernel& k : kernels) {
                if (auto why = k.unavailable()) {
                    std::cout << "not checked here: " << k.name << ": " << *why << '\n';
                    continue;
                }
                exact::Sum<float> total;
                k.accumulate(x.data(), x.size(), total);
                EXPECT_TRUE(same_bits(total.round(), s)) << k.name << " on " << input << ", offset " << offset;
            }
        }
    }
}

// Every exact kernel of T = float16 or bfloat16 input.
template <class T>
struct SixteenBitKernel {
    const char* name;
    void (*accumulate)(const T*, std::size_t, exact::Sum<float>&);
    std::optional<std::string> (*unavailable)();
};
template <class T>
std::vector<SixteenBitKernel<T>> sixteen_bit_kernels() {
    return {{"scalar", simd::accumulate_exact_scalar, [] { return std::optional<std::string>(); }},
            {"avx2", simd::accumulate_avx2_exact, simd::avx2_unavailable},
            {"avx512", simd::accumulate_avx512_exact, simd::avx512_unavailable}};
}

// The same for float16 and bfloat16 input, past 2^21 values (256 rounds, simd_exact.hpp): the hard
// inputs; the largest value alone, whose int32 lanes (simd_exact.hpp's add_half_level) then reach
// their bound in a round, and with both signs; a NaN or an infinity in a later round, and both
// infinities in different ones.
TEST(ExactKernels, EverySixteenBitKernelThisCpuRunsGivesTheSameBits) {
    const auto check = [&]<class T>(std::type_identity<T>) {
        SCOPED_TRACE(std::string(to_string(element_type_of<T>)));
        const auto kernels = sixteen_bit_kernels<T>();
        const auto agree = [&](const std::vector<T>& v, const std::string& what) {
            for (std::size_t offset : {0u, 3u}) {
                const std::span<const T> x(v.data() + offset, v.size() - offset);
                const double want = exact(Elements(x));
                for (const auto& k : kernels) {
                    if (k.unavailable()) continue;
                    exact::Sum<float> total;
                    k.accumulate(x.data(), x.size(), total);
                    const double got = total.round();
                    EXPECT_TRUE(std::isnan(want) ? std::isnan(got) : same_bits(got, want)) << k.name << " on " << what << ", offset " << offset;
                }
            }
        };
        constexpr std::size_t n = (std::size_t{2} << 20) + 4099;
        for (const char* input : {"wide", "cancel", "ill"}) agree(generate_16<T>(input, n), input);
        const T largest = T::from_bits(std::is_same_v<T, Float16> ? 0x7bff : 0x7f7f);
        const T negative = T::from_bits(static_cast<std::uint16_t>(largest.bits | 0x8000u)), smallest = T::from_bits(0x0001);
        std::vector<T> many(n, largest);
        agree(many, "the largest value");
        for (std::size_t i = 0; i < n; i += 3) many[i] = negative, many[i + 1] = smallest;
        agree(many, "the largest of both signs and the smallest subnormal");
        constexpr bool half = std::is_same_v<T, Float16>;
        const T plus_infinity = T::from_bits(half ? 0x7c00 : 0x7f80), minus_infinity = T::from_bits(half ? 0xfc00 : 0xff80);
        const T not_a_number = T::from_bits(half ? 0x7e00 : 0x7fc0);
        auto special = generate_16<T>("wide", n);
        special[(std::size_t{1} << 20) + 5] = plus_infinity;
        agree(special, "+Inf in the second chunk");
        special[7] = minus_infinity;
        agree(special, "-Inf in the first chunk, +Inf in the second");
        special[n - 2] = not_a_number;
        agree(special, "and a NaN in the last");
    };
    check(std::type_identity<Float16>{});
    check(std::type_identity<BFloat16>{});
}

// A round whose largest magnitude is 1.5 has the window [2^-27, 2): a float at its bottom goes in
// with the round, one a step below it must go to the next level (in the window it would round to
// 2^-27). The +-1.5 cancel, so the sum is the two small ones' and any rounding shows. At every place
// in the first, a middle and the last (partial) round of 8192 floats, among zeros of either sign.
TEST(ExactKernels, TheWindowsBottomEdgeOnEveryKernel) {
    const float bottom = 0x1p-27f, below = std::nextafter(bottom, 0.0f);
    const std::size_t n = 3 * 8192 + 100;
    for (std::size_t at : {std::size_t{0}, std::size_t{5}, std::size_t{8191}, std::size_t{8192 + 4000}, n - 1}) {
        std::vector<float> v(n, 0.0f);
        for (std::size_t i = 1; i < n; i += 2) v[i] = -0.0f;
        const std::size_t round = at / 8192 * 8192;
        v[round + (at == round ? 1 : 0)] = 1.5f;
        v[round + (at == round + 2 ? 3 : 2)] = -1.5f;
        v[round + (at == round + 4 ? 5 : 4)] = bottom;
        v[at] = below;
        const double s = exact(Elements(std::span<const float>(v)));
        ASSERT_EQ(s, double{bottom} + double{below});
        struct Kernel {
            const char* name;
            simd::AccumulateExact accumulate;
            std::optional<std::string> (*unavailable)();
        };
        for (const Kernel& k : {Kernel{"avx2", simd::accumulate_avx2_exact, simd::avx2_unavailable},
                                Kernel{"avx512", simd::accumulate_avx512_exact, simd::avx512_unavailable}}) {
            if (k.unavailable()) continue;
            exact::Sum<float> total;
            k.accumulate(v.data(), v.size(), total);
            EXPECT_TRUE(same_bits(total.round(), s)) << k.name << ": a float below the window at " << at;
        }
    }
}

// 16-bit input's level 0 takes a window some 24 bits deep (its depth differs by instruction set):
// under a largest magnitude of 1.5, a value 2^-k and the one a step below it, for every k from the
// window's top to below float16's subnormals, at a place in the first and a middle round. The +-1.5
// cancel, so the sum is the two small ones' and a value taken at the wrong lsb shows.
TEST(ExactKernels, SixteenBitWindowsBottomEdgeOnEveryKernel) {
    const auto check = [&]<class T>(std::type_identity<T>) {
        SCOPED_TRACE(std::string(to_string(element_type_of<T>)));
        const auto kernels = sixteen_bit_kernels<T>();
        const std::size_t n = 2 * 8192 + 100;
        for (int k = 1; k <= 30 && T(std::ldexp(1.0, -k)).bits != 0; ++k) {  // float16: to its smallest subnormal
            const T bottom(std::ldexp(1.0, -k));
            const T below = T::from_bits(static_cast<std::uint16_t>(bottom.bits - 1));
            for (std::size_t at : {std::size_t{5}, std::size_t{8192 + 4000}}) {
                std::vector<T> v(n, T(0.0));
                const std::size_t round = at / 8192 * 8192;
                v[round] = T(1.5), v[round + 1] = T(-1.5), v[round + 2] = bottom, v[at] = below;
                const double want = exact(Elements(std::span<const T>(v)));
                ASSERT_EQ(want, double{static_cast<float>(bottom)} + double{static_cast<float>(below)});
                for (const auto& kernel : kernels) {
                    if (kernel.unavailable()) continue;
                    exact::Sum<float> total;
                    kernel.accumulate(v.data(), v.size(), total);
                    EXPECT_TRUE(same_bits(total.round(), want)) << kernel.name << ": 2^-" << k << " and the value below it at " << at;
                }
            }
        }
    };
    check(std::type_identity<Float16>{});
    check(std::type_identity<BFloat16>{});
}

// What mpi/exact and nccl/exact add across ranks and GPUs: the word-wise integer sum of several
// partial sums' words is the words of the whole sum, specials included.
template <class T>
void check_words_add_up(const std::vector<T>& values) {
    exact::Sum<T> whole;
    exact::accumulate(values.data(), values.size(), whole);
    std::int64_t whole_words[exact::kWords<T>];
    exact::to_words(whole, whole_words);
    for (std::size_t parts : {2u, 3u, 7u}) {
        std::int64_t total[exact::kWords<T>] = {};
        for (std::size_t part = 0; part < parts; ++part) {
            const std::size_t begin = values.size() * part / parts, end = values.size() * (part + 1) / parts;
            exact::Sum<T> partial;
            exact::accumulate(values.data() + begin, end - begin, partial);
            std::int64_t words[exact::kWords<T>];
            exact::to_words(partial, words);
            for (int k = 0; k < exact::kWords<T>; ++k) total[k] += words[k];
        }
        const exact::Sum<T> from_total = exact::from_words<T>(total);
        EXPECT_TRUE(same_bits(from_total.round(), exact(values))) << parts << " parts";
        std::int64_t again[exact::kWords<T>];
        exact::to_words(from_total, again);
        EXPECT_TRUE(std::equal(again, again + exact::kWords<T>, whole_words)) << "the same words, not just the same rounding";
    }
}

TEST(ExactWords, PartialSumsWordsAddUpToTheWholeSum) {
    check_words_add_up(generate("wide", 300001));
    check_words_add_up(wide_doubles(300001, 11));
    auto with_specials = wide_doubles(1000, 12);
    with_specials[10] = std::numeric_limits<double>::infinity();
    check_words_add_up(with_specials);  // +Inf in one part only
    with_specials[900] = -std::numeric_limits<double>::infinity();
    check_words_add_up(with_specials);  // +Inf and -Inf in different parts: NaN
    auto with_nan = generate("cancel", 1000);
    with_nan[500] = std::numeric_limits<float>::quiet_NaN();
    check_words_add_up(with_nan);
}

}  // namespace
}  // namespace shootout
