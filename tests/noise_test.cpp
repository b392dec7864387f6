// Noise, clocks and context in every row (measurement_rules.hpp, "noise", "throttle", "context"):
// the statistics on samples with known answers, the stopping rule, the throttle rule through a fake
// device clock, the CPU context from a fake /sys and /proc, and the progress estimate.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>
#include <vector>

#include "api/measurement_rules.hpp"
#include "bench/case_timer.hpp"
#include "bench/runner.hpp"
#include "bench/system_info.hpp"
#include "tests/sweep_support.hpp"

namespace shootout {
namespace {

TEST(Noise, MedianOfOddAndEvenCounts) {
    EXPECT_EQ(rules::median({5, 1, 3}), 3);
    EXPECT_EQ(rules::median({4, 1, 3, 2}), 2.5);
    EXPECT_TRUE(std::isnan(rules::median({})));
}

// 1.4826 x MAD / median: for {9, 10, 11, 12, 100} the median is 11, the distances {2, 1, 0, 1, 89}
// have median 1, so the spread is 1.4826 / 11 whatever the outlier's size; the cv would be 1.4.
TEST(Noise, SpreadIsTheNormalisedMadOverTheMedianAndShrugsOffAnOutlier) {
    EXPECT_DOUBLE_EQ(*rules::relative_spread({9, 10, 11, 12, 100}), 1.4826 / 11);
    EXPECT_DOUBLE_EQ(*rules::relative_spread({9, 10, 11, 12, 1e9}), 1.4826 / 11);
    EXPECT_EQ(*rules::relative_spread({7, 7, 7}), 0);
    EXPECT_DOUBLE_EQ(*rules::relative_spread({2, 4}), 1.4826 * 1 / 3);  // median 3, distances {1, 1}
    EXPECT_FALSE(rules::relative_spread({5}));
    EXPECT_FALSE(rules::relative_spread({}));
}

// For normal samples the normalised MAD estimates sigma: 10^5 draws of N(100, 2) give 0.02.
TEST(Noise, SpreadEstimatesTheCvOfNormalNoise) {
    std::vector<double> samples;
    std::uint64_t state = 12345;
    auto uniform = [&] {  // splitmix64, (0, 1)
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return (static_cast<double>((z ^ (z >> 31)) >> 11) + 0.5) / 9007199254740992.0;
    };
    for (int i = 0; i < 100000; ++i)  // Box-Muller
        samples.push_back(100 + 2 * std::sqrt(-2 * std::log(uniform())) * std::cos(2 * std::numbers::pi * uniform()));
    EXPECT_NEAR(*rules::relative_spread(samples), 0.02, 0.0005);
}

TEST(Noise, ThrottledBelowThreeQuartersOfTheMaximumClock) {
    EXPECT_TRUE(rules::throttled(1000, 1980));
    EXPECT_FALSE(rules::throttled(1485, 1980));
    EXPECT_FALSE(rules::throttled(1980, 1980));
}

RepetitionsTaken taken(std::vector<double> times, double seconds) {
    return {.times = std::move(times), .seconds = seconds};
}

TEST(Noise, WithoutMaxNoiseACaseStopsAfterItsFirstRound) {
    RepetitionsTaken t = taken({1, 2, 3, 40, 5}, 0.3);
    EXPECT_EQ(repetitions_wanted(t, {}), 0);
}

TEST(Noise, MaxNoiseAsksForAnotherRoundWhileAboveItAndWithinTheTime) {
    const StoppingRule rule{.max_noise = 0.01, .max_noise_seconds = 2};
    RepetitionsTaken noisy = taken({100, 110, 90, 105, 95}, 0.5);
    EXPECT_EQ(repetitions_wanted(noisy, rule), 5) << "a round as long as the first";
    noisy.times.insert(noisy.times.end(), {100, 100.1, 99.9, 100, 100, 100, 100.2, 99.8, 100, 100, 100, 100});
    EXPECT_EQ(repetitions_wanted(noisy, rule), 0) << "its spread came below 1%: 1.4826 x 0.1 / 100";
    RepetitionsTaken late = taken({100, 110, 90, 105, 95}, 2.0);
    EXPECT_EQ(repetitions_wanted(late, rule), 0) << "its time is spent";
    RepetitionsTaken quiet = taken({100, 100.2, 99.9, 100.1, 100}, 0.5);
    EXPECT_EQ(repetitions_wanted(quiet, rule), 0);
}

TEST(Noise, ThrottledRepetitionsAreRetakenAtMostKMaxThrottleRetakesTimes) {
    RepetitionsTaken t = taken({1, 1}, 0.1);
    t.throttled = 3;
    EXPECT_EQ(repetitions_wanted(t, {}), 3);
    t.throttled += 3;  // every re-take throttled too
    EXPECT_EQ(repetitions_wanted(t, {}), rules::kMaxThrottleRetakes - 3);
    t.throttled += rules::kMaxThrottleRetakes - 3;
    EXPECT_EQ(repetitions_wanted(t, {}), 0);
}

// A fake device clock, the seam the throttle rule reads: prepares listed in `throttled_prepares`
// (counted from 1) report an SM clock of 500 of 2000 MHz, the others 1900.
struct FakeClockedReduction final : Reduction {
    FakeClockedReduction(Elements input, bool throttled) : input(input), throttled(throttled) {}
    std::optional<double> run() override { return std::nullopt; }
    double result() override { return static_cast<double>(input.size()); }
    DeviceClocks clocks() override {
        return {.sm_mhz = throttled ? 500.0 : 1900.0, .memory_mhz = 2619.0, .sm_max_mhz = 2000.0};
    }
    Elements input;
    bool throttled;
};

int prepares = 0;
std::vector<int> throttled_prepares;

void register_fake_clock() {
    static const bool registered = register_backend({
        .name = "cpu/test/fake-clock",
        .description = "test only: a device clock that some prepares report throttled",
        .prepare = [](Elements input, const PrepareOptions&) -> std::unique_ptr<Reduction> {
            const bool throttled = std::find(throttled_prepares.begin(), throttled_prepares.end(), ++prepares) != throttled_prepares.end();
            return std::make_unique<FakeClockedReduction>(input, throttled);
        },
    });
    ASSERT_TRUE(registered);
}

// One case, three repetitions (sweep_support.hpp): the first round's prepare is throttled, so all
// three are discarded and re-taken in a second round, freshly prepared and not throttled.
TEST(Noise, AThrottledRepetitionIsDiscardedAndRetakenAndCounted) {
    register_fake_clock();
    prepares = 0;
    throttled_prepares = {1};
    const auto r = sweep({"--backend=cpu/test/fake-clock", "--sizes=2^10"});
    EXPECT_EQ(r.status, 0) << r.err;
    ASSERT_EQ(r.rows.size(), 1u) << r.out << r.err;
    EXPECT_EQ(prepares, 2);
    EXPECT_EQ(r.rows[0].at("throttled"), "3");
    EXPECT_EQ(r.rows[0].at("reps"), "3");
    EXPECT_EQ(r.rows[0].at("sm_clock_mhz"), "1900");
    EXPECT_EQ(r.rows[0].at("mem_clock_mhz"), "2619");
}

TEST(Noise, ACaseThrottledOnEveryRetakeFailsNamedAfterBoundedRetakes) {
    register_fake_clock();
    prepares = 0;
    throttled_prepares = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const auto r = sweep({"--backend=cpu/test/fake-clock", "--sizes=2^10"});
    EXPECT_EQ(r.status, 1);
    EXPECT_TRUE(r.rows.empty());
    EXPECT_EQ(prepares, 3) << "3 throttled, 3 re-taken, then the last 2 of kMaxThrottleRetakes";
    EXPECT_NE(r.err.find("ran with the SM clock throttled below 75% of its maximum"), std::string::npos) << r.err;
}

TEST(Noise, RowsWithoutADeviceClockLeaveTheClockColumnsEmpty) {
    const auto r = sweep({"--backend=cpu/serial/accumulate-f64", "--sizes=2^10"});
    ASSERT_EQ(r.rows.size(), 1u) << r.err;
    EXPECT_EQ(r.rows[0].at("throttled"), "");
    EXPECT_EQ(r.rows[0].at("sm_clock_mhz"), "");
    EXPECT_EQ(r.rows[0].at("reps"), "3");
    EXPECT_FALSE(r.rows[0].at("spread").empty());
    EXPECT_TRUE(r.rows[0].at("noisy") == "yes" || r.rows[0].at("noisy") == "no");
}

// A target no timing meets stops on the time limit, with more repetitions and noisy=yes; one every
// timing meets stops after the first round.
TEST(Noise, MaxNoiseStopsOnTheSpreadOrTheTimeLimit) {
    const auto unmet = sweep({"--backend=cpu/serial/accumulate-f64", "--sizes=2^10", "--max-noise=0.0000001", "--max-noise-seconds=0.2"});
    ASSERT_EQ(unmet.rows.size(), 1u) << unmet.err;
    EXPECT_GT(std::stoi(unmet.rows[0].at("reps")), 3);
    EXPECT_EQ(unmet.rows[0].at("noisy"), "yes");
    const auto met = sweep({"--backend=cpu/serial/accumulate-f64", "--sizes=2^10", "--max-noise=1000"});
    ASSERT_EQ(met.rows.size(), 1u) << met.err;
    EXPECT_EQ(met.rows[0].at("reps"), "3");
    EXPECT_EQ(met.rows[0].at("noisy"), "no");
}

TEST(Noise, TheJsonEntryHasEveryRepetition) {
    Measurement m;
    m.repetitions_ns = {1.5, 2.25};
    EXPECT_NE(json_document({m}).find("\"repetitions_ns\": [1.5, 2.25]}"), std::string::npos) << json_document({m});
}

TEST(Context, ReadFromTheSystemsFiles) {
    const auto root = std::filesystem::temp_directory_path() / ("shootout_context_" + std::to_string(::getpid()));
    std::filesystem::create_directories(root / "sys/devices/system/cpu/cpu0/cpufreq");
    std::filesystem::create_directories(root / "sys/devices/system/cpu/cpufreq");
    std::filesystem::create_directories(root / "proc");
    EXPECT_EQ(platform::cpu_context(root.string()).turbo, "");
    EXPECT_FALSE(platform::cpu_context(root.string()).load1);
    std::ofstream(root / "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") << "powersave\n";
    std::ofstream(root / "sys/devices/system/cpu/cpufreq/boost") << "1\n";
    std::ofstream(root / "proc/loadavg") << "3.25 2.00 1.00 2/300 1234\n";
    platform::CpuContext context = platform::cpu_context(root.string());
    EXPECT_EQ(context.governor, "powersave");
    EXPECT_EQ(context.turbo, "on");
    EXPECT_EQ(context.load1, 3.25);
    std::filesystem::create_directories(root / "sys/devices/system/cpu/intel_pstate");
    std::ofstream(root / "sys/devices/system/cpu/intel_pstate/no_turbo") << "1\n";  // intel_pstate's word wins
    EXPECT_EQ(platform::cpu_context(root.string()).turbo, "off");
    std::filesystem::remove_all(root);
}

TEST(Context, WarnsAsGoogleBenchmarkDoes) {
    EXPECT_TRUE(context_warnings({.governor = "performance", .turbo = "on", .load1 = 1.0}, "Release", 2).empty());
    EXPECT_TRUE(context_warnings({}, "Release", 2).empty()) << "nothing known, nothing to warn of";
    const auto warnings = context_warnings({.governor = "powersave", .turbo = "", .load1 = 6.32}, "Debug", 2);
    ASSERT_EQ(warnings.size(), 3u);
    EXPECT_NE(warnings[0].find("CPU scaling is enabled (governor powersave)"), std::string::npos);
    EXPECT_NE(warnings[1].find("debug build"), std::string::npos);
    EXPECT_NE(warnings[2].find("load average (6.32) is above the 2 logical CPUs"), std::string::npos);
}

TEST(Progress, TheEstimateFitsTimePerCaseAgainstBytes) {
    ProgressEstimate estimate;
    EXPECT_FALSE(estimate.seconds_for(1024, 10));
    estimate.size_done(1000, 4, 8);  // 2 s a case
    EXPECT_DOUBLE_EQ(*estimate.seconds_for(5000, 3), 6) << "one size: the mean time per case";
    estimate.size_done(3000, 2, 8);  // 4 s a case: a = 1, b = 1e-3
    EXPECT_NEAR(*estimate.seconds_for(5000, 3), 18, 1e-9);
    estimate.size_done(5000, 1, 0.5);  // a fit with a negative slope falls back to the mean
    EXPECT_NEAR(*estimate.seconds_for(5000, 1), 16.5 / 7, 1e-9);
}

TEST(Progress, TheLineSaysDoneTotalElapsedAndLeft) {
    EXPECT_EQ(progress_estimate_line(12, 714, 65, 400), "12/714 cases, 1m05s elapsed, about 6m40s left");
    EXPECT_EQ(progress_estimate_line(1, 3, 3723, std::nullopt), "1/3 cases, 1h02m elapsed");
}

TEST(Progress, ASweepPrintsOneEstimateLinePerCaseOnStandardError) {
    const auto r = sweep({"--backend=cpu/serial/accumulate-f64", "--sizes=2^10..2^12"});
    EXPECT_NE(r.err.find("1/3 cases, "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("2/3 cases, "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(" left\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("3/3 cases, "), std::string::npos) << r.err;
}

}  // namespace
}  // namespace shootout
