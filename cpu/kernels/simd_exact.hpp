// The exact-sum kernel behind cpu/exact/simd and cpu/exact/parallel, written once for every
// instruction set (like simd_lanes.hpp, included only by simd_avx2.cpp and simd_avx512.cpp).
//
// The input goes in rounds of kRoundFloats (32 KiB, an L1 cache's worth). A round is added in levels,
// each reading its floats twice:
//   1. their largest |x| fits the level's fixed-point window (exact/exact_accumulator.hpp) to them:
//      the floats from that one down to 2^-28 of it fall inside; the smallest nonzero |x| says
//      whether all of them do;
//   2. each float inside is widened to double and x * 2^-lsb + 1.5 * 2^52 is computed exactly: a
//      double whose bits are those of 1.5 * 2^52 plus the integer x * 2^-lsb (AVX2 has no
//      double-to-int64 conversion; this one is a multiply and an add). Those bits are added into
//      64-bit integer lanes. Lanes outside the window are zeroed there, so every lane of an
//      accumulator adds one 1.5 * 2^52 per vector, which the fold into the superaccumulator at the
//      end of the level takes off again. The finite floats outside the window are packed into a
//      buffer, the next level's input; NaN and Inf go to the superaccumulator's flags.
// Level 0 reads the round from memory (prefetching, and in step 2 fetching the next round into L2);
// later levels read the buffer from L1. Every level takes at least its largest float, and the
// lowest window takes every float below 2^-98, so a round needs at most 10 levels (277 binades of
// floats / 28 per window). Data whose rounds span less than 28 binades (uniform, normal, most real
// data) take one level; ill:1e16 and cancel two; wide about ten, on a shrinking buffer.
//
// Per 16 floats (AVX-512), step 1: abs, an unsigned max and min of the bits, a subtraction. Step 2
// where every float is inside: an extract, two widenings, two FMAs, two 64-bit adds; elsewhere also
// abs, two compares, a masked move, a mask test and its branch. About 1.3 instructions per float
// per level, 0.8 of them in step 2 (cpu/PERFORMANCE.md has the measurements).
//
// float16 and bfloat16 rounds take level 0 in int32 lanes (add_half_level): step 1 on their 16-bit
// patterns; step 2 widens each value to a float as it is loaded (Isa::load) and converts x * 2^-lsb,
// an integer below 2^24 (2^23 with AVX2): a window of the top 14 binades for float16 (AVX-512: every
// float16 below 1 at once, its smallest subnormal being 2^-24) and 17 for bfloat16 (13 and 16 with
// AVX2). A multiply, a conversion and a 32-bit add per vector. The values below it go to the float
// levels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "api/float16.hpp"
#include "exact/exact_accumulator.hpp"
#include "cpu/kernels/simd_lanes.hpp"

