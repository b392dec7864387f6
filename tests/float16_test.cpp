// The 16-bit element types (api/float16.hpp): every bit pattern widens to the float it means and
// narrows back to itself, every value between two neighbours rounds to the nearer (ties to the
// even one), overflow and underflow go where IEEE 754 says; and their exact sums, in the harness's
// reference and in exact::Sum, against an integer reference.
#include "api/float16.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "api/element_type.hpp"
#include "exact/exact_sum.hpp"
#include "bench/inputs.hpp"
#include "exact/exact_accumulator.hpp"

namespace shootout {
namespace {

// The value of a finite bit pattern of a format with F fraction bits and bias B, by arithmetic
// alone: (-1)^s 2^(e - B) (1 + f 2^-F), or 2^(1 - B) f 2^-F for e = 0.
double decode(std::uint16_t bits, int fraction, int exponent_bits) {
    const int bias = (1 << (exponent_bits - 1)) - 1;
    const int e = bits >> fraction & ((1 << exponent_bits) - 1);
    const double f = bits & ((1 << fraction) - 1);
    const double magnitude = e == 0 ? std::ldexp(f, 1 - bias - fraction) : std::ldexp(1 + std::ldexp(f, -fraction), e - bias);
    return bits >> 15 ? -magnitude : magnitude;
}

template <class T>
void check_every_pattern() {
    constexpr int fraction = T::kSignificandBits - 1, exponent_bits = T::kExponentBits;
    constexpr std::uint32_t infinity = ((1u << exponent_bits) - 1) << fraction;
    for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
        const T x = T::from_bits(static_cast<std::uint16_t>(bits));
        const float wide = x;
        const std::uint32_t magnitude = bits & 0x7fffu;
        if (magnitude > infinity) {
            EXPECT_TRUE(std::isnan(wide)) << std::hex << bits;
            EXPECT_TRUE(std::isnan(static_cast<float>(T(static_cast<double>(wide))))) << "NaN stays NaN: " << std::hex << bits;
            continue;
        }
        if (magnitude == infinity) {
            EXPECT_EQ(wide, bits >> 15 ? -INFINITY : INFINITY);
        } else {
            ASSERT_EQ(static_cast<double>(wide), decode(static_cast<std::uint16_t>(bits), fraction, exponent_bits)) << std::hex << bits;
        }
        ASSERT_EQ(T(static_cast<double>(wide)).bits, bits) << "narrowing a widened value gives it back: " << std::hex << bits;
        ASSERT_EQ(T(wide).bits, bits);
    }
}

TEST(Float16, EveryPatternWidensToItsValueAndBack) { check_every_pattern<Float16>(); }
TEST(BFloat16, EveryPatternWidensToItsValueAndBack) { check_every_pattern<BFloat16>(); }

// Between each pair of neighbouring finite non-negative values a < b: just above a rounds to a, the
// midpoint to the one with the even last bit, just below b to b (and the same negated); past the
// largest value, from half an ulp beyond it, to infinity.
template <class T>
void check_rounding() {
    constexpr int fraction = T::kSignificandBits - 1;
    const float largest = std::numeric_limits<T>::max();
    for (std::uint16_t bits = 0; static_cast<float>(T::from_bits(bits)) < largest; ++bits) {
        const double a = T::from_bits(bits), b = T::from_bits(static_cast<std::uint16_t>(bits + 1));
        const double middle = (a + b) / 2;  // exact in double
        const std::uint16_t even = bits % 2 == 0 ? bits : static_cast<std::uint16_t>(bits + 1);
        ASSERT_EQ(T(middle).bits, even) << std::hex << bits;
        ASSERT_EQ(T(std::nextafter(middle, 0.0)).bits, bits) << std::hex << bits;
        ASSERT_EQ(T(std::nextafter(middle, INFINITY)).bits, bits + 1) << std::hex << bits;
        ASSERT_EQ(T(-std::nextafter(middle, INFINITY)).bits, (bits + 1) | 0x8000) << std::hex << bits;
        if (bits > 0) {
            ASSERT_EQ(T(std::nextafter(a, INFINITY)).bits, bits);
        }
        // The float path: the midpoint is a float too (12 and 9 significant bits).
        const auto mid = static_cast<float>(middle);
        ASSERT_EQ(T::round(mid).bits, even) << std::hex << bits;
        ASSERT_EQ(T::round(std::nextafter(mid, 0.0f)).bits, bits) << std::hex << bits;
        ASSERT_EQ(T::round(-std::nextafter(mid, INFINITY)).bits, (bits + 1) | 0x8000) << std::hex << bits;
    }
    const double ulp = std::ldexp(1.0, std::ilogb(largest) - fraction);
    EXPECT_EQ(static_cast<float>(T(std::nextafter(largest + ulp / 2, 0.0))), largest);
    EXPECT_EQ(static_cast<float>(T(largest + ulp / 2)), INFINITY);
    EXPECT_EQ(static_cast<float>(T(-1e300)), -INFINITY);
    EXPECT_EQ(T(1e-300).bits, 0u);
    EXPECT_EQ(T(-1e-300).bits, 0x8000u) << "the sign of a zero is kept";
    EXPECT_EQ(T(std::numeric_limits<double>::denorm_min()).bits, 0u);
    EXPECT_TRUE(std::isnan(static_cast<float>(T(std::nan("")))));
    EXPECT_EQ(static_cast<float>(std::numeric_limits<T>::infinity()), INFINITY);
    EXPECT_TRUE(std::isnan(static_cast<float>(std::numeric_limits<T>::quiet_NaN())));
    EXPECT_EQ(static_cast<float>(std::numeric_limits<T>::epsilon()), std::ldexp(1.0f, -fraction));
    EXPECT_EQ(static_cast<float>(std::numeric_limits<T>::denorm_min()) * 2, static_cast<float>(T::from_bits(2)));
}

// T::round(float) is T(double) on floats: every special, 2^22 random bit patterns, and 2^22 random
// floats of exponents -27 to 18, float16's range and the binades next to it.
template <class T>
void check_float_rounding() {
    std::mt19937 rng(9);
    std::vector<std::uint32_t> patterns = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0x00000001u,
                                           0x7f7fffffu, 0x477fefffu, 0x477ff000u, 0x47800000u, 0x33000000u, 0x33000001u};
    for (int i = 0; i < (1 << 22); ++i) patterns.push_back(static_cast<std::uint32_t>(rng()));
    for (int i = 0; i < (1 << 22); ++i)
        patterns.push_back((static_cast<std::uint32_t>(rng()) & 0x807fffffu) | (100u + static_cast<std::uint32_t>(rng()) % 46u) << 23);
    for (std::uint32_t bits : patterns) {
        const float x = std::bit_cast<float>(bits);
        const T fast = T::round(x), wide(static_cast<double>(x));
        if (std::isnan(x)) ASSERT_TRUE(std::isnan(static_cast<float>(fast))) << std::hex << bits;
        else ASSERT_EQ(fast.bits, wide.bits) << std::hex << bits;
    }
}

