// The launch tuner's choice (api/launch_tuning.hpp) on a fake kernel whose time per call is known
// for every shape: a shape within the noise of the defaults never replaces them, a real gain does.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>

#include "api/launch_tuning.hpp"

namespace shootout {
namespace {

const LaunchKnobs kDefaults{.group_size = 256, .loads = 4, .groups_per_unit = 8, .in_flight = 1};

// Tunes a fake kernel (a name of its own: the tuner keeps one answer per kernel and process) in a
// fresh cache directory, its time per call `seconds` of each shape.
TunedLaunch tune(const std::string& kernel, double (*seconds)(const LaunchKnobs&)) {
    const auto cache = std::filesystem::path(testing::TempDir()) / ("tuning-" + kernel);
    std::filesystem::remove_all(cache);
    setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    set_tune_mode(TuneMode::force);
    const TunedLaunch tuned = tuned_launch({
        .kernel = kernel,
        .device = "fake",
        .defaults = [](int) { return kDefaults; },
        .space = {.group_sizes = {64, 128, 256}, .loads = {2, 4, 8}, .groups_per_unit = {4, 8}, .in_flight = {1, 4}},
        .seconds_per_call = [seconds](const LaunchKnobs& knobs, std::size_t) { return seconds(knobs); },
    });
    set_tune_mode(TuneMode::off);
    unsetenv("XDG_CACHE_HOME");
    return tuned;
}

TEST(LaunchTuner, KeepsTheDefaultsAgainstShapesWithinTheNoise) {
    const TunedLaunch tuned = tune("within-noise", [](const LaunchKnobs& knobs) { return knobs == kDefaults ? 1.0 : 0.98; });
    EXPECT_EQ(tuned.source, LaunchSource::tuner);
    for (const LaunchKnobs& knobs : tuned.by_band) EXPECT_EQ(knobs, kDefaults) << knobs.text();
}

TEST(LaunchTuner, TakesAShapeFasterByMoreThanTheNoise) {
    const TunedLaunch tuned = tune("real-gain", [](const LaunchKnobs& knobs) { return knobs.loads == 8 ? 0.8 : 1.0; });
    for (const LaunchKnobs& knobs : tuned.by_band) {
        EXPECT_EQ(knobs.loads, 8u) << knobs.text();
        EXPECT_EQ(knobs.group_size, kDefaults.group_size) << knobs.text();
    }
}

}  // namespace
}  // namespace shootout
