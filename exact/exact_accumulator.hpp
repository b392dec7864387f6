// The exact sum of float32, float64, float16 or bfloat16 values, shared by the CPU, CUDA, MPI and NCCL exact backends:
// every function here compiles for the host and for the device. It holds how a value enters the
// sum, how partial sums merge and travel between processes as integer words, the fixed-point window
// the float backends' fast paths add most floats in, and the one rounding to double at the end.
// exact/exact_sum.hpp, the harness's reference, is written independently of this.
//
// The number: every finite value of a binary format with S significand bits (implicit bit included)
// is m * 2^(p + unit) with an integer 0 <= m < 2^S, p = biased exponent - 1 (subnormals have p = 0
// and no implicit bit) and unit the exponent of the smallest subnormal: 2^-149 for float, 2^-1074
// for double, 2^-24 for float16, 2^-133 for bfloat16. So every sum is an integer X in units of
// 2^unit, and X is what is kept: for n = 2^40 values |X| < 2^(40 + maxp + S), 318 bits for float,
// 2139 for double, 80 for float16 and 301 for bfloat16.
// It is stored carry-save, as Digits<T> signed 64-bit digits, X = sum_k digit[k] * 2^(32 k), a
// "small superaccumulator" (Neal 2015, "Fast exact summation using small and large
// superaccumulators", arXiv:1505.05571; here with 32-bit digits and 64-bit words). A value adds
// pieces below 2^32 to at most three digits and never carries; a digit can take 2^31 such additions
// before it could overflow, and normalize() propagates the carries well before that. Integer
// additions are associative, so partial sums merge exactly in any order: the result cannot depend
// on the thread count, the block count, the rank count or the machine.
//
// The window (the float fast path): in a fixed-point window of 2^lsb units, the floats with
// lo <= |x| < hi are integer multiples of 2^lsb below 2^TopBit of them, so x * 2^-lsb is an exact
// integer that a backend adds into a 64-bit integer with one multiply, one conversion and one add,
// and folds into the digits with add_fixed() now and then. The idea of a cheap exact first level in
// front of a superaccumulator is ExBLAS's (Collange, Defour, Graillat, Iakymchuk 2015, "Numerical
// reproducibility for the parallel reduction on multi- and many-core architectures"), whose first
// level is floating-point expansions; an integer window is cheaper for float32 inputs. Floats
// outside the window (and zeros, NaN, Inf) go to add_value(), one at a time. The CPU backends add
// doubles with add_value() one at a time: their 53-bit significands leave an int64 window 10
// binades (the GPU kernel keeps a floating-point expansion in front,
// cuda/primitives/thread_expansion_sum.cuh).
#pragma once

#include <cstddef>
#include <cstdint>

#include "api/float16.hpp"

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

// The binary formats summed: their bits' type, significand bits (the implicit one included) and
// exponent bits.
template <class T>
struct Format;
template <>
struct Format<float> {
    using Bits = std::uint32_t;
    static constexpr int kSignificandBits = 24, kExponentBits = 8;
};
template <>
struct Format<double> {
    using Bits = std::uint64_t;
    static constexpr int kSignificandBits = 53, kExponentBits = 11;
};
template <>
struct Format<Float16> {
    using Bits = std::uint16_t;
    static constexpr int kSignificandBits = 11, kExponentBits = 5;
};
template <>
struct Format<BFloat16> {
    using Bits = std::uint16_t;
    static constexpr int kSignificandBits = 8, kExponentBits = 8;
};

// Exponent of X's unit, the smallest subnormal: 2^-149 for float, 2^-1074 for double, 2^-24 for
// float16, 2^-133 for bfloat16.
template <class T>
inline constexpr int kUnitExponent = 3 - (1 << (Format<T>::kExponentBits - 1)) - Format<T>::kSignificandBits;
// The largest p = biased exponent - 1 of a finite value: 253 for float, 2045 for double, 29 for
// float16, 253 for bfloat16.
template <class T>
inline constexpr int kMaxP = (1 << Format<T>::kExponentBits) - 3;
// Digits for X of up to 2^40 values of magnitude below 2^(maxp + S): 10 for float (320 bits), 67
// for double (2144 bits), 3 for float16, 10 for bfloat16; the top digit, 64 bits wide, has room
// for far more.
inline constexpr int kLog2MaxValues = 40;
template <class T>
inline constexpr int kDigits = (kMaxP<T> + Format<T>::kSignificandBits + kLog2MaxValues) / kDigitBits + 1;

