// The per-range agents behind simd_kernels.hpp, written once for every instruction set.
//
// Isa supplies the primitives (vector types, loads, adds, stores); Policy the tuning
// (independent accumulators per kernel, software prefetch distance). Only simd_avx2.cpp,
// simd_avx512.cpp and simd_neon.cpp include this, each with its own target flags; everything here is
// a template of Isa or always inlined, so no out-of-line copy compiled for one instruction set can
// serve a caller of another. (SVE's vectors have no size at compile time, so no arrays of them and
// no sizeof: simd_sve.cpp writes the same algorithms out with predicates.)
//
// Every kernel:
//   - runs Accumulators independent vector chains over full blocks, so the add latency is hidden,
//   - then takes the rest one vector at a time into accumulator 0, the last vector with a masked load
//     that reads only the remaining floats and fills the other lanes with +0 (no scalar tail, no read
//     past the end; NEON, which has no masked load, copies them into a zeroed vector),
//   - uses unaligned loads throughout: any start address works.
#pragma once

#include <cstddef>

#include "compensated.hpp"

namespace shootout::simd {

// Adds v[0..N) as a balanced tree, in place; returns v[0]. N a power of two.
template <class T, int N, class Add>
[[gnu::always_inline]] inline T tree_sum(T (&v)[N], Add add) {
    static_assert(N > 0 && (N & (N - 1)) == 0, "a power of two");
    for (int width = N / 2; width > 0; width /= 2)
        for (int i = 0; i < width; ++i) v[i] = add(v[i], v[i + width]);
    return v[0];
}

// Lane values of a vector, summed as a balanced tree.
template <class Isa, class Scalar, class Vector>
[[gnu::always_inline]] inline Scalar horizontal_sum(Vector v) {
    constexpr int lanes = sizeof(Vector) / sizeof(Scalar);
    Scalar lane[lanes];
    Isa::store(lane, v);
    return tree_sum(lane, [](Scalar a, Scalar b) { return a + b; });
}

// Applies step(accumulator, vector) over x[0, n), Accumulators vectors at a time; the rest one
// vector at a time into accumulator 0, the last one masked. Load(p) and LoadFirst(p, count) read one
// vector; count < lanes.
//
// Each block also prefetches the block PrefetchBytes ahead. Without it one core keeps too few cache
// lines in flight once a kernel spends several instructions per line (widening, Kahan): streaming
// from DRAM, the f64 and Kahan kernels fell 10-20% behind the plain float kernel; with it all three
// match (cpu/PERFORMANCE.md). Only addresses inside x are prefetched; PrefetchBytes = 0, for data
// already in cache, prefetches nothing.
template <std::size_t Lanes, int Accumulators, std::size_t PrefetchBytes, class Load, class LoadFirst, class Step>
[[gnu::always_inline]] inline void for_each_vector(const float* x, std::size_t n, Load load, LoadFirst load_first,
                                                   Step step) {
    constexpr std::size_t block = Lanes * Accumulators, ahead = PrefetchBytes / sizeof(float), line = 64 / sizeof(float);
    std::size_t i = 0;
    for (; i + block <= n; i += block) {
        if (PrefetchBytes > 0 && i + ahead + block <= n)
            for (std::size_t l = 0; l < block; l += line) __builtin_prefetch(x + i + ahead + l, 0, 3);
        for (int a = 0; a < Accumulators; ++a) step(a, load(x + i + a * Lanes));
    }
    for (; i + Lanes <= n; i += Lanes) step(0, load(x + i));
    if (i < n) step(0, load_first(x + i, n - i));
}

// Plain lanes: Accumulators vectors of Scalar (float lanes, or floats widened into double lanes).
template <class Isa, class Scalar, int Accumulators, std::size_t PrefetchBytes, class Load, class LoadFirst>
[[gnu::always_inline]] inline Scalar sum_lanes(const float* x, std::size_t n, Load load, LoadFirst load_first) {
    using Vector = decltype(load(x));
    constexpr std::size_t lanes = sizeof(Vector) / sizeof(Scalar);
    Vector acc[Accumulators];
    for (auto& a : acc) a = Vector{};
    for_each_vector<lanes, Accumulators, PrefetchBytes>(x, n, load, load_first,
                                                        [&](int a, Vector v) { acc[a] = Isa::add(acc[a], v); });
    return horizontal_sum<Isa, Scalar>(tree_sum(acc, [](Vector a, Vector b) { return Isa::add(a, b); }));
}

template <class Isa, class Policy>
float sum_f32(const float* x, std::size_t n) {
    return sum_lanes<Isa, float, Policy::f32_accumulators, Policy::prefetch_bytes>(x, n, Isa::load, Isa::load_first);
}

template <class Isa, class Policy>
double sum_f64(const float* x, std::size_t n) {
    return sum_lanes<Isa, double, Policy::f64_accumulators, Policy::prefetch_bytes>(x, n, Isa::load_widened,
                                                                                    Isa::load_first_widened);
}

// Kahan in every lane of every accumulator. The seed article's version stopped one vector early and
// returned the lanes' sums without their compensations; here every lane's (sum, compensation) pair
// goes into one scalar Neumaier sum, so nothing a lane recovered is dropped at the end.
template <class Isa, class Policy>
float sum_kahan(const float* x, std::size_t n) {
    using Floats = typename Isa::Floats;
    constexpr int accumulators = Policy::kahan_accumulators;
    constexpr std::size_t lanes = sizeof(Floats) / sizeof(float);
    Floats sum[accumulators], compensation[accumulators];
    for (int a = 0; a < accumulators; ++a) sum[a] = compensation[a] = Floats{};
    for_each_vector<lanes, accumulators, Policy::prefetch_bytes>(x, n, Isa::load, Isa::load_first, [&](int a, Floats v) {
        const Floats y = Isa::add(v, compensation[a]);
        const Floats t = Isa::add(sum[a], y);
        // Past an overflow or an infinity, y - (t - sum) is inf - inf: keep t's infinity instead.
        compensation[a] = Isa::zero_where_not_finite(t, Isa::sub(y, Isa::sub(t, sum[a])));
        sum[a] = t;
    });
    float lane_sum[lanes], lane_compensation[lanes];
    NeumaierSum<float> total;
    for (int a = 0; a < accumulators; ++a) {
        Isa::store(lane_sum, sum[a]);
        Isa::store(lane_compensation, compensation[a]);
        for (std::size_t l = 0; l < lanes; ++l) {
            total.add(lane_sum[l]);
            total.add(lane_compensation[l]);
        }
    }
    return total.result();
}

}  // namespace shootout::simd
