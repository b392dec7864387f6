#include "exact_sum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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