TEST(Float16, RoundingAFloatIsRoundingItsDouble) { check_float_rounding<Float16>(); }
TEST(BFloat16, RoundingAFloatIsRoundingItsDouble) { check_float_rounding<BFloat16>(); }

TEST(Float16, EveryValueBetweenNeighboursRoundsToNearestEven) {
    check_rounding<Float16>();
    EXPECT_EQ(static_cast<float>(std::numeric_limits<Float16>::max()), 65504.0f);
    EXPECT_EQ(static_cast<float>(Float16(65519.99)), 65504.0f);
    EXPECT_EQ(static_cast<float>(Float16(65520.0)), INFINITY);
    EXPECT_EQ(Float16(0x1p-25).bits, 0u) << "half the smallest subnormal ties to zero, the even one";
    EXPECT_EQ(Float16(0x1.8p-25).bits, 1u);
    EXPECT_EQ(static_cast<float>(Float16(1.0 / 3)), 0x1.554p-2f);
}

TEST(BFloat16, EveryValueBetweenNeighboursRoundsToNearestEven) {
    check_rounding<BFloat16>();
    EXPECT_EQ(static_cast<float>(BFloat16(1.0 / 3)), 0x1.56p-2f);
    EXPECT_EQ(static_cast<float>(BFloat16(static_cast<double>(std::numeric_limits<float>::max()))), INFINITY);
    EXPECT_EQ(BFloat16(0x1p-134).bits, 0u);
}