// What the sum has seen besides finite values, as bits.
enum Special : unsigned { kNan = 1u, kPlusInfinity = 2u, kMinusInfinity = 4u };
inline constexpr int kSpecialKinds = 3;

SHOOTOUT_EXACT_FN std::uint32_t bits_of(float x) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    return __builtin_bit_cast(std::uint32_t, x);
#endif
}

SHOOTOUT_EXACT_FN std::uint64_t bits_of(double x) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
    return __builtin_bit_cast(std::uint64_t, x);
#endif
}

// The 16-bit formats are their bits (api/float16.hpp), on the host and on the device.
SHOOTOUT_EXACT_FN std::uint16_t bits_of(Float16 x) { return x.bits; }
SHOOTOUT_EXACT_FN std::uint16_t bits_of(BFloat16 x) { return x.bits; }

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

// Digits of a sum of T in one thread's registers or memory. The GPU kernel keeps its threads' digits
// in shared memory through a strided view with the same members; every function below takes either.
template <class T>
struct LocalDigits {
    using Element = T;
    static constexpr int kCount = kDigits<T>;
    std::int64_t digit[kCount];
    SHOOTOUT_EXACT_FN std::int64_t& operator[](int k) { return digit[k]; }
    SHOOTOUT_EXACT_FN std::int64_t operator[](int k) const { return digit[k]; }
};

// Adds magnitude 2^p (p counted from the unit), negated if `negative`: in 32-bit pieces to digits
// p / 32, p / 32 + 1 and, when the shifted magnitude passes 64 bits, p / 32 + 2. The sign is applied
// as (piece ^ s) - s with s = 0 or -1, without a branch: the signs of real data are unpredictable.
template <class Digits>
SHOOTOUT_EXACT_FN void add_scaled(Digits& digits, std::uint64_t magnitude, int p, bool negative) {
    const int k = p / kDigitBits, shift = p % kDigitBits;
    const std::uint64_t low = magnitude << shift, high = shift != 0 ? magnitude >> (64 - shift) : 0;  // high < 2^31
    const std::int64_t s = -static_cast<std::int64_t>(negative);
    digits[k] += (static_cast<std::int64_t>(low & 0xffffffffu) ^ s) - s;
    digits[k + 1] += (static_cast<std::int64_t>(low >> 32) ^ s) - s;
    if (high != 0) digits[k + 2] += (static_cast<std::int64_t>(high) ^ s) - s;
}

// Adds one value. Returns the Special it is (NaN, +Inf, -Inf), else 0; a special adds nothing to
// the digits.
template <class Digits, class T = typename Digits::Element>
SHOOTOUT_EXACT_FN unsigned add_value(Digits& digits, T x) {
    using Bits = typename Format<T>::Bits;
    constexpr int fraction_bits = Format<T>::kSignificandBits - 1;
    constexpr Bits fraction_mask = (Bits{1} << fraction_bits) - 1, exponent_mask = (Bits{1} << Format<T>::kExponentBits) - 1;
    const Bits bits = bits_of(x);
    const Bits biased = (bits >> fraction_bits) & exponent_mask;
    const bool negative = (bits >> (fraction_bits + Format<T>::kExponentBits)) != 0;
    if (biased == exponent_mask) return (bits & fraction_mask) ? kNan : negative ? kMinusInfinity : kPlusInfinity;
    const std::uint64_t m = (bits & fraction_mask) | (biased != 0 ? Bits{1} << fraction_bits : Bits{0});
    add_scaled(digits, m, biased != 0 ? static_cast<int>(biased) - 1 : 0, negative);
    return 0;
}

