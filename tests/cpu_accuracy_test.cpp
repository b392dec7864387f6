// The CPU backends' accuracy claims, each a bound from the error analysis of its algorithm, checked
// on 2^24 uniform floats; and the parallel backends' results across thread counts.
//
// u is the unit roundoff of the arithmetic the sum is carried in: 2^-24 for float, 2^-53 for double.
// gamma_k = k u / (1 - k u) bounds the relative error of k successive roundings (Higham, Accuracy and
// Stability of Numerical Algorithms, 2nd ed., Lemma 3.1) while k u < 1; past that there is no a
// priori bound, and gamma is infinite.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backend.hpp"
#include "exact_sum.hpp"
#include "inputs.hpp"

namespace shootout {
namespace {

constexpr double kFloatU = 0x1p-24, kDoubleU = 0x1p-53;

double gamma(double k, double u) { return k * u < 1 ? k * u / (1 - k * u) : INFINITY; }

// What the bound is applied to: n inputs, sum |x|, the exact sum S, and the thread count used.
struct Problem {
    std::size_t n;
    double abs_sum, exact;
    int threads;
};
using Bound = double (*)(const Problem&);

// Every float is exact in double, and any order of n - 1 double additions errs by at most
// gamma_{n-1} sum |x| (Higham eq. 4.4 holds for every summation order). The result stays a double.
double double_accumulation(const Problem& p) { return gamma(static_cast<double>(p.n - 1), kDoubleU) * p.abs_sum; }

// Kahan in float: |E| <= (2u + O(n u^2)) sum |x| (Higham eq. 4.8; Goldberg, "What every computer
// scientist should know about floating-point arithmetic", 1991, Theorem 8). Neither source states the
// O() term's constant: we take it as 2, i.e. 2 n u^2 sum |x| (2u at n = 2^24). Plus u |S| for the
// final rounding of sum - compensation to float.
double kahan_float(const Problem& p) {
    const double n = static_cast<double>(p.n);
    return kFloatU * std::abs(p.exact) + (2 * kFloatU + 2 * n * kFloatU * kFloatU) * p.abs_sum;
}

// The SIMD Kahan kernels: Kahan in each lane over at most n elements (the bound above, with n for
// n / lanes), then one Neumaier sum over the 2 x (at most 128) lane sums and compensations, which
// adds gamma_{255}^2 sum |x| (next bound).
double kahan_lanes_float(const Problem& p) { return kahan_float(p) + std::pow(gamma(255, kFloatU), 2) * p.abs_sum; }

// Neumaier in float computes Ogita, Rump and Oishi's Sum2: |E| <= u |S| + gamma_{n-1}^2 sum |x|
// (SIAM J. Sci. Comput. 26(6), 2005, Prop. 4.5). Its float compensation is itself a recursive sum of
// the lost parts, so this says nothing once (n - 1) u >= 1, as at n = 2^24; then only the exact
// TinyAddends check below constrains it. (At n = 2^28 uniform its compensation saturates at 2^24 and
// the result is off by 75%: see cpu/PERFORMANCE.md.)
double neumaier_float(const Problem& p) {
    return kFloatU * std::abs(p.exact) + std::pow(gamma(static_cast<double>(p.n - 1), kFloatU), 2) * p.abs_sum;
}

// Blocked pairwise (cpu/serial/pairwise): an element goes through at most 25 roundings inside its
// block of <= 128 (15 accumulator additions, 3 combining the 8 accumulators, 7 remainder additions)
// and one per halving above it; halves are rounded down to multiples of 8, which can add one level.
// Higham eq. 4.6 in its blocked form: |E| <= gamma_D sum |x|, D = 25 + ceil(log2(n / 128)) + 1.
double pairwise_float(const Problem& p) {
    const double levels = p.n > 128 ? std::ceil(std::log2(static_cast<double>(p.n) / 128)) + 1 : 0;
    return gamma(25 + levels, kFloatU) * p.abs_sum;
}

// OpenMP's reduction clause, static schedule: each thread adds its ceil(n / T) elements in order
// into a private float, then the T private sums are added in some order: at most ceil(n / T) + T
// roundings on any element's path, |E| <= gamma_{ceil(n/T) + T} sum |x| (Higham eq. 4.4). Weak: at
// n = 2^24 it says nothing for one thread and a third of S for four.
double openmp_float_chunks(const Problem& p) {
    const double per_thread = std::ceil(static_cast<double>(p.n) / p.threads);
    return gamma(per_thread + p.threads, kFloatU) * p.abs_sum;
}

struct Claim {
    const char* backend;
    Bound bound;
    const char* bound_name;
};

const Claim kClaims[] = {
    {"cpu/serial/accumulate-f64", double_accumulation, "double accumulation"},
    {"cpu/serial/kahan", kahan_float, "Kahan float"},
    {"cpu/serial/neumaier", neumaier_float, "Neumaier float"},
    {"cpu/serial/pairwise", pairwise_float, "blocked pairwise float"},
    {"cpu/avx2/kahan", kahan_lanes_float, "Kahan lanes float"},
    {"cpu/avx2/f64", double_accumulation, "double accumulation"},
    {"cpu/avx512/kahan", kahan_lanes_float, "Kahan lanes float"},
    {"cpu/avx512/f64", double_accumulation, "double accumulation"},
    {"cpu/openmp/reduction", openmp_float_chunks, "float, static chunks"},
    {"cpu/openmp/simd", double_accumulation, "double accumulation"},
    {"cpu/stl/par", double_accumulation, "double accumulation"},
    {"cpu/stl/par_unseq", double_accumulation, "double accumulation"},
    {"cpu/tbb/reduce", double_accumulation, "double accumulation"},
    {"cpu/tbb/deterministic", double_accumulation, "double accumulation"},
    {"cpu/pool/simd", double_accumulation, "double accumulation"},
    {"cpu/threads/simd", double_accumulation, "double accumulation"},
};

// Parallel backends whose split depends only on the thread count (static chunks, partials added in
// order), or on nothing at all (tbb/deterministic): the same bits on every run.
const char* const kRepeatable[] = {"cpu/openmp/simd", "cpu/pool/simd", "cpu/threads/simd", "cpu/baseline/read",
                                   "cpu/tbb/deterministic"};

constexpr int kThreadCounts[] = {1, 2, 3, 4, 7};

// 2^24 uniform floats in [0, 1): all positive, so sum |x| = S.
class UniformInput : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        data_ = new std::vector<float>(std::size_t{1} << 24);
        fill(*data_, Distribution::uniform, 7);
        exact_ = exact_sum(*data_).round();
    }
    static void TearDownTestSuite() {
        delete data_;
        data_ = nullptr;
    }

