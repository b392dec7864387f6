// The 16-bit element types on the host: IEEE 754 binary16 (float16) and bfloat16, each a wrapper
// of its bit pattern. Neither g++ 12 (no std::float16_t), MinGW nor every CUDA host compiler has
// one standard type for both, and a bit pattern is what files, devices and SIMD conversions share;
// the layout is that of CUDA's __half and __nv_bfloat16, NumPy's float16 and every ISA's.
//
// Widening to float is exact and implicit (every 16-bit value is a float), so `float + x` adds in
// float; narrowing is explicit and rounds to nearest, ties to even, as IEEE conversions do. Negation
// flips the sign bit. There is no other 16-bit arithmetic here: a sum kept in 16 bits rounds each float result back explicitly,
// and for the formats' 11 and 8 significand bits that float-then-round addition is the correctly
// rounded 16-bit addition (double rounding is innocuous from 24 >= 2 x 11 + 2 bits; Figueroa,
// "When is double rounding innocuous?", SIGNUM Newsletter 30(3), 1995).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace shootout {

namespace half_detail {

// value rounded to nearest, ties to even, into a binary format of SignificandBits (the implicit
// bit included) and ExponentBits, as its bits: subnormals, overflow to infinity and NaN (quiet,
// sign kept) as IEEE 754 says. Every float and every double below the format's smallest
// subnormal's half rounds as the exact value would.
template <int SignificandBits, int ExponentBits>
constexpr std::uint16_t round_to_format(double value) {
    constexpr int fraction = SignificandBits - 1, bias = (1 << (ExponentBits - 1)) - 1;
    constexpr std::uint32_t infinity = ((1u << ExponentBits) - 1) << fraction;
    constexpr int lowest_lsb = 1 - bias - fraction;  // the smallest subnormal's exponent
    const auto bits = std::bit_cast<std::uint64_t>(value);
    const auto sign = static_cast<std::uint16_t>(bits >> 63 << 15);
    const std::uint64_t magnitude = bits & ~(std::uint64_t{1} << 63);
    constexpr std::uint64_t kDoubleInfinity = std::uint64_t{0x7ff} << 52;
    if (magnitude > kDoubleInfinity) return static_cast<std::uint16_t>(sign | infinity | 1u << (fraction - 1));
    if (magnitude == kDoubleInfinity) return static_cast<std::uint16_t>(sign | infinity);
    const int biased = static_cast<int>(magnitude >> 52);
    if (biased == 0) return sign;  // zero, or a double subnormal: far below half of any 16-bit subnormal
    const std::uint64_t significand = (magnitude & ((std::uint64_t{1} << 52) - 1)) | std::uint64_t{1} << 52;
    const int exponent = biased - 1023;  // value = significand 2^(exponent - 52)
    const int lsb = exponent - fraction > lowest_lsb ? exponent - fraction : lowest_lsb;
    const int drop = lsb - (exponent - 52);  // >= 52 - fraction
    if (drop >= 64) return sign;  // below half the smallest subnormal
    std::uint64_t kept = significand >> drop;
    const std::uint64_t rest = significand & ((std::uint64_t{1} << drop) - 1), half = std::uint64_t{1} << (drop - 1);
    if (rest > half || (rest == half && (kept & 1))) ++kept;
    // kept 2^lsb: a subnormal's bits are kept itself (kept = 2^fraction is the smallest normal);
    // a normal's implicit bit adds one to the exponent field, and a carry to 2^SignificandBits one more.
    const std::uint64_t encoded = lsb == lowest_lsb ? kept : (static_cast<std::uint64_t>(lsb + fraction + bias - 1) << fraction) + kept;
    return static_cast<std::uint16_t>(sign | (encoded >= infinity ? infinity : encoded));
}

// The limits generic code asks a floating-point type for, of each format.
template <class Format, int Digits, int MaxExponent, std::uint16_t Max, std::uint16_t Min, std::uint16_t Epsilon>
struct Limits {
    static constexpr bool is_specialized = true, is_signed = true, is_integer = false, is_exact = false,
                          has_infinity = true, has_quiet_NaN = true, is_iec559 = true;
    static constexpr int digits = Digits, radix = 2, max_exponent = MaxExponent;
    static constexpr Format max() { return Format::from_bits(Max); }
    static constexpr Format lowest() { return Format::from_bits(static_cast<std::uint16_t>(Max | 0x8000u)); }
    static constexpr Format min() { return Format::from_bits(Min); }
    static constexpr Format denorm_min() { return Format::from_bits(1); }
    static constexpr Format epsilon() { return Format::from_bits(Epsilon); }
    static constexpr Format infinity() { return Format::from_bits(static_cast<std::uint16_t>(Max + 1)); }
    static constexpr Format quiet_NaN() { return Format::from_bits(static_cast<std::uint16_t>(Max + 1 + (1u << (Digits - 2)))); }
};

}  // namespace half_detail

// IEEE 754 binary16: 1 sign, 5 exponent, 10 fraction bits; finite up to 65504, subnormals to 2^-24.
struct Float16 {
    std::uint16_t bits = 0;

