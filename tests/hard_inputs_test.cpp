// The hard inputs keep their promises: ill:C's condition number, wide's range, cancel's
// sum, and the same floats however fill() splits the work.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "bench/cli.hpp"
#include "exact/exact_sum.hpp"
#include "bench/inputs.hpp"

namespace shootout {
namespace {

InputSpec spec_of(const std::string& input, std::uint64_t seed = 42) {
    InputSpec spec = parse_command_line({"--input=" + input}).input;
    spec.seed = seed;
    return spec;
}

std::vector<float> generate(const InputSpec& spec, std::size_t n) {
    std::vector<float> v(n);
    fill(v, spec);
    return v;
}

// sum |x| / |sum x|, both sums exact before their one rounding.
double condition_number(const std::vector<float>& v) {
    std::vector<float> magnitudes(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) magnitudes[i] = std::abs(v[i]);
    return exact_sum(magnitudes).round() / std::abs(exact_sum(v).round());
}

TEST(HardInputs, IllConditionedHasAboutTheConditionNumberAskedFor) {
    for (const char* c : {"1e8", "1e16", "1e30"})
        for (std::size_t n : {std::size_t{1} << 10, (std::size_t{1} << 10) + 1, std::size_t{1} << 16, std::size_t{1} << 20})
            for (std::uint64_t seed : {1, 42}) {
                const double condition = std::stod(c);
                const double measured = condition_number(generate(spec_of(std::string("ill:") + c, seed), n));
                EXPECT_GT(measured, condition / 10) << "ill:" << c << " n=" << n << " seed=" << seed;
                EXPECT_LT(measured, condition * 10) << "ill:" << c << " n=" << n << " seed=" << seed;
            }
}

// GenSum's shape: large values of both signs over log2(C) / 2 binades, each cancelled by its mirror.
TEST(HardInputs, IllConditionedCancelsLargeValuesOfBothSignsOverHalfTheExponents) {
    const std::size_t n = 1 << 16;
    const auto v = generate(spec_of("ill:1e16"), n);
    std::set<int> exponents;
    int positive = 0, negative = 0;
    for (std::size_t i = 0; i < n / 2; ++i) {
        if (v[i] == -v[n - 1 - i]) {
            exponents.insert(std::ilogb(v[i]));
            (v[i] > 0 ? positive : negative) += 1;
        } else {
            EXPECT_GT(v[i], 0) << i;  // a small pair: two positive values
            EXPECT_GT(v[n - 1 - i], 0) << i;
        }
    }
    std::set<int> zero_to_27;
    for (int e = 0; e <= 27; ++e) zero_to_27.insert(e);
    EXPECT_EQ(exponents, zero_to_27) << "log2(1e16) / 2 = 26.6: exponents 0 to 27";
    EXPECT_GT(positive, n / 8);
    EXPECT_GT(negative, n / 8);
}

TEST(HardInputs, WideHoldsEveryBinadeBothSignsAndSubnormals) {
    const auto v = generate(spec_of("wide"), 1 << 18);
    std::set<std::uint32_t> positive_exponents, negative_exponents;
    int subnormals = 0;
    for (float x : v) {
        const auto bits = std::bit_cast<std::uint32_t>(x);
        const std::uint32_t biased = bits >> 23 & 0xff;
        ASSERT_NE(biased, 0xffu) << "no NaN or Inf";
        (bits >> 31 ? negative_exponents : positive_exponents).insert(biased);
        subnormals += biased == 0 && (bits & 0x7fffff) != 0;
    }
    EXPECT_EQ(positive_exponents.size(), 255u) << "biased exponents 0 (subnormal) to 254, positive";
    EXPECT_EQ(negative_exponents.size(), 255u) << "and negative";
    EXPECT_GT(subnormals, 500);
}

TEST(HardInputs, CancelSumsToItsSmallValues) {
    for (std::size_t n : {std::size_t{1} << 10, (std::size_t{1} << 10) + 1, (std::size_t{1} << 10) + 2,
                          (std::size_t{1} << 10) + 3, std::size_t{1} << 20}) {
        const auto v = generate(spec_of("cancel"), n);
        std::vector<float> small;
        std::size_t large = 0;
        for (float x : v) {
            if (std::abs(x) < 1) small.push_back(x);
            else {
                ++large;
                EXPECT_TRUE(std::abs(x) >= 0x1p20f && std::abs(x) < 0x1p21f) << x;
            }
        }
        EXPECT_NEAR(static_cast<double>(large) / n, 0.5, 0.01) << n;
        const double exact = exact_sum(v).round();
        EXPECT_EQ(std::bit_cast<std::uint64_t>(exact), std::bit_cast<std::uint64_t>(exact_sum(small).round())) << n;
        EXPECT_GT(condition_number(v), 1e6) << "large values cancel: sum |x| is 3 x 2^20 times the sum";
    }
}

// fill() splits n over the hardware threads; 2048 elements are one thread's. The first half of ill:C
// and all but the last element of cancel do not depend on n, so the two must agree there.
TEST(HardInputs, SameFloatsForAnyThreadSplit) {
    for (const char* input : {"ill:1e16", "wide", "cancel"}) {
        const auto spec = spec_of(input);
        const auto big = generate(spec, std::size_t{1} << 22), small = generate(spec, 2048);
        EXPECT_TRUE(std::equal(small.begin(), small.begin() + 1000, big.begin())) << input;
        EXPECT_EQ(generate(spec, std::size_t{1} << 22), big) << input << ": the same again";
        EXPECT_NE(generate(spec_of(input, 43), 2048), small) << input << ": another seed, other floats";
    }
}

TEST(HardInputs, ParseAndLabel) {
    EXPECT_EQ(spec_of("ill:1e16").label(), "ill:1e16");
    EXPECT_EQ(spec_of("ill:1e8").condition, 1e8);
    EXPECT_EQ(spec_of("ill:2.5e30").label(), "ill:2.5e30");
    EXPECT_EQ(spec_of("ill:1000").label(), "ill:1000");
    EXPECT_EQ(spec_of("wide").label(), "wide");
    EXPECT_EQ(spec_of("cancel").label(), "cancel");
    for (const char* bad : {"ill:", "ill:x", "ill:0.5", "ill:1e41", "ill:nan", "ill:1e16x"})
        EXPECT_THROW(spec_of(bad), UsageError) << bad;
}

}  // namespace
}  // namespace shootout
