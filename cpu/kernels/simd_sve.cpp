// The SVE kernels, vector-length agnostic: one binary runs at every SVE length from 128 to 2048
// bits, with svcntw() float (svcntd() double) lanes per register, read at run time. Compiled with
// -march=armv8-a+sve in aarch64 builds only (cpu/CMakeLists.txt); only called after
// sve_unavailable() said nullopt. Everything here is in an anonymous namespace or always inlined, so
// no SVE code can serve a caller on a CPU without SVE.
//
// The algorithms are simd_lanes.hpp's, written out because SVE's vector types have no compile-time
// size (no arrays of them, no sizeof):
//   - 8 independent vector chains over full blocks of 8 vectors (the add latency hidden), each block
//     prefetching the one 4 KiB ahead, as on x86,
//   - then the rest one vector at a time into accumulator 0 under a whilelt predicate: the last
//     vector's load reads only the remaining elements, the inactive lanes are left as they are (no
//     scalar tail, no read past the end),
//   - the 8 chains added as a tree, then the lanes: FADDV, a pairwise tree fixed by the vector
//     length (so a result depends on it, as on x86 on AVX2 versus AVX-512: Order::lanes); Kahan's
//     lanes go through one Neumaier sum instead.
#include <arm_sve.h>

#include <cstddef>
#include <cstdint>

