#include "exact/exact_sum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace shootout {
namespace {

double exact(const std::vector<float>& values) { return exact_sum(values).round(); }

TEST(ExactSum, EmptyIsZero) { EXPECT_EQ(exact({}), 0.0); }

TEST(ExactSum, BigSmallBigCancellation) {
    EXPECT_EQ(exact({1e30f, 1.0f, -1e30f}), 1.0);
    EXPECT_EQ(exact({3.0e38f, 3.0e38f, 0.5f, -3.0e38f, -3.0e38f}), 0.5);  // partial sums beyond FLT_MAX
    // 2^24 absorbs a single 1 in float arithmetic; the exact sum keeps all of them.
    std::vector<float> values = {16777216.0f};
    values.insert(values.end(), 1000, 1.0f);
    values.push_back(-16777216.0f);
    EXPECT_EQ(exact(values), 1000.0);
}

// Independent reference: values in [2^-40, 2^40) are integer multiples of 2^-63, so a 128-bit
// integer holds their sum exactly, and converting it to double rounds once, to nearest-even.
TEST(ExactSum, WideExponentRangeWithRandomSignsMatchesInt128Reference) {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int> exponent(-40, 39);
    std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<float> values(100000);
        __int128 reference = 0;
        for (float& v : values) {
            v = std::ldexp(mantissa(rng), exponent(rng)) * (rng() & 1 ? -1.0f : 1.0f);
            reference += static_cast<__int128>(std::ldexp(static_cast<double>(v), 63));
        }
        EXPECT_EQ(exact(values), std::ldexp(static_cast<double>(reference), -63)) << "trial " << trial;
    }
}

TEST(ExactSum, ValuesAndTheirNegationsShuffledLeaveTheKnownRest) {
    std::mt19937_64 rng(11);
    std::vector<float> values;
    for (int i = 0; i < 50000; ++i) {
        const float v = std::ldexp(static_cast<float>(rng() % 16777216 + 1), static_cast<int>(rng() % 250) - 149);
        values.push_back(v);
        values.push_back(-v);
    }
    for (int k = 1; k <= 100; ++k) values.push_back(static_cast<float>(k));
    std::shuffle(values.begin(), values.end(), rng);
    EXPECT_EQ(exact(values), 5050.0);
}

TEST(ExactSum, Subnormals) {
    const float tiny = std::numeric_limits<float>::denorm_min();  // 2^-149
    EXPECT_EQ(exact(std::vector<float>(1000, tiny)), 1000 * std::ldexp(1.0, -149));
    EXPECT_EQ(exact({std::numeric_limits<float>::min(), -tiny}), std::ldexp(1.0, -126) - std::ldexp(1.0, -149));
}

TEST(ExactSum, TenMillionOnes) { EXPECT_EQ(exact(std::vector<float>(10'000'000, 1.0f)), 1e7); }

TEST(ExactSum, RoundsOnceToNearestEven) {
    const float half_ulp = std::ldexp(1.0f, -53);  // half an ulp of 1.0 in double
    EXPECT_EQ(exact({1.0f, half_ulp}), 1.0);                                          // tie: to even
    EXPECT_EQ(exact({1.0f, half_ulp, std::ldexp(1.0f, -80)}), 1.0 + std::ldexp(1.0, -52));  // just above the tie
    EXPECT_EQ(exact({-1.0f, -half_ulp, -std::ldexp(1.0f, -80)}), -1.0 - std::ldexp(1.0, -52));
    EXPECT_EQ(exact({1.0f, 3 * half_ulp}), 1.0 + 2 * std::ldexp(1.0, -52));           // tie from odd: up
}

TEST(ExactSum, NanAndInfinity) {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(std::isnan(exact({1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f})));
    EXPECT_EQ(exact({1.0f, inf}), std::numeric_limits<double>::infinity());
    EXPECT_EQ(exact({-inf, 1.0f}), -std::numeric_limits<double>::infinity());
    EXPECT_TRUE(std::isnan(exact({inf, -inf})));
}

TEST(ExactSum, ThreadedSumEqualsOneAccumulator) {
    std::mt19937 rng(3);
    std::normal_distribution<float> normal;
    std::vector<float> values(1 << 24);
    for (float& v : values) v = normal(rng);
    ExactAccumulator serial;
    serial.add(values);
    EXPECT_EQ(exact_sum(values).round(), serial.round());
}

// What the MPI ranks all-reduce: the word-by-word integer sum of accumulators is their sum.
TEST(ExactSum, WordsSummedAsIntegersAreTheSumOfTheAccumulators) {
    std::mt19937 rng(8);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::vector<float> values(300001);  // signs and exponents from 2^-140 to 2^120
    for (float& v : values) v = std::ldexp(unit(rng), static_cast<int>(rng() % 260) - 140);
    const ExactAccumulator whole = exact_sum(values);
    for (std::size_t parts : {2u, 3u, 7u}) {
        std::array<std::int64_t, ExactAccumulator::kWords> total{};
        for (std::size_t part = 0; part < parts; ++part) {
            const std::size_t begin = values.size() * part / parts, end = values.size() * (part + 1) / parts;
            const auto words = exact_sum(std::span<const float>(values).subspan(begin, end - begin)).words();
            for (std::size_t k = 0; k < total.size(); ++k) total[k] += words[k];
        }
        EXPECT_EQ(ExactAccumulator::from_words(total).round(), whole.round()) << parts << " parts";
        EXPECT_EQ(ExactAccumulator::from_words(total).words(), whole.words()) << "the same state, not just the same rounding";
    }
    ExactAccumulator nan_part;
    nan_part.add(std::numeric_limits<double>::quiet_NaN());
    auto words = whole.words();
    for (std::size_t k = 0; k < words.size(); ++k) words[k] += nan_part.words()[k];
    EXPECT_TRUE(std::isnan(ExactAccumulator::from_words(words).round()));
}

