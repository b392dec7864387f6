// The exact sum of float32 values, shared by the CPU and CUDA exact backends: every function here
// compiles for the host and for the device. It holds how a float enters the sum, how partial sums
// merge, the fixed-point window the backends' fast paths add most floats in, and the one rounding to
// double at the end. bench/exact_sum, the harness's reference, is written independently of this.
//
// The number: every finite float is m * 2^(p - 149) with an integer 0 <= m < 2^24 and p in [0, 253]
// (p = biased exponent - 1; subnormals have p = 0 and no implicit bit). So every sum of floats is an
// integer X in units of 2^-149, and X is what is kept: |X| < n * 2^277, 318 bits for n = 2^40.
// It is stored carry-save, as kDigits signed 64-bit digits, X = sum_k digit[k] * 2^(32 k), a
// "small superaccumulator" (Neal 2015, "Fast exact summation using small and large
// superaccumulators", arXiv:1505.05571; here with float32's 8-bit exponent, 32-bit digits and
// 64-bit words). A float adds two pieces below 2^32 to two digits and never carries; a digit can
// take 2^31 such additions before it could overflow, and normalize() propagates the carries well
// before that. Integer additions are associative, so partial sums merge exactly in any order: the
// result cannot depend on the thread count, the block count or the machine.
//
// The window (the fast path): in a fixed-point window of 2^lsb units, the floats with
// lo <= |x| < hi are integer multiples of 2^lsb below 2^TopBit of them, so x * 2^-lsb is an exact
// integer that a backend adds into a 64-bit integer with one multiply, one conversion and one add,
// and folds into the digits with add_fixed() now and then. The idea of a cheap exact first level in
// front of a superaccumulator is ExBLAS's (Collange, Defour, Graillat, Iakymchuk 2015, "Numerical
// reproducibility for the parallel reduction on multi- and many-core architectures"), whose first
// level is floating-point expansions; an integer window is cheaper for float32 inputs. Floats
// outside the window (and zeros, NaN, Inf) go to add_float(), one at a time.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SHOOTOUT_EXACT_FN __host__ __device__ __forceinline__
#else
// Always inlined: the SIMD kernels that call these are compiled for AVX-512; an out-of-line copy
// emitted there could be the one the linker keeps for every caller (see cpu/kernels/compensated.hpp). For the
// same reason the bit casts below are the builtin, not the std::bit_cast template.
#define SHOOTOUT_EXACT_FN [[gnu::always_inline]] inline
#endif

namespace shootout::exact {

inline constexpr int kDigitBits = 32;
// 10 x 32 = 320 bits: X of up to 2^40 floats near FLT_MAX needs 318; the top digit, 64 bits wide,
// has room for far more.
inline constexpr int kDigits = 10;
// Exponent of X's unit: the smallest subnormal float, 2^-149.
inline constexpr int kUnitExponent = -149;

// What the sum has seen besides finite floats, as bits.
enum Special : unsigned { kNan = 1u, kPlusInfinity = 2u, kMinusInfinity = 4u };

SHOOTOUT_EXACT_FN std::uint32_t bits_of(float x) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    return __builtin_bit_cast(std::uint32_t, x);
#endif
}

SHOOTOUT_EXACT_FN float float_from_bits(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(bits);
#else
    return __builtin_bit_cast(float, bits);
#endif
}

SHOOTOUT_EXACT_FN double double_from_bits(std::uint64_t bits) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(static_cast<long long>(bits));
#else
    return __builtin_bit_cast(double, bits);
#endif
}

SHOOTOUT_EXACT_FN int leading_zeros(std::uint64_t x) {  // x != 0
#if defined(__CUDA_ARCH__)
    return __clzll(static_cast<long long>(x));
#else
    return __builtin_clzll(x);
#endif
}

// Digits in one thread's registers or memory. The GPU kernel keeps its threads' digits in shared
// memory through a strided view with the same operator[]; every function below takes either.
struct LocalDigits {
    std::int64_t digit[kDigits];
    SHOOTOUT_EXACT_FN std::int64_t& operator[](int k) { return digit[k]; }
    SHOOTOUT_EXACT_FN std::int64_t operator[](int k) const { return digit[k]; }
};