#include "cpu/kernels/compensated.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout::simd {
namespace {

constexpr std::size_t kPrefetchBytes = 4096;

// Prefetches the block of `block` elements kPrefetchBytes past x[i], when it lies inside x[0, n).
template <class T>
[[gnu::always_inline]] inline void prefetch_ahead(const T* x, std::size_t i, std::size_t block, std::size_t n) {
    constexpr std::size_t ahead = kPrefetchBytes / sizeof(T), line = 64 / sizeof(T);
    if (i + ahead + block <= n)
        for (std::size_t l = 0; l < block; l += line) __builtin_prefetch(x + i + ahead + l, 0, 3);
}

// svcntd() floats from p, each widened into a double lane; only the lanes active in pg are read.
// The 32-bit words go zero-extended into 64-bit containers, where FCVT reads the low (even) float.
[[gnu::always_inline]] inline svfloat64_t load_widened(svbool_t pg, const float* p) {
    const svuint64_t words = svld1uw_u64(pg, reinterpret_cast<const std::uint32_t*>(p));
    return svcvt_f64_f32_x(pg, svreinterpret_f32_u64(words));
}

// svcntw() 16-bit values from p into 32-bit containers, zero-extended; only the lanes active in pg
// are read. float16 is then converted by FCVT, which reads the low (even) half of each container;
// bfloat16 shifted into the container's upper half, where it is a float.
[[gnu::always_inline]] inline svuint32_t load_halves(svbool_t pg, const void* p) {
    return svld1uh_u32(pg, static_cast<const std::uint16_t*>(p));
}

// What differs between the float and the double chains: the lanes a vector holds, its predicates,
// and how elements are loaded into it (floats as they are, 16-bit values widened into float lanes,
// floats widened into double lanes, doubles as they are).
struct FloatLanes {
    using Vector = svfloat32_t;
    using Scalar = float;
    static std::size_t count() { return svcntw(); }
    static svbool_t all() { return svptrue_b32(); }
    static svbool_t first(std::size_t i, std::size_t n) { return svwhilelt_b32_u64(i, n); }
    static Vector zero() { return svdup_n_f32(0); }
    static Vector load(svbool_t pg, const float* p) { return svld1_f32(pg, p); }
    static Vector load(svbool_t pg, const Float16* p) { return svcvt_f32_f16_x(pg, svreinterpret_f16_u32(load_halves(pg, p))); }
    static Vector load(svbool_t pg, const BFloat16* p) { return svreinterpret_f32_u32(svlsl_n_u32_x(pg, load_halves(pg, p), 16)); }
};

struct DoubleLanes {
    using Vector = svfloat64_t;
    using Scalar = double;
    static std::size_t count() { return svcntd(); }
    static svbool_t all() { return svptrue_b64(); }
    static svbool_t first(std::size_t i, std::size_t n) { return svwhilelt_b64_u64(i, n); }
    static Vector zero() { return svdup_n_f64(0); }
    static Vector load(svbool_t pg, const float* p) { return load_widened(pg, p); }
    static Vector load(svbool_t pg, const double* p) { return svld1_f64(pg, p); }
};

// One Kahan step in the lanes active in pg; the inactive lanes keep their sum and compensation.
// Compensation is what rounding took off the sum (compensated.hpp): sum + compensation ~ total.
template <class Vector>
[[gnu::always_inline]] inline void kahan_step(svbool_t pg, Vector& sum, Vector& compensation, Vector v) {
    const Vector y = svadd_x(pg, v, compensation);
    const Vector t = svadd_x(pg, sum, y);
    // Past an overflow or an infinity, y - (t - sum) is inf - inf: keep t's infinity instead, with a
    // zero compensation where |t| is not below infinity (NaN included).
    const svbool_t finite = svaclt(pg, t, __builtin_inf());
    compensation = svsel(pg, svsub_z(finite, y, svsub_x(pg, t, sum)), compensation);
    sum = svsel(pg, t, sum);
}

// Every lane's sum, then its compensation, into total: lane by lane, as the x86 kernels do.
template <class Lanes>
[[gnu::always_inline]] inline void add_lanes(NeumaierSum<typename Lanes::Scalar>& total, typename Lanes::Vector sum,
                                             typename Lanes::Vector compensation) {
    constexpr std::size_t kMaxLanes = 2048 / 32;  // SVE's longest vector, in floats
    typename Lanes::Scalar lane_sum[kMaxLanes], lane_compensation[kMaxLanes];
    svst1(Lanes::all(), lane_sum, sum);
    svst1(Lanes::all(), lane_compensation, compensation);
    for (std::size_t l = 0, lanes = Lanes::count(); l < lanes; ++l) {
        total.add(lane_sum[l]);
        total.add(lane_compensation[l]);
    }
}

// 8 chains over full blocks, the rest into chain 0 under a whilelt predicate, then the tree.
template <class Lanes, class T>
[[gnu::always_inline]] inline auto sum_chains(const T* x, std::size_t n) {
    const svbool_t all = Lanes::all();
    const std::size_t lanes = Lanes::count(), block = 8 * lanes;
    typename Lanes::Vector a0 = Lanes::zero(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
    std::size_t i = 0;
    for (; i + block <= n; i += block) {
        prefetch_ahead(x, i, block, n);
        const T* p = x + i;
        a0 = svadd_x(all, a0, Lanes::load(all, p));
        a1 = svadd_x(all, a1, Lanes::load(all, p + lanes));
        a2 = svadd_x(all, a2, Lanes::load(all, p + 2 * lanes));
        a3 = svadd_x(all, a3, Lanes::load(all, p + 3 * lanes));
        a4 = svadd_x(all, a4, Lanes::load(all, p + 4 * lanes));
        a5 = svadd_x(all, a5, Lanes::load(all, p + 5 * lanes));
        a6 = svadd_x(all, a6, Lanes::load(all, p + 6 * lanes));
        a7 = svadd_x(all, a7, Lanes::load(all, p + 7 * lanes));
    }
    for (; i < n; i += lanes) {
        const svbool_t active = Lanes::first(i, n);
        a0 = svadd_m(active, a0, Lanes::load(active, x + i));
    }
    a0 = svadd_x(all, a0, a4), a1 = svadd_x(all, a1, a5), a2 = svadd_x(all, a2, a6), a3 = svadd_x(all, a3, a7);
    a0 = svadd_x(all, a0, a2), a1 = svadd_x(all, a1, a3);
    return svaddv(all, svadd_x(all, a0, a1));
}

// Kahan in every lane of every accumulator; every lane's (sum, compensation) pair then goes into one
// scalar Neumaier sum, as in simd_lanes.hpp's sum_kahan. Float lanes for floats and the 16-bit
// types, double lanes for doubles.
template <class Lanes, class T>
typename Lanes::Scalar sum_kahan(const T* x, std::size_t n) {
    const svbool_t all = Lanes::all();
    const std::size_t lanes = Lanes::count(), block = 8 * lanes;
    typename Lanes::Vector s0 = Lanes::zero(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    typename Lanes::Vector c0 = s0, c1 = s0, c2 = s0, c3 = s0, c4 = s0, c5 = s0, c6 = s0, c7 = s0;
    std::size_t i = 0;
    for (; i + block <= n; i += block) {
        prefetch_ahead(x, i, block, n);
        const T* p = x + i;
        kahan_step(all, s0, c0, Lanes::load(all, p));
        kahan_step(all, s1, c1, Lanes::load(all, p + lanes));
        kahan_step(all, s2, c2, Lanes::load(all, p + 2 * lanes));
        kahan_step(all, s3, c3, Lanes::load(all, p + 3 * lanes));
        kahan_step(all, s4, c4, Lanes::load(all, p + 4 * lanes));
        kahan_step(all, s5, c5, Lanes::load(all, p + 5 * lanes));
        kahan_step(all, s6, c6, Lanes::load(all, p + 6 * lanes));
        kahan_step(all, s7, c7, Lanes::load(all, p + 7 * lanes));
    }
    for (; i < n; i += lanes) {
        const svbool_t active = Lanes::first(i, n);
        kahan_step(active, s0, c0, Lanes::load(active, x + i));
    }
    NeumaierSum<typename Lanes::Scalar> total;
    add_lanes<Lanes>(total, s0, c0), add_lanes<Lanes>(total, s1, c1), add_lanes<Lanes>(total, s2, c2), add_lanes<Lanes>(total, s3, c3);
    add_lanes<Lanes>(total, s4, c4), add_lanes<Lanes>(total, s5, c5), add_lanes<Lanes>(total, s6, c6), add_lanes<Lanes>(total, s7, c7);
    return total.result();
}

}  // namespace

std::size_t sve_vector_bits() { return svcntb() * 8; }

float sum_sve_f32(const float* x, std::size_t n) { return sum_chains<FloatLanes>(x, n); }
float sum_sve_f32(const Float16* x, std::size_t n) { return sum_chains<FloatLanes>(x, n); }
float sum_sve_f32(const BFloat16* x, std::size_t n) { return sum_chains<FloatLanes>(x, n); }

double sum_sve_f64(const float* x, std::size_t n) { return sum_chains<DoubleLanes>(x, n); }

double sum_sve_f64(const double* x, std::size_t n) { return sum_chains<DoubleLanes>(x, n); }

float sum_sve_kahan(const float* x, std::size_t n) { return sum_kahan<FloatLanes>(x, n); }
float sum_sve_kahan(const Float16* x, std::size_t n) { return sum_kahan<FloatLanes>(x, n); }
float sum_sve_kahan(const BFloat16* x, std::size_t n) { return sum_kahan<FloatLanes>(x, n); }
double sum_sve_kahan(const double* x, std::size_t n) { return sum_kahan<DoubleLanes>(x, n); }

}  // namespace shootout::simd