// Sums of 16-bit values against an integer reference: every float16 is a multiple of 2^-24 below
// 2^16, so an __int128 holds the sum of 2^20 of them exactly; bfloat16 values of exponents in
// [-40, 40) are multiples of 2^-47 below 2^40, and so is their sum below 2^60. Converting the integer to
// double rounds once, to nearest-even.
template <class T>
void check_exact_sums(int lowest, int highest, int unit) {
    std::mt19937_64 rng(5);
    std::vector<T> values(std::size_t{1} << 20);
    __int128 reference = 0;
    for (T& x : values) {
        const double magnitude = std::ldexp(1 + std::ldexp(static_cast<double>(rng() % (1u << (T::kSignificandBits - 1))),
                                                            1 - T::kSignificandBits),
                                            lowest + static_cast<int>(rng() % static_cast<unsigned>(highest - lowest)));
        x = T(rng() & 1 ? -magnitude : magnitude);
        reference += static_cast<__int128>(std::ldexp(static_cast<double>(x), -unit));
    }
    const double expected = std::ldexp(static_cast<double>(reference), unit);
    EXPECT_EQ(exact_sum(Elements(std::span<const T>(values))).round(), expected);
    exact::Sum<T> sum;
    exact::accumulate(values.data(), values.size(), sum);
    EXPECT_EQ(sum.round(), expected);
}

TEST(Float16, ExactSumsMatchAnIntegerReference) { check_exact_sums<Float16>(-14, 16, -24); }
TEST(BFloat16, ExactSumsMatchAnIntegerReference) { check_exact_sums<BFloat16>(-40, 40, -47); }

// The whole range at once: every finite value of a format, each with its negation, and then some
// ones: the sum is exactly the ones, whichever values the format reaches.
template <class T>
void check_cancelling_whole_range() {
    std::vector<T> values;
    for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
        const T x = T::from_bits(static_cast<std::uint16_t>(bits));
        if (std::isfinite(static_cast<float>(x))) values.push_back(x);
    }
    for (int k = 0; k < 7; ++k) values.push_back(T(1.0));
    EXPECT_EQ(exact_sum(Elements(std::span<const T>(values))).round(), 7.0);
    exact::Sum<T> sum;
    exact::accumulate(values.data(), values.size(), sum);
    EXPECT_EQ(sum.round(), 7.0);
    values.push_back(std::numeric_limits<T>::infinity());
    EXPECT_EQ(exact_sum(Elements(std::span<const T>(values))).round(), INFINITY);
    values.push_back(std::numeric_limits<T>::quiet_NaN());
    EXPECT_TRUE(std::isnan(exact_sum(Elements(std::span<const T>(values))).round()));
}

TEST(Float16, ExactSumOfEveryValueAndItsNegation) { check_cancelling_whole_range<Float16>(); }
TEST(BFloat16, ExactSumOfEveryValueAndItsNegation) { check_cancelling_whole_range<BFloat16>(); }