double exact64(const std::vector<double>& values) { return exact_sum(values).round(); }

// Independent reference for doubles: values in [2^-30, 2^30) with 30-bit significands are integer
// multiples of 2^-59 below 2^59, so a 128-bit integer holds the sum of 2^20 of them exactly.
TEST(ExactSumOfDoubles, MatchesInt128Reference) {
    std::mt19937_64 rng(17);
    for (int trial = 0; trial < 10; ++trial) {
        std::vector<double> values(1 << 16);
        __int128 reference = 0;
        for (double& v : values) {
            v = std::ldexp(static_cast<double>(rng() >> 34 | 1u << 29), static_cast<int>(rng() % 60) - 59) * (rng() & 1 ? -1 : 1);
            reference += static_cast<__int128>(std::ldexp(v, 59));
        }
        EXPECT_EQ(exact64(values), std::ldexp(static_cast<double>(reference), -59)) << "trial " << trial;
    }
}

TEST(ExactSumOfDoubles, CancellationAcrossTheWholeRange) {
    const double tiny = std::numeric_limits<double>::denorm_min();
    EXPECT_EQ(exact64({1e308, -1e308, tiny}), tiny);
    EXPECT_EQ(exact64({1e308, 1e308, -1e308, -1e308, 0.5, tiny}), 0.5);  // partial sums past DBL_MAX
    EXPECT_EQ(exact64({1.0, 0x1p-1074, -1.0}), 0x1p-1074);
    EXPECT_EQ(exact64({1.0, 0x1p-53}), 1.0);                  // a tie: to even
    EXPECT_EQ(exact64({1.0, 0x1p-53, 0x1p-1074}), 1.0 + 0x1p-52);  // just above the tie
}

TEST(ExactSumOfDoubles, SubnormalsStaySubnormal) {
    const double tiny = std::numeric_limits<double>::denorm_min();
    EXPECT_EQ(exact64(std::vector<double>(1000, tiny)), 1000 * tiny);
    EXPECT_EQ(exact64({std::numeric_limits<double>::min(), -tiny}), std::numeric_limits<double>::min() - tiny);
}

TEST(ExactSumOfDoubles, PastDblMaxRoundsToInfinity) {
    const double max = std::numeric_limits<double>::max(), inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(exact64({max, max}), inf);
    EXPECT_EQ(exact64({-max, -max, 1.0}), -inf);
    EXPECT_EQ(exact64({max, 0x1p969}), max);  // below DBL_MAX + half an ulp (2^970): stays finite
    EXPECT_EQ(exact64({max, 0x1p970}), inf);  // the tie goes to the even significand: 2^1024
    EXPECT_EQ(exact64({max, 0x1p970, -0x1p-1074}), max);
    // The correctly rounded sum of a finite input may be infinite; an infinite result is still
    // infinitely far from S (plot/ refuses an error of 0 beside an infinite exact sum).
    EXPECT_EQ(relative_error(inf, exact_sum(std::vector<double>{max, max})), inf);
    EXPECT_GE(relative_error(max, exact_sum(std::vector<double>{max, max})), 0.5);
}

TEST(ExactSumOfDoubles, NanAndInfinity) {
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_TRUE(std::isnan(exact64({1.0, std::nan(""), 2.0})));
    EXPECT_EQ(exact64({1.0, inf}), inf);
    EXPECT_TRUE(std::isnan(exact64({inf, -inf})));
}

TEST(ExactSumOfDoubles, ElementsAndSpansAgree) {
    const std::vector<double> values = {0.1, 0.2, 0.3, -1e-300, 1e300, -1e300};
    EXPECT_EQ(exact_sum(Elements(std::span<const double>(values))).words(), exact_sum(values).words());
}

TEST(RelativeError, IsComputedFromTheExactDifference) {
    // S = 1 + 2^-149 is not a double; the error of the result 1.0 is still exactly 2^-149 / S.
    ExactAccumulator s;
    s.add(std::vector<float>{1.0f, std::numeric_limits<float>::denorm_min()});
    EXPECT_EQ(relative_error(1.0, s), std::ldexp(1.0, -149));
    EXPECT_EQ(relative_error(0.5, exact_sum(std::vector<float>{1.0f})), 0.5);
}

TEST(RelativeError, IsTheAbsoluteErrorWhenTheExactSumIsZero) {
    EXPECT_EQ(relative_error(0.25, exact_sum(std::vector<float>{1.0f, -1.0f})), 0.25);
    EXPECT_EQ(relative_error(0.0, exact_sum(std::vector<float>{1.0f, -1.0f})), 0.0);
}

TEST(RelativeError, IsNanWhenTheInputHoldsNanOrInf) {
    EXPECT_TRUE(std::isnan(relative_error(1.0, exact_sum(std::vector<float>{std::nanf("")}))));
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_TRUE(std::isnan(relative_error(inf, exact_sum(std::vector<float>{inf}))));
}

TEST(RelativeError, IsInfiniteWhenAFiniteInputGivesANonFiniteResult) {
    const float big = std::numeric_limits<float>::max();
    const ExactAccumulator finite = exact_sum(std::vector<float>{big, big});  // a float total overflows here
    const double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(relative_error(inf, finite), inf);
    EXPECT_EQ(relative_error(-inf, finite), inf);
    EXPECT_EQ(relative_error(std::nan(""), finite), inf);
}

}  // namespace
}  // namespace shootout
