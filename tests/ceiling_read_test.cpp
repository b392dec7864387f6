// The read ceiling's every candidate sums the input: which one pick() keeps is a timing, so the
// backend's own tests (cpu_backends_test.cpp) may never meet some of them on a given machine.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "cpu/ceiling/ceiling_read.hpp"
#include "tests/error_bounds.hpp"
#include "exact/exact_sum.hpp"

namespace shootout {
namespace {

std::vector<Candidate> every_candidate(int threads) {
    std::vector<Candidate> all;
    for (int parts = threads; parts >= 1; parts /= 2) all.push_back({Schedule::pinned_parts, parts});
    if (ceiling_can_steal()) all.push_back({Schedule::work_stealing, threads});
    return all;
}

std::string describe(const Candidate& c, std::size_t loop) {
    return (c.schedule == Schedule::pinned_parts ? "pinned parts=" : "stealing threads=") + std::to_string(c.threads) +
           " loop " + std::to_string(loop);
}

// Odd sizes around the stolen range (2^16 floats, tbb_threads.hpp) and the balanced chunks (1 MiB:
// 2^18 floats), from an unaligned start, against the exact sum within the bound of any order of
// float additions.
TEST(CeilingRead, EveryCandidateAndLoopSumsTheInput) {
    std::mt19937 random(7);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> storage((std::size_t{1} << 20) + 64);
    for (float& v : storage) v = uniform(random);
    for (const int threads : {1, 3, 4}) {
        CeilingRead read(threads, simd::best());
        for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{17},
                                    (std::size_t{1} << 16) + 3, (std::size_t{1} << 20) + 33}) {
            const std::span<const float> x(storage.data() + 1, n);  // 4 bytes past a vector boundary
            const ExactAccumulator exact = exact_sum(x);
            double abs_sum = 0;
            for (const float v : x) abs_sum += std::abs(v);
            const double bound = n == 0 ? 0 : bounds::any_order({.n = n, .abs_sum = abs_sum, .exact = exact.round(), .threads = threads}, bounds::kFloatU);
            for (const Candidate& candidate : every_candidate(threads))
                for (std::size_t loop = 0; loop < read.loops(); ++loop) {
                    read.use(candidate, loop);
                    const double sum = read(x);
                    if (n == 0) {
                        EXPECT_EQ(sum, 0.0) << describe(candidate, loop);
                    } else {
                        EXPECT_LE(std::abs(sum - exact.round()), bound)
                            << "threads=" << threads << " n=" << n << ' ' << describe(candidate, loop);
                    }
                }
        }
    }
}

// Not a float: whichever thread reads the NaN or the infinity, the sum says so.
TEST(CeilingRead, EveryCandidatePassesNaNAndInfinityOn) {
    std::vector<float> x((std::size_t{1} << 19) + 5, 0.5f);
    CeilingRead read(4, simd::best());
    for (const Candidate& candidate : every_candidate(4))
        for (std::size_t loop = 0; loop < read.loops(); ++loop) {
            read.use(candidate, loop);
            x[x.size() - 2] = std::numeric_limits<float>::infinity();
            EXPECT_EQ(read(x), std::numeric_limits<double>::infinity()) << describe(candidate, loop);
            x[x.size() / 3] = std::numeric_limits<float>::quiet_NaN();
            EXPECT_TRUE(std::isnan(read(x))) << describe(candidate, loop);
            x[x.size() / 3] = x[x.size() - 2] = 0.5f;
        }
}

// configuration() names what is in use, and pick() keeps one of the candidates.
TEST(CeilingRead, ConfigurationNamesTheCandidateInUse) {
    const std::vector<float> x(std::size_t{1} << 16, 1.0f);
    CeilingRead read(2, simd::best());
    read.use({Schedule::pinned_parts, 1}, 0);
    EXPECT_EQ(read.configuration(), "schedule=pinned parts=1 loop=" + std::string(simd::best().isa) + "/f32");
    if (ceiling_can_steal()) {
        read.use({Schedule::work_stealing, 2}, 0);
        EXPECT_EQ(read.configuration(), "schedule=tbb threads=2 loop=" + std::string(simd::best().isa) + "/f32");
    } else {
        EXPECT_THROW(read.use({Schedule::work_stealing, 2}, 0), std::logic_error);
    }
    if (simd::best().sum_f32 != static_cast<simd::SumToFloat>(simd::sum_unrolled_f32)) {  // the baseline ISA's loop is one of them
        read.use({Schedule::pinned_parts, 1}, read.loops() - 1);
        EXPECT_EQ(read.configuration(), "schedule=pinned parts=1 loop=serial/unrolled");
    }
    EXPECT_THROW(read.use({Schedule::pinned_parts, 1}, read.loops()), std::out_of_range);
    read.pick(x);
    EXPECT_EQ(read(x), 65536.0);
    EXPECT_NE(read.configuration().find("schedule="), std::string::npos);
}

}  // namespace
}  // namespace shootout
