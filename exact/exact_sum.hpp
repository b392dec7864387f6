// The exact sum S of a float32, float64, float16 or bfloat16 array, and the rounding error of a
// result against it.
//
// Method: a fixed-point superaccumulator (Kulisch) whose lowest bit is 2^-1074 and which is wide
// enough for any double and for sums of 2^40 doubles near DBL_MAX. Every float is m * 2^(e - 150)
// with an integer |m| < 2^24 and a biased exponent e: floats are first added, exactly, into one
// 64-bit integer bin per exponent (a bin overflows only after 2^39 floats), and the bins are then
// folded into the accumulator. float16 and bfloat16 values are floats, exactly, and take that path.
// Doubles are added to it directly. Nothing is rounded until round(),
// which rounds once, to nearest-even.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "api/element_type.hpp"

namespace shootout {

class ExactAccumulator {
public:
    // The layout of the digits words() hands out: digit i holds bits [kDigitBits i, kDigitBits (i + 1))
    // of the fixed-point sum, whose lowest bit is 2^kLowestBit, so S = sum of digit i 2^(kDigitBits i + kLowestBit).
    static constexpr int kDigitBits = 32;
    static constexpr int kDigits = 70;  // 2240 bits from 2^-1074: every double, with 64 bits to spare
    static constexpr int kLowestBit = -1074;  // the smallest double

    void add(std::span<const float> values);
    void add(std::span<const Float16> values);
    void add(std::span<const BFloat16> values);
    void add(std::span<const double> values);
    void add(double value);
    ExactAccumulator& operator+=(const ExactAccumulator& other);

    // The state as integer words, for combining accumulators across processes: the digits, then one
    // word per kind of non-finite value seen (0 or 1). Digits are kept normalized (below 2^32, all
    // but the signed top one), so the word-by-word sum of up to 2^31 accumulators' words is the
    // words of their sum: an all-reduce of int64 words with MPI_SUM combines them exactly, in any
    // order, for any number of ranks.
    static constexpr std::size_t kWords = kDigits + 3;
    std::array<std::int64_t, kWords> words() const;
    static ExactAccumulator from_words(std::span<const std::int64_t, kWords> words);

    // S correctly rounded to double (+-Inf when it rounds past DBL_MAX). NaN if a NaN, or both
    // infinities, were added; the infinity if only one sign of infinity was.
    double round() const;

    bool saw_non_finite() const { return saw_nan_ || saw_pos_inf_ || saw_neg_inf_; }

private:
    // Adds values of a type whose every value is a float (float, Float16, BFloat16).
    template <class T>
    void add_as_floats(std::span<const T> values);
    // Adds magnitude * 2^(bit - 1074), negated when negative is set.
    void add_scaled(std::uint64_t magnitude, bool negative, int bit);
    void normalize();  // carries so that every digit but the top one is in [0, 2^32)

    std::array<std::int64_t, kDigits> digits_{};
    bool saw_nan_ = false, saw_pos_inf_ = false, saw_neg_inf_ = false;
};

// S for a whole input of any element type; spreads large inputs over the hardware threads.
ExactAccumulator exact_sum(Elements values);

// |result - S| / |S|, with result - S itself computed exactly before its one rounding.
// When S = 0 it is the absolute error |result|. NaN when the input held NaN or Inf. +Inf when the
// input was finite and the result is not (a backend that overflowed or produced NaN), also where S
// itself rounds to that infinity (doubles past DBL_MAX).
double relative_error(double result, const ExactAccumulator& exact);

}  // namespace shootout