    static constexpr int kSignificandBits = 11, kExponentBits = 5;

    Float16() = default;
    constexpr explicit Float16(double value) : bits(half_detail::round_to_format<kSignificandBits, kExponentBits>(value)) {}  // floats widen exactly
    static constexpr Float16 from_bits(std::uint16_t bits) {
        Float16 h;
        h.bits = bits;
        return h;
    }

    // value rounded as Float16(double(value)) rounds it, by integer steps alone: for the loops that
    // round a float sum back to float16 once per element.
    static constexpr Float16 round(float value) {
        const auto x = std::bit_cast<std::uint32_t>(value);
        const auto sign = static_cast<std::uint16_t>(x >> 16 & 0x8000u);
        const std::uint32_t magnitude = x & 0x7fffffffu;
        if (magnitude >= 0x47800000u)  // 2^16 and up: infinity, or NaN made quiet
            return from_bits(static_cast<std::uint16_t>(sign | (magnitude > 0x7f800000u ? 0x7e00u : 0x7c00u)));
        if (magnitude < 0x38800000u) {  // below 2^-14: a subnormal or zero, rounded by adding 0.5, whose ulp is 2^-24
            const float shifted = std::bit_cast<float>(magnitude) + 0.5f;
            return from_bits(static_cast<std::uint16_t>(sign | (std::bit_cast<std::uint32_t>(shifted) - 0x3f000000u)));
        }
        // Rebias, then add just under half of float16's ulp, plus the kept lowest bit: a carry out of
        // the dropped 13 bits rounds up exactly past the tie, or at it when the kept part is odd.
        const std::uint32_t odd = magnitude >> 13 & 1u;
        return from_bits(static_cast<std::uint16_t>(sign | (magnitude - ((127u - 15u) << 23) + 0xfffu + odd) >> 13));
    }

    constexpr Float16 operator-() const { return from_bits(static_cast<std::uint16_t>(bits ^ 0x8000u)); }  // exact, as IEEE's negate

    constexpr operator float() const {  // NOLINT(google-explicit-constructor): widening is exact
        // Masks, not branches, so that loops over float16 values vectorise: normal numbers
        // rebiased, infinities and NaN rebiased onto float's top exponent, subnormals scaled.
        const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16, rest = bits & 0x7fffu;
        const std::uint32_t special = 0u - static_cast<std::uint32_t>(rest >= 0x7c00u), subnormal = 0u - static_cast<std::uint32_t>(rest < 0x0400u);
        const std::uint32_t rebiased = (rest << 13) + ((127u - 15u) << 23) + (special & (128u - 16u) << 23);
        const float scaled = static_cast<float>(static_cast<std::int32_t>(rest)) * 0x1p-24f;  // exact: rest < 2^10 where used
        return std::bit_cast<float>((subnormal & std::bit_cast<std::uint32_t>(scaled)) | (~subnormal & rebiased) | sign);
    }
};

// bfloat16: float32's upper half, 1 sign, 8 exponent, 7 fraction bits; float's range.
struct BFloat16 {
    std::uint16_t bits = 0;

    static constexpr int kSignificandBits = 8, kExponentBits = 8;

    BFloat16() = default;
    constexpr explicit BFloat16(double value) : bits(half_detail::round_to_format<kSignificandBits, kExponentBits>(value)) {}
    static constexpr BFloat16 from_bits(std::uint16_t bits) {
        BFloat16 h;
        h.bits = bits;
        return h;
    }

    // value rounded as BFloat16(double(value)) rounds it: a float's upper half, rounded on its lower
    // half by adding 0x7fff plus the kept lowest bit (a carry past the tie, or at it when odd).
    static constexpr BFloat16 round(float value) {
        const auto x = std::bit_cast<std::uint32_t>(value);
        if ((x & 0x7fffffffu) > 0x7f800000u) return from_bits(static_cast<std::uint16_t>(x >> 16 | 0x40u));  // NaN, made quiet
        return from_bits(static_cast<std::uint16_t>((x + 0x7fffu + (x >> 16 & 1u)) >> 16));
    }

    constexpr BFloat16 operator-() const { return from_bits(static_cast<std::uint16_t>(bits ^ 0x8000u)); }

    constexpr operator float() const { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }  // NOLINT(google-explicit-constructor)
};

static_assert(sizeof(Float16) == 2 && sizeof(BFloat16) == 2 && alignof(Float16) == 2, "the formats' own bits, nothing else");

}  // namespace shootout

template <>  // 65504, 2^-14, 2^-10
struct std::numeric_limits<shootout::Float16> : shootout::half_detail::Limits<shootout::Float16, 11, 16, 0x7bff, 0x0400, 0x1400> {};
template <>  // about 3.39e38, 2^-126, 2^-7
struct std::numeric_limits<shootout::BFloat16> : shootout::half_detail::Limits<shootout::BFloat16, 8, 128, 0x7f7f, 0x0080, 0x3c00> {};