namespace shootout::simd {

// The window's integers stay below 2^51, where x * 2^-lsb + 1.5 * 2^52 is a double with unit ulp.
inline constexpr int kFixedTopBit = 51;
inline constexpr double kFixedBias = 0x1.8p52;
inline constexpr std::uint64_t kFixedBiasBits = 0x4338000000000000u;  // the bits of 1.5 * 2^52
// 32 KiB: stays in L1 between the two steps. A level's integers, below 2^51 each, summed over every
// accumulator lane by lane: at most 8192 / 4 = 2^11 a lane (AVX2's 4 int64 lanes; 2^10 with
// AVX-512's 8), so a lane's total stays below 2^62, inside an int64.
inline constexpr std::size_t kRoundFloats = 8192;

// No std:: algorithms in this file: an out-of-line copy of one, compiled here for AVX-512, could be
// the one the linker keeps for every caller (see compensated.hpp).
template <class Isa, class Floats>
[[gnu::always_inline]] inline float horizontal_max(Floats v) {
    constexpr int lanes = sizeof(Floats) / sizeof(float);
    float lane[lanes];
    Isa::store(lane, v);
    return tree_sum(lane, [](float a, float b) { return a > b ? a : b; });
}

// Step 1's range of x[0, n): the bits of the largest magnitude and of the smallest nonzero one, as
// unsigned integers, whose order is the magnitudes' (NaN and Inf above every finite one).
struct MagnitudeRange {
    std::uint32_t largest, smallest_nonzero;  // smallest_nonzero: 0xffffffff when every x is 0
};

// Step 1 reads magnitudes as bit patterns in unsigned lanes: floats as their 32 bits; float16 and
// bfloat16 as their own 16 bits, whose order is their magnitudes' too: twice the values a vector and
// no widening (abs, max, subtract and min a vector, against two widening operations more for half
// as many values).
template <class Isa, class T>
struct MagnitudeLanes {
    static constexpr bool kPatterns = !std::is_same_v<T, float>;  // its own 16 bits
    using Lane = std::conditional_t<kPatterns, std::uint16_t, std::uint32_t>;
    // A lane's pattern as a float's bits (bfloat16's: a float's upper half).
    static std::uint32_t float_bits(Lane bits) {
        if constexpr (std::is_same_v<T, Float16>) return exact::bits_of(static_cast<float>(Float16::from_bits(bits)));
        else return static_cast<std::uint32_t>(bits) << (kPatterns ? 16 : 0);
    }
    static auto load(const T* p) {
        if constexpr (kPatterns) return Isa::magnitude_bits16(Isa::load_bits(p));
        else return Isa::magnitude_bits(Isa::load(p));
    }
    static auto load_first(const T* p, std::size_t count) {
        if constexpr (kPatterns) return Isa::magnitude_bits16(Isa::load_first_bits(p, count));
        else return Isa::magnitude_bits(Isa::load_first(p, count));
    }
    template <class Fixed>
    static Fixed max(Fixed a, Fixed b) {
        if constexpr (kPatterns) return Isa::max_u16(a, b);
        else return Isa::max_u32(a, b);
    }
    template <class Fixed>
    static Fixed min(Fixed a, Fixed b) {
        if constexpr (kPatterns) return Isa::min_u16(a, b);
        else return Isa::min_u32(a, b);
    }
    template <class Fixed>
    static Fixed minus_one(Fixed v) {
        if constexpr (kPatterns) return Isa::minus_one16(v);
        else return Isa::minus_one(v);
    }
};

template <class Isa, Loop L, class T>
[[gnu::always_inline]] inline MagnitudeRange magnitude_range(const T* x, std::size_t n) {
    using Fixed = typename Isa::Fixed;
    using M = MagnitudeLanes<Isa, T>;
    using Lane = typename M::Lane;
    constexpr std::size_t lanes = sizeof(Fixed) / sizeof(Lane);
    // below[a] keeps bits - 1, so that a zero wraps to the top and is never the smallest.
    Fixed largest[L.accumulators], below[L.accumulators];
    for (int a = 0; a < L.accumulators; ++a) largest[a] = Fixed{}, below[a] = M::minus_one(Fixed{});
    for_each_vector<lanes, L>(
        x, n, [](const T* p) { return M::load(p); }, [](const T* p, std::size_t count) { return M::load_first(p, count); },
        [&](int a, Fixed bits) {
            largest[a] = M::max(largest[a], bits);
            below[a] = M::min(below[a], M::minus_one(bits));
        });
    Lane top[lanes], bottom[lanes];
    Isa::store(top, tree_sum(largest, [](Fixed a, Fixed b) { return M::max(a, b); }));
    Isa::store(bottom, tree_sum(below, [](Fixed a, Fixed b) { return M::min(a, b); }));
    constexpr Lane none = static_cast<Lane>(~Lane{0});
    Lane most = 0, least = none;
    for (std::size_t l = 0; l < lanes; ++l) {
        most = top[l] > most ? top[l] : most;
        least = bottom[l] < least ? bottom[l] : least;
    }
    return {M::float_bits(most), least == none ? 0xffffffffu : M::float_bits(static_cast<Lane>(least + 1u))};
}

// Adds the accumulators' lanes to `sum`'s digits as integers of 2^lsb: each lane less the
// kFixedBiasBits of every vector added to it, `vectors` of them over all accumulators (each adds one
// to a lower and one to an upper lane). Every accumulator's lanes are added lane by lane first, so
// that fixed_lanes integers, not 2 * accumulators * fixed_lanes, go into the digits.
template <class Isa, int Accumulators, class Fixed = typename Isa::Fixed>
[[gnu::always_inline]] inline void add_to_digits(const Fixed (&lower)[Accumulators], const Fixed (&upper)[Accumulators],
                                                 std::uint64_t vectors, int lsb, exact::Sum<float>& sum) {
    constexpr std::size_t fixed_lanes = sizeof(Fixed) / sizeof(std::uint64_t);
    Fixed total = Isa::add(lower[0], upper[0]);
    for (int a = 1; a < Accumulators; ++a) total = Isa::add(total, Isa::add(lower[a], upper[a]));
    const std::uint64_t biases = 2 * vectors;
    std::uint64_t lane[fixed_lanes];
    Isa::store(lane, total);
    for (std::uint64_t value : lane) exact::add_fixed(sum.digits, static_cast<std::int64_t>(value - biases * kFixedBiasBits), lsb);
}

// Step 1 and the window fitted to its range: to the largest finite value, found by one more read
// where the largest magnitude is a NaN or an Inf.
struct FittedWindow {
    MagnitudeRange range;
    bool finite;  // every value
    float largest_finite;
    exact::Window window;
};

template <class Isa, Loop L, class T>
[[gnu::always_inline]] inline FittedWindow fit_window(const T* x, std::size_t n) {
    using Floats = typename Isa::Floats;
    constexpr std::size_t lanes = sizeof(Floats) / sizeof(float);
    constexpr int accumulators = L.accumulators;
    constexpr Loop plain{.accumulators = L.accumulators};

    const MagnitudeRange range = magnitude_range<Isa, L>(x, n);
    float largest_finite = exact::float_from_bits(range.largest);
    const bool finite = range.largest < exact::bits_of(__builtin_inff());
    if (!finite) {  // a NaN or an Inf: the window is fitted to the largest of the others
        Floats largest[accumulators];
        for (auto& l : largest) l = Floats{};
        for_each_vector<lanes, plain>(x, n, load<Isa>, load_first<Isa>, [&](int a, Floats v) {
            largest[a] = Isa::max(Isa::abs(v), largest[a]);  // a NaN leaves largest[a] as it was
        });
        const auto max = [](Floats a, Floats b) { return Isa::max(a, b); };
        largest_finite = horizontal_max<Isa>(tree_sum(largest, max));
    }
    return {range, finite, largest_finite, exact::window_for<kFixedTopBit>(largest_finite)};
}

// The nonzero lanes of v outside its window (`inside`): NaN and Inf to `sum`'s flags, the others
// packed at `outside` (room for a vector); returns how many were packed.
template <class Isa, class Inside>
[[gnu::always_inline]] inline std::size_t take_outside(typename Isa::Floats v, typename Isa::Floats magnitude, Inside inside,
                                                       float* outside, exact::Sum<float>& sum) {
    constexpr std::size_t lanes = sizeof(typename Isa::Floats) / sizeof(float);
    unsigned lanes_outside = Isa::outside_nonzero(inside, magnitude);
    if (const unsigned special = lanes_outside & Isa::not_finite(magnitude)) [[unlikely]] {
        float lane[lanes];
        Isa::store(lane, v);
        for (unsigned bits = special; bits != 0; bits &= bits - 1) sum.add(lane[__builtin_ctz(bits)]);
        lanes_outside &= ~special;
    }
    return Isa::append(outside, v, lanes_outside);
}

// Step 2 of a level: each vector v of x[0, n) goes to add(a, v) (a: its accumulator), whole where
// every nonzero value is known to lie in the window [lo, hi); elsewhere with the lanes outside
// zeroed, those taken by take_outside() into `outside`, whose count it returns. With `next` set,
// fetches the next round into L2 on the way.
template <class Isa, Loop L, class T, class Add>
[[gnu::always_inline]] inline std::size_t add_in_window(const T* x, std::size_t n, bool every_one_inside, typename Isa::Floats lo,
                                                        typename Isa::Floats hi, Add add, float* outside, exact::Sum<float>& sum,
                                                        const T* next) {
    using Floats = typename Isa::Floats;
    constexpr std::size_t lanes = sizeof(Floats) / sizeof(float);
    constexpr Loop plain{.accumulators = L.accumulators};
    std::size_t at = 0, outside_count = 0;
    if (every_one_inside) {
        for_each_vector<lanes, plain>(x, n, load<Isa>, load_first<Isa>, [&](int a, Floats v) {
            if (next) __builtin_prefetch(next + at, 0, 2);
            at += lanes;
            add(a, v);
        });
    } else {
        for_each_vector<lanes, plain>(x, n, load<Isa>, load_first<Isa>, [&](int a, Floats v) {
            if (next) __builtin_prefetch(next + at, 0, 2);
            at += lanes;
            const Floats magnitude = Isa::abs(v);
            const auto inside = Isa::inside(magnitude, lo, hi);
            add(a, Isa::keep(inside, v));
            // zeros are outside all but the lowest window, and add nothing
            if (!Isa::all(inside)) [[unlikely]] outside_count += take_outside<Isa>(v, magnitude, inside, outside + outside_count, sum);
        });
    }
    return outside_count;
}

// One level: adds the floats of x[0, n) inside the window fitted to them to `sum`, and their NaN
// and Inf to its flags; packs the others into `outside` (room for n + one vector) and returns how
// many. With `next` set (level 0), also fetches next[0, kRoundFloats) into L2. L: level 0's loop is
// the policy's exact Loop (prefetching); later levels read L1 and prefetch nothing.
//
// Where every float is finite and every nonzero one inside the window (uniform, normal, most real
// data: all within 28 binades), step 2 adds them all without looking at any (a zero adds nothing):
// one check per level, on step 1's range, instead of one per vector, and 7 vector operations per 16
// floats in step 2 instead of 12.
template <class Isa, Loop L, class T>
[[gnu::always_inline]] inline std::size_t add_level(const T* x, std::size_t n, float* outside, exact::Sum<float>& sum,
                                                     const T* next) {
    using Floats = typename Isa::Floats;
    using Fixed = typename Isa::Fixed;
    constexpr int accumulators = L.accumulators;

    const auto [range, finite, largest_finite, window] = fit_window<Isa, L>(x, n);
    const Floats lo = Isa::broadcast(window.lo), hi = Isa::broadcast(window.hi);
    const typename Isa::Doubles scale = Isa::broadcast(window.scale);

    // Accumulator a's lanes: the window integers of each vector's lower and upper half, plus
    // kFixedBiasBits for each vector it took (wrapping; the difference is what counts).
    Fixed lower[accumulators], upper[accumulators];
    for (int a = 0; a < accumulators; ++a) lower[a] = upper[a] = Fixed{};
    const std::size_t outside_count = add_in_window<Isa, L>(
        x, n, finite && range.smallest_nonzero >= exact::bits_of(window.lo), lo, hi,
        [&](int a, Floats v) { Isa::add_fixed(lower[a], upper[a], v, scale); }, outside, sum, next);

    constexpr std::size_t lanes = sizeof(Floats) / sizeof(float);
    add_to_digits<Isa>(lower, upper, (n + lanes - 1) / lanes, window.lsb, sum);  // for_each_vector's vectors
    return outside_count;
}

// The most bits a 16-bit value's integer may take in an int32 lane that adds up to `additions` of
// them: a window of that many bits above its lsb holds significands of T's bits shifted at most
// (bits - significand) places, each at most 2^bits - 2^(bits - significand). At most 24: a float
// holds the integer exactly.
template <class T>
constexpr int half_window_bits(std::int64_t additions) {
    int bits = 24;
    while (additions * ((std::int64_t{1} << bits) - (std::int64_t{1} << (bits - T::kSignificandBits))) >= (std::int64_t{1} << 31)) --bits;
    return bits;
}

// Level 0 of float16 and bfloat16 input: add_level, but in int32 lanes: each value inside a window
// of half_window_bits above its lsb is the integer x * 2^-lsb, one multiply and one conversion,
// added with a 32-bit add (against an extract, two widenings, two FMAs and two 64-bit adds). The
// window's top is the largest finite value's binade, its lsb that many bits below but no lower than
// T's smallest subnormal (2^-24 for float16: every float16 below 2^(bits - 24) fits one window) or
// 2^-127 (the scale, 2^-lsb, is a float). Values with bits below the lsb go to `outside`, for the
// float levels.
template <class Isa, Loop L, class T>
[[gnu::always_inline]] inline std::size_t add_half_level(const T* x, std::size_t n, float* outside, exact::Sum<float>& sum,
                                                         const T* next) {
    using Floats = typename Isa::Floats;
    using Fixed = typename Isa::Fixed;
    constexpr std::size_t lanes = sizeof(Floats) / sizeof(float);
    constexpr int accumulators = L.accumulators;
    // Accumulator 0 takes up to `accumulators` vectors more than the others (for_each_vector's tail).
    constexpr int bits = half_window_bits<T>(static_cast<std::int64_t>(kRoundFloats / (lanes * accumulators) + accumulators));
    constexpr int significand = T::kSignificandBits;
    constexpr int tiniest = 2 - (1 << (T::kExponentBits - 1)) - (significand - 1);  // T's smallest subnormal: 2^tiniest
    constexpr int lowest_lsb = tiniest > -127 ? tiniest : -127;

    const FittedWindow fitted = fit_window<Isa, L>(x, n);
    const int top = static_cast<int>(exact::bits_of(fitted.largest_finite) >> 23) - 126;  // largest finite < 2^top
    const int lsb = top - bits > lowest_lsb ? top - bits : lowest_lsb;
    // Values of T from 2^(lsb + significand - 1) up have no bit below 2^lsb; at the smallest
    // subnormal's lsb none has.
    const float lowest = lsb <= tiniest ? 0.0f : exact::power_of_two(lsb + significand - 1 + 127);
    const Floats lo = Isa::broadcast(lowest), hi = Isa::broadcast(exact::power_of_two(top + 127));  // 2^128: +Inf
    const Floats scale = Isa::broadcast(exact::power_of_two(127 - lsb));

    Fixed acc[accumulators];
    for (auto& a : acc) a = Fixed{};
    const std::size_t outside_count = add_in_window<Isa, L>(
        x, n, fitted.finite && fitted.range.smallest_nonzero >= exact::bits_of(lowest), lo, hi,
        [&](int a, Floats v) { Isa::add_integers(acc[a], v, scale); }, outside, sum, next);

    std::int64_t total = 0;
    for (const Fixed& a : acc) {
        std::uint32_t lane[lanes];
        Isa::store(lane, a);
        for (std::uint32_t value : lane) total += static_cast<std::int32_t>(value);
    }
    exact::add_fixed(sum.digits, total, lsb);
    return outside_count;
}

// Adds x[0, n) (floats, or float16 or bfloat16 values) to `sum` in rounds of levels; leaves its
// digits normalized.
template <class Isa, class Policy, class T>
void accumulate_exact(const T* x, std::size_t n, exact::Sum<float>& sum) {
    constexpr std::size_t lanes = sizeof(typename Isa::Floats) / sizeof(float);
    float buffer[2][kRoundFloats + lanes];  // levels 1, 2, ... read one and pack into the other
    for (std::size_t begin = 0; begin < n; begin += kRoundFloats) {
        const std::size_t count = n - begin < kRoundFloats ? n - begin : kRoundFloats;
        const T* next = n - begin >= 2 * kRoundFloats ? x + begin + kRoundFloats : nullptr;
        std::size_t left;
        if constexpr (std::is_same_v<T, float>) left = add_level<Isa, Policy::exact>(x + begin, count, buffer[0], sum, next);
        else left = add_half_level<Isa, Policy::exact_halves>(x + begin, count, buffer[0], sum, next);
        for (int level = 1; left > 0; ++level)
            left = add_level<Isa, Loop{.accumulators = Policy::exact.accumulators}>(buffer[(level - 1) % 2], left, buffer[level % 2], sum,
                                                                                   static_cast<const float*>(nullptr));
        exact::normalize(sum.digits);  // a round adds at most 3 per lane and level to a digit
    }
}

}  // namespace shootout::simd
