#include "exact/exact_sum.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "platform/joining_thread.hpp"

namespace shootout {

namespace {
constexpr int kFloatBias = 150;         // float = m * 2^(e - 150), e the biased exponent (1 for subnormals)
constexpr std::size_t kChunk = 1u << 30;  // floats per bin pass: far below the 2^39 that overflow a bin
// Doubles per normalize(): each adds at most once to a digit, a part below 2^32.
constexpr std::size_t kDoublesPerNormalize = 1u << 20;
}  // namespace

void ExactAccumulator::add_scaled(std::uint64_t magnitude, bool negative, int bit) {
    const int digit = bit / kDigitBits;
    const unsigned __int128 shifted = static_cast<unsigned __int128>(magnitude) << (bit % kDigitBits);
    for (int k = 0; k < 3; ++k) {
        const auto part = static_cast<std::int64_t>((shifted >> (k * kDigitBits)) & 0xffffffffu);
        if (part != 0) digits_[digit + k] += negative ? -part : part;
    }
}

void ExactAccumulator::normalize() {
    for (int i = 0; i + 1 < kDigits; ++i) {
        const std::int64_t carry = digits_[i] >> kDigitBits;  // arithmetic shift: floor division
        digits_[i] -= carry * (std::int64_t{1} << kDigitBits);
        digits_[i + 1] += carry;
    }
}

template <class T>
void ExactAccumulator::add_as_floats(std::span<const T> values) {
    for (std::size_t begin = 0; begin < values.size(); begin += kChunk) {
        const std::size_t end = std::min(values.size(), begin + kChunk);
        // Four bin sets, used in turn, so that neighbours with equal exponents do not wait on each
        // other's store.
        std::vector<std::array<std::int64_t, 256>> bins(4, std::array<std::int64_t, 256>{});
        for (std::size_t i = begin; i < end; ++i) {
            const auto bits = std::bit_cast<std::uint32_t>(static_cast<float>(values[i]));
            const std::uint32_t exponent = (bits >> 23) & 0xffu;
            if (exponent == 0xffu) [[unlikely]] {
                if (bits & 0x7fffffu) saw_nan_ = true;
                else (bits >> 31 ? saw_neg_inf_ : saw_pos_inf_) = true;
                continue;
            }
            const std::int64_t mantissa = (bits & 0x7fffffu) | (exponent ? 0x800000u : 0u);
            bins[i & 3][exponent ? exponent : 1] += (bits >> 31) ? -mantissa : mantissa;
        }
        // Bin e holds the signed significands of the floats with biased exponent e (subnormals in
        // bin 1): it adds bin * 2^(e - 150).
        for (const auto& set : bins) {
            for (int e = 1; e < 255; ++e) {
                const std::int64_t bin = set[e];
                if (bin == 0) continue;
                const std::uint64_t magnitude = bin < 0 ? 0 - static_cast<std::uint64_t>(bin) : static_cast<std::uint64_t>(bin);
                add_scaled(magnitude, bin < 0, e - kFloatBias - kLowestBit);
            }
            normalize();
        }
    }
}

void ExactAccumulator::add(std::span<const float> values) { add_as_floats(values); }
void ExactAccumulator::add(std::span<const Float16> values) { add_as_floats(values); }
void ExactAccumulator::add(std::span<const BFloat16> values) { add_as_floats(values); }

void ExactAccumulator::add(std::span<const double> values) {
    for (std::size_t i = 0; i < values.size(); ++i) {
        const double value = values[i];
        if (std::isnan(value)) saw_nan_ = true;
        else if (std::isinf(value)) (value < 0 ? saw_neg_inf_ : saw_pos_inf_) = true;
        else {
            const auto bits = std::bit_cast<std::uint64_t>(value);
            const int exponent = static_cast<int>((bits >> 52) & 0x7ffu);
            const std::uint64_t mantissa = (bits & ((std::uint64_t{1} << 52) - 1)) | (exponent ? std::uint64_t{1} << 52 : 0);
            // double = mantissa * 2^(max(exponent, 1) - 1075)
            add_scaled(mantissa, bits >> 63, std::max(exponent, 1) - 1075 - kLowestBit);
        }
        if ((i + 1) % kDoublesPerNormalize == 0) normalize();
    }
    normalize();
}

void ExactAccumulator::add(double value) { add(std::span<const double>(&value, 1)); }

ExactAccumulator& ExactAccumulator::operator+=(const ExactAccumulator& other) {
    for (int i = 0; i < kDigits; ++i) digits_[i] += other.digits_[i];
    normalize();
    saw_nan_ |= other.saw_nan_;
    saw_pos_inf_ |= other.saw_pos_inf_;
    saw_neg_inf_ |= other.saw_neg_inf_;
    return *this;
}

std::array<std::int64_t, ExactAccumulator::kWords> ExactAccumulator::words() const {
    std::array<std::int64_t, kWords> words{};
    std::copy(digits_.begin(), digits_.end(), words.begin());
    words[kDigits] = saw_nan_;
    words[kDigits + 1] = saw_pos_inf_;
    words[kDigits + 2] = saw_neg_inf_;
    return words;
}

ExactAccumulator ExactAccumulator::from_words(std::span<const std::int64_t, kWords> words) {
    ExactAccumulator sum;
    std::copy(words.begin(), words.begin() + kDigits, sum.digits_.begin());
    sum.normalize();
    sum.saw_nan_ = words[kDigits] != 0;
    sum.saw_pos_inf_ = words[kDigits + 1] != 0;
    sum.saw_neg_inf_ = words[kDigits + 2] != 0;
    return sum;
}

double ExactAccumulator::round() const {
    if (saw_nan_ || (saw_pos_inf_ && saw_neg_inf_)) return std::numeric_limits<double>::quiet_NaN();
    if (saw_pos_inf_) return std::numeric_limits<double>::infinity();
    if (saw_neg_inf_) return -std::numeric_limits<double>::infinity();

    ExactAccumulator magnitude = *this;
    magnitude.normalize();
    const bool negative = magnitude.digits_[kDigits - 1] < 0;
    if (negative) {
        for (auto& d : magnitude.digits_) d = -d;
        magnitude.normalize();
    }
    const auto& d = magnitude.digits_;
    auto bit_at = [&](int i) { return static_cast<std::uint64_t>(d[i / kDigitBits] >> (i % kDigitBits)) & 1u; };

    int top = kDigits * kDigitBits - 1;
    while (top >= 0 && bit_at(top) == 0) --top;
    if (top < 0) return 0.0;

    // Take 53 bits from the top; round to nearest, ties to even, on the bits below.
    const int low = std::max(top - 52, 0);
    std::uint64_t q = 0;
    for (int i = top; i >= low; --i) q = (q << 1) | bit_at(i);
    if (low > 0) {
        const bool round_bit = bit_at(low - 1) != 0;
        bool sticky = false;
        for (int i = 0; i < (low - 1) / kDigitBits && !sticky; ++i) sticky = d[i] != 0;
        for (int i = ((low - 1) / kDigitBits) * kDigitBits; i < low - 1 && !sticky; ++i) sticky = bit_at(i) != 0;
        if (round_bit && (sticky || (q & 1u))) ++q;  // a carry out to 2^53 is still exact in a double
    }
    const double value = std::ldexp(static_cast<double>(q), low + kLowestBit);
    return negative ? -value : value;
}

namespace {

template <class T>
ExactAccumulator exact_sum_of(std::span<const T> values) {
    constexpr std::size_t kPerThreadMinimum = 1u << 22;
    const std::size_t threads = std::clamp<std::size_t>(values.size() / kPerThreadMinimum, 1,
                                                        std::max(1u, std::thread::hardware_concurrency()));
    std::vector<ExactAccumulator> partial(threads);
    const std::size_t share = (values.size() + threads - 1) / threads;
    platform::run_parts(threads, [&partial, values, share](std::size_t t) {
        const std::size_t begin = std::min(values.size(), t * share);
        partial[t].add(values.subspan(begin, std::min(share, values.size() - begin)));
    });
    for (std::size_t t = 1; t < threads; ++t) partial[0] += partial[t];
    return partial[0];
}

}  // namespace

ExactAccumulator exact_sum(Elements values) {
    return values.visit([](auto typed) { return exact_sum_of(typed); });
}

double relative_error(double result, const ExactAccumulator& exact) {
    if (exact.saw_non_finite()) return std::numeric_limits<double>::quiet_NaN();
    const double s = exact.round();
    // A result that is not finite is infinitely far from the finite S, also where S rounds past DBL_MAX
    // to that infinity (doubles only: 2^40 of FLT_MAX is far inside the double range): an overflow
    // is never exact, and an error of 0 beside an infinite exact column would read as one.
    if (!std::isfinite(result)) return std::numeric_limits<double>::infinity();
    ExactAccumulator difference = exact;
    difference.add(-result);
    const double error = std::abs(difference.round());
    // |S| past DBL_MAX: divided by DBL_MAX instead, which is below |S|; the error is then Inf unless S
    // is within a few ulps of DBL_MAX.
    return s == 0 ? error : error / std::min(std::abs(s), std::numeric_limits<double>::max());
}

}  // namespace shootout
