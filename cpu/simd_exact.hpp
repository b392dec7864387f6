// The exact-sum kernel behind cpu/exact/simd and cpu/exact/parallel, written once for every
// instruction set (like simd_lanes.hpp, included only by simd_avx2.cpp and simd_avx512.cpp).
//
// The input goes in rounds of kRoundFloats (32 KiB, an L1 cache's worth), each read twice:
//   1. the round's largest |x|, streamed from memory (with prefetch), fits the round's fixed-point
//      window (exact/exact_accumulator.hpp) to it: the floats from that one down to 2^-28 of it fall
//      inside;
//   2. from cache, each float inside the window is widened to double and x * 2^-lsb + 1.5 * 2^52 is
//      computed exactly: a double whose bits are those of 1.5 * 2^52 plus the integer x * 2^-lsb
//      (AVX2 has no double-to-int64 conversion; this one is a multiply and an add). Those bits are
//      added into 64-bit integer lanes. Lanes outside the window are zeroed there, so every lane of
//      an accumulator adds one 1.5 * 2^52 per vector, which the fold into the superaccumulator at
//      the end of the round takes off again. The lanes outside the window that are not zero (tiny
//      floats far below the round's largest, NaN, Inf) go one at a time to the superaccumulator.
// Fitting the window to each round keeps the floats of any round with a dynamic range below 2^28
// (uniform, normal, most real data) entirely on the vector path, whatever other rounds hold.
//
// Per 16 floats (AVX-512), pass 2: abs, two compares, a compare with zero, a masked move, an
// extract, two widenings, two FMAs, two 64-bit adds, a mask move and the branch; pass 1: abs and max.
// About 1.2 instructions per float in all (cpu/PERFORMANCE.md has the measurements).
#pragma once

#include <cstddef>
#include <cstdint>

#include "exact_accumulator.hpp"
#include "simd_lanes.hpp"

namespace shootout::simd {

// The window's integers stay below 2^51, where x * 2^-lsb + 1.5 * 2^52 is a double with unit ulp.
inline constexpr int kFixedTopBit = 51;
inline constexpr double kFixedBias = 0x1.8p52;
inline constexpr std::uint64_t kFixedBiasBits = 0x4338000000000000u;  // the bits of 1.5 * 2^52
// 32 KiB: stays in L1 between the two passes. A lane adds at most 8192 / 8 = 2^10 integers below
// 2^51 in a round: its total stays below 2^61.
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

// A vector with lanes outside the window: its first float in the round, and those lanes as bits.
struct Outside {
    std::uint32_t first, lanes;
};

template <class Isa, class Policy>
void accumulate_exact(const float* x, std::size_t n, exact::Sum& sum) {
    using Floats = typename Isa::Floats;
    using Fixed = typename Isa::Fixed;
    constexpr std::size_t lanes = sizeof(Floats) / sizeof(float), fixed_lanes = sizeof(Fixed) / sizeof(std::uint64_t);
    constexpr int accumulators = Policy::exact_accumulators;
    const auto max = [](Floats a, Floats b) { return Isa::max(a, b); };

    for (std::size_t begin = 0; begin < n; begin += kRoundFloats) {
        const float* round = x + begin;
        const std::size_t count = n - begin < kRoundFloats ? n - begin : kRoundFloats;

        Floats largest[accumulators];
        for (auto& l : largest) l = Floats{};
        for_each_vector<lanes, accumulators, Policy::prefetch_bytes>(round, count, Isa::load, Isa::load_first, [&](int a, Floats v) {
            largest[a] = Isa::max(Isa::abs(v), largest[a]);  // a NaN leaves largest[a] as it was
        });
        const exact::Window window = exact::window_for<kFixedTopBit>(horizontal_max<Isa>(tree_sum(largest, max)));
        const Floats lo = Isa::broadcast(window.lo), hi = Isa::broadcast(window.hi);
        const typename Isa::Doubles scale = Isa::broadcast(static_cast<double>(window.scale));

        // Accumulator a's lanes: the window integers of each vector's lower and upper half, plus
        // kFixedBiasBits for each of the additions[a] vectors it took (wrapping; the difference is
        // what counts).
        Fixed lower[accumulators], upper[accumulators];
        std::uint64_t additions[accumulators];
        for (int a = 0; a < accumulators; ++a) lower[a] = upper[a] = Fixed{}, additions[a] = 0;
        // The vectors with lanes outside the window, noted for after the loop: a call here would
        // make the compiler keep the accumulators in memory.
        Outside outside[kRoundFloats / lanes];
        int outside_count = 0;
        std::size_t at = 0;  // the vector's first float
        // Pass 2 also fetches the next round into L2, so that memory streams while it computes.
        const bool next_round_whole = n - begin >= 2 * kRoundFloats;
        for_each_vector<lanes, accumulators, 0>(round, count, Isa::load, Isa::load_first, [&](int a, Floats v) {
            if (next_round_whole) __builtin_prefetch(round + kRoundFloats + at, 0, 2);
            const Floats magnitude = Isa::abs(v);
            const auto inside = Isa::inside(magnitude, lo, hi);
            Isa::add_fixed(lower[a], upper[a], Isa::keep(inside, v), scale);
            ++additions[a];
            if (const unsigned lanes_outside = Isa::outside_nonzero(inside, magnitude)) [[unlikely]]
                outside[outside_count++] = {static_cast<std::uint32_t>(at), lanes_outside};
            at += lanes;
        });
        for (int o = 0; o < outside_count; ++o)
            for (unsigned bits = outside[o].lanes; bits != 0; bits &= bits - 1) sum.add(round[outside[o].first + __builtin_ctz(bits)]);

        for (int a = 0; a < accumulators; ++a) {
            std::uint64_t lane[2 * fixed_lanes];
            Isa::store(lane, lower[a]);
            Isa::store(lane + fixed_lanes, upper[a]);
            for (std::uint64_t value : lane)
                exact::add_fixed(sum.digits, static_cast<std::int64_t>(value - additions[a] * kFixedBiasBits), window.lsb);
        }
        exact::normalize(sum.digits);  // a round adds at most 2 per float and 3 per lane to a digit
    }
}

}  // namespace shootout::simd