// exact::BfloatWindow, the GPU exact kernel's bfloat16 fast path, for every bfloat16 (the word's
// other lane a zero) in the window of every float window a first value can start (the windows move
// by 4 binades): it takes every zero and every finite value of its 15 binades, nothing else, and
// integer() gives each taken value exactly; before any window it takes the zeros alone.
TEST(BFloat16, TheExactFastWindowTakesItsBinadesAndAddsThemExactly) {
    using Window = exact::BfloatWindow<53>;
    const auto check = [](const Window& window, double lo, double hi, double unit, std::uint32_t& taken) {
        taken = 0;
        for (std::uint32_t bits = 0; bits < 0x10000u; ++bits) {
            const std::uint32_t key = Window::key(bits);
            const float x = static_cast<float>(BFloat16::from_bits(static_cast<std::uint16_t>(bits)));
            const double magnitude = std::abs(static_cast<double>(x));
            const bool inside = magnitude == 0 || (std::isfinite(magnitude) && magnitude >= lo && magnitude < hi);
            ASSERT_EQ(window.holds(key, key), inside) << std::hex << bits << " in [" << lo << ", " << hi << ")";
            if (!inside) continue;
            ASSERT_EQ(window.integer(x), x / unit) << std::hex << bits;
            ++taken;
        }
    };
    std::uint32_t taken = 0;
    check(Window{}, INFINITY, INFINITY, 1.0, taken);
    EXPECT_EQ(taken, 2u);  // +0 and -0
    for (int biased = 1; biased < 255; biased += 4) {
        const exact::Window w = exact::window_for<53, -126, 4>(exact::power_of_two(biased));
        const double unit = std::ldexp(1.0, w.lsb + Window::kShift);
        check(Window::below_top_of(w), 128 * unit, w.hi, unit, taken);
        EXPECT_EQ(taken, std::isinf(w.hi) ? 2 + 2 * 128 * (255 - (w.lsb + Window::kShift + 7 + 127)) : 2 + 2 * 128 * 15) << "biased " << biased;
    }
}

// The generated float16 inputs: uniform with all 11 bits; the hard ones moved into the format's
// range, finite, with their small values kept: cancel's large values in [2^14, 2^15), ill:1e16 at
// the condition number float16 reaches (about 8e7), ill:1e4 at the one asked for.
double condition_number(const std::vector<Float16>& values) {
    double absolute = 0;
    for (Float16 x : values) absolute += std::abs(static_cast<double>(x));
    return absolute / std::abs(exact_sum(Elements(std::span<const Float16>(values))).round());
}

std::vector<Float16> generated(Distribution distribution, double condition = 1e16) {
    InputSpec spec;
    spec.distribution = distribution;
    spec.condition = condition;
    std::vector<Float16> values(1 << 16);
    fill(std::span<Float16>(values), spec);
    for (Float16 x : values) EXPECT_TRUE(std::isfinite(static_cast<float>(x)));
    return values;
}

TEST(Float16, GeneratedInputsFitTheFormat) {
    const auto uniform = generated(Distribution::uniform);
    int odd = 0;
    for (Float16 x : uniform) {
        EXPECT_TRUE(x >= 0 && x < 1);
        odd += std::fmod(std::ldexp(static_cast<double>(x), 11), 2.0) == 1.0;
    }
    EXPECT_GT(odd, 1 << 14) << "uniform values use the format's 11th bit";
    for (Float16 x : generated(Distribution::cancel)) {
        const double magnitude = std::abs(static_cast<double>(x));
        EXPECT_TRUE(magnitude < 1 || (magnitude >= 0x1p14 && magnitude < 0x1p15)) << magnitude;
    }
    EXPECT_GT(condition_number(generated(Distribution::ill_conditioned)), 2e7);
    EXPECT_LT(condition_number(generated(Distribution::ill_conditioned)), 3e8);
    EXPECT_NEAR(std::log10(condition_number(generated(Distribution::ill_conditioned, 1e4))), 4, 0.3);
}

}  // namespace
}  // namespace shootout