// Adds value * 2^lsb, lsb in [Window::kLowestLsb, Window::kHighestLsb]: a fast path's integer total.
template <class Digits>
SHOOTOUT_EXACT_FN void add_fixed(Digits& digits, std::int64_t value, int lsb) {
    const std::uint64_t magnitude = value < 0 ? 0 - static_cast<std::uint64_t>(value) : static_cast<std::uint64_t>(value);
    add_scaled(digits, magnitude, lsb - kUnitExponent<typename Digits::Element>, value < 0);
}

// Carries, so that every digit but the top one is in [0, 2^32); X is unchanged. Arithmetic shifts
// make the carries floor divisions, so negative digits borrow correctly.
template <class Digits>
SHOOTOUT_EXACT_FN void normalize(Digits& digits) {
    for (int k = 0; k + 1 < Digits::kCount; ++k) {
        const std::int64_t carry = digits[k] >> kDigitBits;
        digits[k] = static_cast<std::int64_t>(static_cast<std::uint64_t>(digits[k]) & 0xffffffffu);
        digits[k + 1] += carry;
    }
}

// X correctly rounded to double, to nearest with ties to even: one rounding, so the error is at most
// half an ulp, and 0 when X is a double; +-Inf when X rounds past DBL_MAX, a subnormal below
// 2^-1022. NaN if a NaN or both infinities were added, else the infinity if one was. A zero sum is +0.
template <class T>
SHOOTOUT_EXACT_FN double round_to_double(LocalDigits<T> x, unsigned specials) {
    constexpr int kCount = LocalDigits<T>::kCount;
    if ((specials & kNan) || ((specials & kPlusInfinity) && (specials & kMinusInfinity)))
        return double_from_bits(0x7ff8000000000000u);
    if (specials & kPlusInfinity) return double_from_bits(0x7ff0000000000000u);
    if (specials & kMinusInfinity) return double_from_bits(0xfff0000000000000u);

    normalize(x);
    const bool negative = x[kCount - 1] < 0;
    if (negative) {
        for (int k = 0; k < kCount; ++k) x[k] = -x[k];
        normalize(x);
    }
    // The top nonzero digit a, the two below it, b and c (0 below digit 0), and whether any digit
    // below those is nonzero. Every digit is read at a constant index, so that on the GPU they stay
    // in registers.
    int top = -1;
    for (int k = 0; k < kCount; ++k)
        if (x[k] != 0) top = k;
    if (top < 0) return 0.0;
    std::uint64_t a = 0, b = 0, c = 0;
    bool sticky = false;
    for (int k = 0; k < kCount; ++k) {
        const auto d = static_cast<std::uint64_t>(x[k]);
        a = k == top ? d : a;
        b = k == top - 1 ? d : b;
        c = k == top - 2 ? d : c;
        sticky |= k < top - 2 && d != 0;
    }
    // |X| = (a 2^64 + b 2^32 + c) 2^(32 top - 64) + the digits below: b and c below 2^32, a below 2^63.
    const int bits = 64 - leading_zeros(a);  // a's significant bits, 1 to 63
    // The leading one bit of |X|, counted from the unit.
    const int leading = top * kDigitBits + bits - 1;
    // The lowest bit the double keeps: 53 bits down from the leading one, but none below 2^-1074.
    constexpr int kSubnormalLsb = -1074 - kUnitExponent<T>;  // <= 0: X has no bit below 2^-1074
    const int kept = leading - 52 > kSubnormalLsb ? leading - 52 : kSubnormalLsb;

    // The 64 bits of |X| from `leading` down (zeros below the unit), and whether any lower bit is set.
    const int lowest = leading - 63;
    const std::uint64_t below = b << 32 | c;
    const std::uint64_t head = a << (64 - bits) | below >> bits;
    sticky |= (below & ((std::uint64_t{1} << bits) - 1)) != 0;
    const int drop = kept - lowest;  // in [11, 63]: the bits of head below the double's last
    std::uint64_t significand = head >> drop;
    const bool round_bit = (head >> (drop - 1)) & 1u;
    sticky |= (head & ((std::uint64_t{1} << (drop - 1)) - 1)) != 0;
    int exponent = kept + kUnitExponent<T>;  // |X| rounded = significand 2^exponent
    if (round_bit && (sticky || (significand & 1u))) {
        if (++significand == std::uint64_t{1} << 53) {
            significand >>= 1;
            ++exponent;
        }
    }
    const std::uint64_t sign = negative ? std::uint64_t{1} << 63 : 0;
    if (significand < std::uint64_t{1} << 52) return double_from_bits(sign | significand);  // subnormal: exponent is -1074
    if (exponent + 52 > 1023) return double_from_bits(sign | 0x7ff0000000000000u);        // past DBL_MAX
    return double_from_bits(sign | static_cast<std::uint64_t>(exponent + 52 + 1023) << 52 |
                            (significand & ((std::uint64_t{1} << 52) - 1)));
}