    static const Backend& backend(const char* name) {
        const Backend* b = find_backend(name);
        if (b == nullptr) throw std::logic_error(std::string(name) + " is not registered");
        return *b;
    }
    static double sum_with(const Backend& b, int threads) {
        auto reduction = b.prepare(*data_, {.threads = threads});
        reduction->run();
        return reduction->result();
    }
    static Problem problem(int threads) { return {data_->size(), exact_, exact_, threads}; }

    static std::vector<float>* data_;
    static double exact_;
};
std::vector<float>* UniformInput::data_ = nullptr;
double UniformInput::exact_ = 0;

TEST_F(UniformInput, EveryClaimHoldsAtEveryThreadCount) {
    for (const Claim& claim : kClaims) {
        const Backend& b = backend(claim.backend);
        if (auto why = b.why_unavailable()) {
            std::cout << "not checked here: " << claim.backend << ": " << *why << '\n';
            continue;
        }
        for (int threads : kThreadCounts) {
            if (!b.parallel && threads > 1) break;
            const double bound = claim.bound(problem(threads));
            EXPECT_LE(std::abs(sum_with(b, threads) - exact_), bound)
                << claim.backend << " with " << threads << " threads: outside its " << claim.bound_name << " bound";
        }
    }
}

TEST_F(UniformInput, RepeatableBackendsGiveTheSameBitsOnEveryRun) {
    for (const char* name : kRepeatable) {
        const Backend& b = backend(name);
        if (b.why_unavailable()) continue;
        for (int threads : {2, 3}) {
            auto reduction = b.prepare(*data_, {.threads = threads});
            reduction->run();
            const double first = reduction->result();
            for (int run = 0; run < 3; ++run) {
                reduction->run();
                EXPECT_EQ(reduction->result(), first) << name << " with " << threads << " threads, run " << run;
            }
        }
    }
}

TEST_F(UniformInput, DeterministicReduceGivesTheSameBitsForEveryThreadCount) {
    const Backend& b = backend("cpu/tbb/deterministic");
    if (auto why = b.why_unavailable()) GTEST_SKIP() << *why;
    const double one_thread = sum_with(b, 1);
    for (int threads : kThreadCounts) EXPECT_EQ(sum_with(b, threads), one_thread) << threads << " threads";
}

// 2048 alternating +1 and -1, then 2^20 + 1000 addends of 2^-30, from an odd offset. With an even
// lane count every lane holds +k or -k when the tiny addends come, each below half an ulp of it: a
// plain float sum drops them all, and Kahan lanes keep them in their compensations, which are not
// zero at the end (a lane's share is no multiple of its ulp). Every partial sum is a multiple of
// 2^-30 below 2^11 (41 bits), so double accumulation is exact; so is compensated float summation,
// whose every lost part is a float it keeps; and S = (2^20 + 1000) 2^-30 is a float. A kernel that
// drops its lanes' compensations at the end (the seed article's) stays inside the bound above, since
// the lanes cancel, but is off here by up to half an ulp of k per lane against a tiny S.
TEST(TinyAddendsAfterCancellingLanes, DoubleAndCompensatedBackendsKeepEveryOne) {
    constexpr std::size_t kSigned = 2048, kTiny = (std::size_t{1} << 20) + 1000;
    std::vector<float> data(1 + kSigned + kTiny, 0x1p-30f);
    for (std::size_t i = 0; i < kSigned; ++i) data[1 + i] = i % 2 ? -1.0f : 1.0f;
    const std::span<const float> input(data.data() + 1, data.size() - 1);
    const double exact = static_cast<double>(kTiny) * 0x1p-30;
    ASSERT_EQ(exact_sum(input).round(), exact);
    for (const Claim& claim : kClaims) {
        if (claim.bound == pairwise_float || claim.bound == openmp_float_chunks) continue;
        const Backend* b = find_backend(claim.backend);
        ASSERT_NE(b, nullptr) << claim.backend;
        if (b->why_unavailable()) continue;
        auto reduction = b->prepare(input, {.threads = 3});
        reduction->run();
        EXPECT_EQ(reduction->result(), exact) << claim.backend;
    }
}

// The bounds can fail: a single running float total, and float lanes, break the tight ones by far.
TEST_F(UniformInput, TheBoundsRejectFloatAccumulation) {
    const double float_total = sum_with(backend("cpu/serial/accumulate-f32"), 1);
    EXPECT_GT(std::abs(float_total - exact_), kahan_float(problem(1)));
    EXPECT_GT(std::abs(float_total - exact_), pairwise_float(problem(1)));
    const double float_lanes = sum_with(backend("cpu/serial/unrolled"), 1);
    EXPECT_GT(std::abs(float_lanes - exact_), double_accumulation(problem(1)));
}

}  // namespace
}  // namespace shootout
