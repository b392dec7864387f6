// The per-range agents behind simd_kernels.hpp, written once for every instruction set.
//
// Isa supplies the primitives (vector types, loads, adds, stores); Policy the tuning, one Loop per
// kernel (independent accumulators, software prefetch) and which adds go to the FMA units. Only simd_avx2.cpp, simd_avx512.cpp and simd_neon.cpp include this,
// each with its own target flags; everything here is a template of Isa or always inlined, so no
// out-of-line copy compiled for one instruction set can serve a caller of another. (SVE's vectors
// have no size at compile time, so no arrays of them and no sizeof: simd_sve.cpp writes the same
// algorithms out with predicates.)
//
// Every kernel:
//   - runs Loop::accumulators independent vector chains over full blocks, so the add latency is hidden,
//   - then takes the rest one vector at a time into accumulator 0, the last vector with a masked load
//     that reads only the remaining elements and fills the other lanes with +0 (no scalar tail, no
//     read past the end; NEON, which has no masked load, copies them into a zeroed vector),
//   - uses unaligned loads throughout: any start address works.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include "cpu/kernels/compensated.hpp"

namespace shootout::simd {

// How one kernel walks its range.
struct Loop {
    int accumulators;                     // independent vector chains
    std::size_t prefetch_bytes = 0;       // software prefetch this far ahead; 0: none
    std::size_t prefetch_from_bytes = 0;  // only in ranges at least this long
};

// Adds v[0..Width) as a balanced tree into v[0]: v[i] += v[i + ceil(Width / 2)], then the same on
// the first half. Unrolled at compile time, so that v stays in registers.
template <int Width, class T, int N, class Add>
[[gnu::always_inline]] inline void fold(T (&v)[N], Add add) {
    if constexpr (Width > 1) {
        constexpr int half = (Width + 1) / 2;
        [&]<int... i>(std::integer_sequence<int, i...>) { ((v[i] = add(v[i], v[i + half])), ...); }(
            std::make_integer_sequence<int, Width / 2>());
        fold<half>(v, add);
    }
}

template <class T, int N, class Add>
[[gnu::always_inline]] inline T tree_sum(T (&v)[N], Add add) {
    fold<N>(v, add);
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

// Applies step(accumulator, vector) over x[0, n) (floats or doubles), L.accumulators vectors at a
// time; the rest one vector at a time into accumulator 0, the last one masked. Load(p) and
// LoadFirst(p, count) read one vector; count < lanes.
//
// With L.prefetch_bytes, a range of at least L.prefetch_from_bytes also prefetches, each block, the
// block that far ahead, as long as that lies inside x. It pays only where a kernel spends several
// instructions per cache line streaming from DRAM, and costs wherever the range is cached: see the
// policies and cpu/PERFORMANCE.md.
template <std::size_t Lanes, Loop L, class T, class Load, class LoadFirst, class Step>
[[gnu::always_inline]] inline void for_each_vector(const T* x, std::size_t n, Load load, LoadFirst load_first,
                                                   Step step) {
    constexpr std::size_t block = Lanes * L.accumulators, line = 64 / sizeof(T);
    auto add_block = [&](std::size_t i) {
#pragma GCC unroll 32
        for (int a = 0; a < L.accumulators; ++a) step(a, load(x + i + a * Lanes));
    };
    std::size_t i = 0;
    if constexpr (L.prefetch_bytes > 0) {
        constexpr std::size_t ahead = L.prefetch_bytes / sizeof(T);
        if (n * sizeof(T) >= L.prefetch_from_bytes)
            for (; i + ahead + block <= n; i += block) {
#pragma GCC unroll 32
                for (std::size_t l = 0; l < block; l += line) __builtin_prefetch(x + i + ahead + l, 0, 3);
                add_block(i);
            }
    }
    for (; i + block <= n; i += block) add_block(i);
    for (; i + Lanes <= n; i += Lanes) step(0, load(x + i));
    if (i < n) step(0, load_first(x + i, n - i));
}

// Plain lanes: L.accumulators vectors of Scalar (float lanes, floats widened into double lanes, or
// double lanes). With Alternate, odd accumulators add through Isa::fma_add (x * 1 + acc: the same
// rounding, the same bits), so that the adds share the add and the FMA units. Each load reads
// Vectors vectors' worth of elements and returns their lane sum (one full-width load of 16-bit
// values widens into two float vectors).
template <class Isa, class Scalar, Loop L, bool Alternate, std::size_t Vectors = 1, class T, class Load, class LoadFirst>
[[gnu::always_inline]] inline Scalar sum_lanes(const T* x, std::size_t n, Load load, LoadFirst load_first) {
    using Vector = decltype(load(x));
    constexpr std::size_t lanes = Vectors * sizeof(Vector) / sizeof(Scalar);
    Vector acc[L.accumulators];
    for (auto& a : acc) a = Vector{};
    for_each_vector<lanes, L>(x, n, load, load_first, [&](int a, Vector v) {
        if constexpr (Alternate) acc[a] = a % 2 ? Isa::fma_add(acc[a], v) : Isa::add(acc[a], v);
        else acc[a] = Isa::add(acc[a], v);
    });
    return horizontal_sum<Isa, Scalar>(tree_sum(acc, [](Vector a, Vector b) { return Isa::add(a, b); }));
}

// The loads, as lambdas: a type of their own each, so they are always inlined (a function pointer
// was not, once the loop grew a prefetching copy). Isa::load(p) of floats, doubles, or float16 and
// bfloat16 widened to floats, by p's type.
template <class Isa>
constexpr auto load = [](const auto* p) { return Isa::load(p); };
template <class Isa>
constexpr auto load_first = [](const auto* p, std::size_t count) { return Isa::load_first(p, count); };

// Float lanes.
template <class Isa, class Policy>
float sum_f32(const float* x, std::size_t n) {
    return sum_lanes<Isa, float, Policy::f32, false>(x, n, load<Isa>, load_first<Isa>);
}

// float16 and bfloat16 values widened into float lanes, by the policy's halves loop: one
// full-width load (a 64-byte line with AVX-512) widened into two float vectors (Isa::load_pair),
// which are added before the running sum, so the loop spends one load and no shuffle a line.
template <class Isa, class Policy, class Half>
    requires(sizeof(Half) == 2)
float sum_f32(const Half* x, std::size_t n) {
    return sum_lanes<Isa, float, Policy::halves, false, 2>(
        x, n,
        [](const Half* p) {
            const auto [first, second] = Isa::load_pair(p);
            return Isa::add(first, second);
        },
        [](const Half* p, std::size_t count) {
            const auto [first, second] = Isa::load_first_pair(p, count);
            return Isa::add(first, second);
        });
}

// The same lanes with the policy's f32_prefetched loop: the read ceiling's second candidate.
template <class Isa, class Policy>
float sum_f32_prefetched(const float* x, std::size_t n) {
    return sum_lanes<Isa, float, Policy::f32_prefetched, false>(x, n, load<Isa>, load_first<Isa>);
}

// Each float widened into a double lane.
template <class Isa, class Policy>
double sum_f64(const float* x, std::size_t n) {
    return sum_lanes<Isa, double, Policy::f64, Policy::f64_alternates_fma>(
        x, n, [](const float* p) { return Isa::load_widened(p); },
        [](const float* p, std::size_t count) { return Isa::load_first_widened(p, count); });
}

// Doubles as they are, in double lanes: one load and one add per vector, as in sum_f32, by the
// policy's doubles loop.
template <class Isa, class Policy>
double sum_f64(const double* x, std::size_t n) {
    return sum_lanes<Isa, double, Policy::doubles, false>(x, n, load<Isa>, load_first<Isa>);
}

// Kahan in every lane of every accumulator: float lanes for floats and the 16-bit types (widened),
// double lanes for doubles. Nothing a lane recovered is dropped (returning the lanes' sums without
// their compensations would lose it, tests/cpu_accuracy_test.cpp shows how much): the accumulators'
// (sum, compensation) pairs are folded into one pair with TwoSum, whose error term is exact, and
// that pair's lanes go into one scalar Neumaier sum.
//
// Guarded: past an overflow or an infinity, a lane's y - (t - sum) is inf - inf; the guard keeps t's
// infinity instead of that NaN. It costs three vector operations of the loop's seven, so the loop
// runs unguarded first: where no running sum leaves the finite range the guard changes nothing,
// and the result is the guarded one bit for bit; where one does, that lane ends as NaN or infinity,
// so does the result, and only then is the range summed again, guarded.
//
// With Policy::kahan_uses_fma, y's add and the compensation's last subtraction run as FMAs (x * 1 + c,
// -(d * 1) + y: one rounding each, the same bits), so that the four operations a vector share the
// add and the FMA units.
template <class Isa, class Policy, bool Guarded, class T>
auto kahan_lanes(const T* x, std::size_t n) {
    using Vector = decltype(Isa::load(x));
    using Scalar = std::conditional_t<std::is_same_v<T, double>, double, float>;
    constexpr Loop loop = Policy::kahan;
    constexpr std::size_t lanes = sizeof(Vector) / sizeof(Scalar);
    Vector sum[loop.accumulators], compensation[loop.accumulators];
    for (int a = 0; a < loop.accumulators; ++a) sum[a] = compensation[a] = Vector{};
    for_each_vector<lanes, loop>(x, n, load<Isa>, load_first<Isa>, [&](int a, Vector v) {
        Vector y, lost;
        if constexpr (Policy::kahan_uses_fma) y = Isa::fma_add(compensation[a], v);
        else y = Isa::add(v, compensation[a]);
        const Vector t = Isa::add(sum[a], y);
        if constexpr (Policy::kahan_uses_fma) lost = Isa::fma_sub(y, Isa::sub(t, sum[a]));
        else lost = Isa::sub(y, Isa::sub(t, sum[a]));
        compensation[a] = Guarded ? Isa::zero_where_not_finite(t, lost) : lost;
        sum[a] = t;
    });
#pragma GCC unroll 32
    for (int a = 1; a < loop.accumulators; ++a) {
        // Knuth's TwoSum: t + error == sum[0] + sum[a] exactly, whatever their magnitudes.
        const Vector t = Isa::add(sum[0], sum[a]);
        const Vector b = Isa::sub(t, sum[0]);
        const Vector error = Isa::add(Isa::sub(sum[0], Isa::sub(t, b)), Isa::sub(sum[a], b));
        const Vector lost = Isa::add(Isa::add(compensation[0], compensation[a]), error);
        compensation[0] = Isa::zero_where_not_finite(t, lost);
        sum[0] = t;
    }
    Scalar lane_sum[lanes], lane_compensation[lanes];
    Isa::store(lane_sum, sum[0]);
    Isa::store(lane_compensation, compensation[0]);
    NeumaierSum<Scalar> total;
    for (std::size_t l = 0; l < lanes; ++l) {
        total.add(lane_sum[l]);
        total.add(lane_compensation[l]);
    }
    return total.result();
}

template <class Isa, class Policy, class T>
auto sum_kahan(const T* x, std::size_t n) {
    const auto unguarded = kahan_lanes<Isa, Policy, false>(x, n);
    return __builtin_isfinite(unguarded) ? unguarded : kahan_lanes<Isa, Policy, true>(x, n);
}

}  // namespace shootout::simd