// A whole sum of T in one place: a CPU thread's, or the GPU grid's once its blocks have merged.
template <class T>
struct Sum {
    LocalDigits<T> digits = {};
    unsigned specials = 0;

    SHOOTOUT_EXACT_FN void add(T x) { specials |= add_value(digits, x); }
    // Both normalized (digits below 2^32): then 2^31 sums can be merged before a normalize().
    SHOOTOUT_EXACT_FN void merge(const Sum& other) {
        for (int k = 0; k < kDigits<T>; ++k) digits[k] += other.digits[k];
        specials |= other.specials;
    }
    SHOOTOUT_EXACT_FN double round() const { return round_to_double(digits, specials); }
};

// A sum as integer words, for adding sums across processes and GPUs (MPI_Allreduce, ncclAllReduce
// with int64 and sum): the normalized digits, then one word per kind of special value seen (NaN,
// +Inf, -Inf) as 0 or 1. The word-wise integer sum of up to 2^31 such words is the words of the
// sums' sum: every digit but the top is below 2^32, and a flag summed is nonzero when any was set.
template <class T>
inline constexpr int kWords = kDigits<T> + kSpecialKinds;

template <class T>
SHOOTOUT_EXACT_FN void to_words(Sum<T> sum, std::int64_t* words) {
    normalize(sum.digits);
    for (int k = 0; k < kDigits<T>; ++k) words[k] = sum.digits[k];
    for (int s = 0; s < kSpecialKinds; ++s) words[kDigits<T> + s] = (sum.specials >> s) & 1u;
}

template <class T>
SHOOTOUT_EXACT_FN Sum<T> from_words(const std::int64_t* words) {
    Sum<T> sum;
    for (int k = 0; k < kDigits<T>; ++k) sum.digits[k] = words[k];
    for (int s = 0; s < kSpecialKinds; ++s)
        if (words[kDigits<T> + s] != 0) sum.specials |= 1u << s;
    return sum;
}

// Adds x[0, n) to `sum` one value at a time; leaves its digits normalized. A value adds at most once
// to a digit: normalized every 2^20 values, far below 2^31.
template <class T>
inline void accumulate(const T* x, std::size_t n, Sum<T>& sum) {
    constexpr std::size_t kRound = std::size_t{1} << 20;
    for (std::size_t begin = 0; begin < n; begin += kRound) {
        const std::size_t end = n - begin < kRound ? n : begin + kRound;
        for (std::size_t i = begin; i < end; ++i) sum.add(x[i]);
        normalize(sum.digits);
    }
}

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