// Adds low + high 2^64 (high below 2^32), negated if `negative`, at digit k: in 32-bit pieces to
// digits k, k + 1 and, when high is not 0, k + 2. The sign is applied as (piece ^ s) - s with s = 0
// or -1, without a branch: the signs of real data are unpredictable.
template <class Digits>
SHOOTOUT_EXACT_FN void add_pieces(Digits& digits, int k, std::uint64_t low, std::uint64_t high, bool negative) {
    const std::int64_t s = -static_cast<std::int64_t>(negative);
    digits[k] += (static_cast<std::int64_t>(low & 0xffffffffu) ^ s) - s;
    digits[k + 1] += (static_cast<std::int64_t>(low >> 32) ^ s) - s;
    if (high != 0) digits[k + 2] += (static_cast<std::int64_t>(high) ^ s) - s;
}

// Adds one float, given as its bits. Returns the Special it is (NaN, +Inf, -Inf), else 0; a special
// adds nothing to the digits.
template <class Digits>
SHOOTOUT_EXACT_FN unsigned add_float(Digits& digits, std::uint32_t bits) {
    const std::uint32_t biased = (bits >> 23) & 0xffu;
    const bool negative = (bits >> 31) != 0;
    if (biased == 0xffu) return (bits & 0x7fffffu) ? kNan : negative ? kMinusInfinity : kPlusInfinity;
    const std::uint64_t m = (bits & 0x7fffffu) | (biased != 0 ? 0x800000u : 0u);
    const int p = biased != 0 ? static_cast<int>(biased) - 1 : 0;
    // m 2^p lands at digit p / 32 (at most 7), shifted by p % 32: below 2^55, two pieces.
    add_pieces(digits, p / kDigitBits, m << (p % kDigitBits), 0, negative);
    return 0;
}

// Adds value * 2^lsb, lsb in [Window::kLowestLsb, Window::kHighestLsb]: a fast path's integer total.
template <class Digits>
SHOOTOUT_EXACT_FN void add_fixed(Digits& digits, std::int64_t value, int lsb) {
    const int p = lsb - kUnitExponent;  // in [0, 253]
    const int shift = p % kDigitBits;
    const std::uint64_t magnitude = value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
    // magnitude << shift as 96 bits: low 64 and the (up to 31) bits above them.
    add_pieces(digits, p / kDigitBits, magnitude << shift, shift != 0 ? magnitude >> (64 - shift) : 0, value < 0);
}

// Carries, so that every digit but the top one is in [0, 2^32); X is unchanged. Arithmetic shifts
// make the carries floor divisions, so negative digits borrow correctly.
template <class Digits>
SHOOTOUT_EXACT_FN void normalize(Digits& digits) {
    for (int k = 0; k + 1 < kDigits; ++k) {
        const std::int64_t carry = digits[k] >> kDigitBits;
        digits[k] = static_cast<std::int64_t>(static_cast<std::uint64_t>(digits[k]) & 0xffffffffu);
        digits[k + 1] += carry;
    }
}

// X correctly rounded to double, to nearest with ties to even: one rounding, so the error is at most
// half an ulp, and 0 when X is a double. NaN if a NaN or both infinities were added, else the
// infinity if one was. A zero sum is +0.
SHOOTOUT_EXACT_FN double round_to_double(LocalDigits x, unsigned specials) {
    if ((specials & kNan) || ((specials & kPlusInfinity) && (specials & kMinusInfinity)))
        return double_from_bits(0x7ff8000000000000u);
    if (specials & kPlusInfinity) return double_from_bits(0x7ff0000000000000u);
    if (specials & kMinusInfinity) return double_from_bits(0xfff0000000000000u);

    normalize(x);
    const bool negative = x[kDigits - 1] < 0;
    if (negative) {
        for (int k = 0; k < kDigits; ++k) x[k] = -x[k];
        normalize(x);
    }
    int top = kDigits - 1;
    while (top >= 0 && x[top] == 0) --top;
    if (top < 0) return 0.0;
    // The leading one bit of |X|, counted from the unit.
    const int leading = top * kDigitBits + 63 - leading_zeros(static_cast<std::uint64_t>(x[top]));

    // The 64 bits of |X| from `leading` down (zeros below the unit), and whether any lower bit is set.
    const int lowest = leading - 63;
    std::uint64_t head = 0;
    bool sticky = false;
    for (int k = 0; k <= top; ++k) {
        const auto d = static_cast<std::uint64_t>(x[k]);
        const int at = k * kDigitBits - lowest;  // where digit k's bit 0 lands in `head`
        if (at >= 0) head |= at < 64 ? d << at : 0;
        else {
            head |= -at < 64 ? d >> -at : 0;
            sticky |= (-at < 64 ? d & ((std::uint64_t{1} << -at) - 1) : d) != 0;
        }
    }
    std::uint64_t significand = head >> 11;  // 53 bits, the leading one at bit 52
    const bool round_bit = (head >> 10) & 1u;
    sticky |= (head & 0x3ffu) != 0;
    int exponent = leading + kUnitExponent;  // |X| 2^-149 is in [2^exponent, 2^(exponent + 1))
    if (round_bit && (sticky || (significand & 1u))) {
        if (++significand == std::uint64_t{1} << 53) {
            significand >>= 1;
            ++exponent;
        }
    }
    // exponent is in [-149, 202]: a normal double; no overflow, no underflow.
    return double_from_bits((negative ? std::uint64_t{1} << 63 : 0) |
                            static_cast<std::uint64_t>(exponent + 1023) << 52 | (significand & ((std::uint64_t{1} << 52) - 1)));
}

// A whole sum in one place: a CPU thread's, or the GPU grid's once its blocks have merged.
struct Sum {
    LocalDigits digits = {};
    unsigned specials = 0;

    SHOOTOUT_EXACT_FN void add(float x) { specials |= add_float(digits, bits_of(x)); }
    // Both normalized (digits below 2^32): then 2^31 sums can be merged before a normalize().
    SHOOTOUT_EXACT_FN void merge(const Sum& other) {
        for (int k = 0; k < kDigits; ++k) digits[k] += other.digits[k];
        specials |= other.specials;
    }
    SHOOTOUT_EXACT_FN double round() const { return round_to_double(digits, specials); }
};

// The fast path's window: floats with lo <= |x| < hi are integer multiples of 2^lsb, and
// x * scale = x 2^-lsb is that integer, exactly, with |x * scale| < 2^TopBit.
struct Window {
    // At lsb = -149 every float below hi is a multiple of 2^lsb, subnormals included: lo is 0.
    static constexpr int kLowestLsb = -149, kHighestLsb = 104;
    float lo, hi;
    double scale;  // a float too when lsb >= -126
    int lsb;

    SHOOTOUT_EXACT_FN bool contains(float magnitude) const { return magnitude >= lo && magnitude < hi; }
};

// 2^(biased - 127), biased in [1, 254].
SHOOTOUT_EXACT_FN float power_of_two(int biased) { return float_from_bits(static_cast<std::uint32_t>(biased) << 23); }

// The lowest window whose top, 2^(lsb + TopBit), is above `magnitude` (an |x|, 0 or +Inf), but
// none below LowestLsb: it spans TopBit - 23 binades, the top one holding `magnitude`.
template <int TopBit, int LowestLsb = Window::kLowestLsb>
SHOOTOUT_EXACT_FN Window window_for(float magnitude) {
    static_assert(TopBit > 24 && TopBit < 63, "a float's 24 bits and room to add some in an int64");
    static_assert(LowestLsb >= Window::kLowestLsb, "no float has a bit below 2^-149");
    const int biased = static_cast<int>(bits_of(magnitude) >> 23);  // magnitude < 2^(biased - 126)
    int lsb = biased - 126 - TopBit;
    lsb = lsb < LowestLsb ? LowestLsb : lsb > Window::kHighestLsb ? Window::kHighestLsb : lsb;
    const int top = lsb + TopBit;
    return {.lo = lsb == Window::kLowestLsb ? 0.0f : power_of_two(lsb + 23 + 127),
            .hi = top >= 128 ? float_from_bits(0x7f800000u) : power_of_two(top + 127),  // +Inf: all finite floats
            .scale = double_from_bits(static_cast<std::uint64_t>(1023 - lsb) << 52),
            .lsb = lsb};
}

}  // namespace shootout::exact