// The lowest window whose top, 2^(lsb + TopBit), is above `magnitude` (an |x|, 0 or +Inf) and a
// multiple of Align binades, but none below LowestLsb: it spans TopBit - 23 binades, `magnitude` in
// one of the top Align. Align > 1 gives values of about the same size the same window (a GPU warp
// then adds its threads' totals as integers).
template <int TopBit, int LowestLsb = Window::kLowestLsb, int Align = 1>
SHOOTOUT_EXACT_FN Window window_for(float magnitude) {
    static_assert(TopBit > 24 && TopBit < 63, "a float's 24 bits and room to add some in an int64");
    static_assert(LowestLsb >= Window::kLowestLsb, "no float has a bit below 2^-149");
    static_assert(Align >= 1 && Align <= 8 && (Align & (Align - 1)) == 0, "a power of two, small beside the window's 30 binades");
    const int biased = static_cast<int>(bits_of(magnitude) >> 23);  // magnitude < 2^(biased - 126)
    int lsb = ((biased - 126 + Align - 1) & -Align) - TopBit;  // rounded up to a multiple of Align (two's complement)
    lsb = lsb < LowestLsb ? LowestLsb : lsb > Window::kHighestLsb ? Window::kHighestLsb : lsb;
    const int top = lsb + TopBit;
    return {.lo = lsb == Window::kLowestLsb ? 0.0f : power_of_two(lsb + 23 + 127),
            .hi = top >= 128 ? float_from_bits(0x7f800000u) : power_of_two(top + 127),  // +Inf: all finite floats
            .scale = double_from_bits(static_cast<std::uint64_t>(1023 - lsb) << 52),
            .lsb = lsb};
}

// bfloat16's window inside a float window of TopBit (the GPU kernel's bfloat16 fast path,
// cuda/primitives/thread_window_sum.cuh): its top 15 binades. A bfloat16 there has 8 significant
// bits, none below 2^(lsb + kShift), so it is an integer below 2^22 of those units; integer() takes
// it with one fused multiply-add, x * 2^-(lsb + kShift) + 1.5 x 2^23 being exact and in
// [2^23, 2^24), where a float's low bits are that integer. A trip's values are judged at once on
// their 16-bit patterns b, by key() of each 32-bit word of two: per lane (b | 0x8000) - 1, which is
// 0x7fff for a zero of either sign and 0x8000 + |b| - 1 otherwise (no lane borrows from the other),
// so the keys' signed minimum checks the nonzero magnitudes against the bottom and their unsigned
// maximum checks them, NaN and Inf included, against the top, and zeros pass both.
template <int TopBit>
struct BfloatWindow {
    static constexpr int kShift = TopBit - 22;
    static constexpr float kMagic = 0x1.8p23f;
    static constexpr std::uint32_t kMagicBits = 0x4b400000u;

    float scale = 0.0f;           // 2^-(lsb + kShift)
    int lowest = 0x7fff;          // the least signed key it takes: before a float window, only zeros
    std::uint32_t highest = 0x10000u;  // above every unsigned key

    SHOOTOUT_EXACT_FN static BfloatWindow below_top_of(const Window& w) {
        const int lsb = w.lsb + kShift;
        const auto lo = static_cast<std::uint32_t>(lsb + 7 + 127) << 7;  // 2^(lsb + 7) as bfloat16
        const std::uint32_t hi = bits_of(w.hi) >> 16;                     // w.hi: a power of two or +Inf
        return {.scale = power_of_two(127 - lsb), .lowest = static_cast<int>(lo) - 1 - 0x8000, .highest = 0x8000u + hi - 1};
    }
    SHOOTOUT_EXACT_FN static std::uint32_t key(std::uint32_t word) { return (word | 0x80008000u) - 0x00010001u; }
    // Whether every value of a trip is inside, from its keys' per-lane signed minimum and unsigned
    // maximum (16x2 each).
    SHOOTOUT_EXACT_FN bool holds(std::uint32_t signed_min, std::uint32_t unsigned_max) const {
        const auto low = static_cast<std::int16_t>(signed_min), high = static_cast<std::int16_t>(signed_min >> 16);
        const std::uint32_t most = (unsigned_max & 0xffffu) > (unsigned_max >> 16) ? unsigned_max & 0xffffu : unsigned_max >> 16;
        return (low < high ? low : high) >= lowest && most < highest;
    }
    // x (a bfloat16 widened to float) as an integer of 2^(lsb + kShift), exactly when holds() took it.
    SHOOTOUT_EXACT_FN std::int32_t integer(float x) const {
#if defined(__CUDA_ARCH__)
        const float placed = fmaf(x, scale, kMagic);
#else
        const float placed = __builtin_fmaf(x, scale, kMagic);
#endif
        return static_cast<std::int32_t>(bits_of(placed) - kMagicBits);
    }
};

}  // namespace shootout::exact
