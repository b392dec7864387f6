#include "api/launch_tuning.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>

#include "api/device_timing.hpp"
#include "api/measurement_rules.hpp"
#include "platform/files.hpp"

namespace shootout {
namespace {

// The first line of a cache file; a file of another version is refused and rewritten.
constexpr std::string_view kCacheHeader = "accumulate-shootout launch shapes 2";
// The sweep's wall-clock budget per kernel: past it the shapes not yet measured are left out.
constexpr auto kTuneBudget = std::chrono::seconds(4);
// A shape replaces the best so far only when it is faster by more than this: the defaults are kept
// against a gain within the run-to-run spread of a few short batches (H200: 1-2% at 2^24).
constexpr double kMinGain = 0.03;

std::optional<TuneMode> mode_from_environment() {
    const char* value = std::getenv("SHOOTOUT_TUNE");
    return value ? parse_tune_mode(value) : std::nullopt;
}

std::atomic<TuneMode>& mode_setting() {
    static std::atomic<TuneMode> mode{mode_from_environment().value_or(TuneMode::off)};
    return mode;
}

std::string cache_directory() {
#ifdef _WIN32
    const char* local = std::getenv("LOCALAPPDATA");
    if (local && *local) return std::string(local) + "\\accumulate-shootout";
    return {};
#else
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/') return std::string(xdg) + "/accumulate-shootout";
    const char* home = std::getenv("HOME");
    if (home && *home) return std::string(home) + "/.cache/accumulate-shootout";
    return {};
#endif
}

// FNV-1a: a short, stable name for a device string in a file name.
std::uint64_t fnv1a(std::string_view text) {
    std::uint64_t hash = 1469598103934665603ull;
    for (const char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return hash;
}

std::optional<LaunchKnobs> forced_from_environment() {
    const char* value = std::getenv("SHOOTOUT_LAUNCH");
    if (!value) return std::nullopt;
    auto knobs = parse_knobs(value);
    if (!knobs) throw std::runtime_error("SHOOTOUT_LAUNCH='" + std::string(value) + "' is not group=N,loads=N,per_unit=N,in_flight=N (powers of two)");
    return knobs;
}

std::mutex& forced_mutex() {
    static std::mutex mutex;
    return mutex;
}
std::optional<LaunchKnobs>& forced_setting() {
    static std::optional<LaunchKnobs> knobs = forced_from_environment();
    return knobs;
}

std::string cache_text(const LaunchTuning& tuning, const TunedLaunch& tuned) {
    std::string text = std::string(kCacheHeader) + "\nkernel " + tuning.kernel + "\ndevice " + tuning.device + "\n";
    for (int band = 0; band < kSizeBands; ++band)
        text += "band " + std::to_string(band) + " " + tuned.by_band[static_cast<std::size_t>(band)].text() + "\n";
    return text + "end\n";
}

// The cache file's shapes, or why it is refused.
std::optional<TunedLaunch> read_cache(const LaunchTuning& tuning, const std::string& path, std::string& why) {
    std::ifstream file(path, std::ios::binary);
    if (!file) return std::nullopt;  // none yet: nothing to say
    std::ostringstream content;
    content << file.rdbuf();
    std::istringstream lines(content.str());
    std::string line;
    const auto next = [&](std::string_view prefix) -> std::optional<std::string> {
        if (!std::getline(lines, line) || !line.starts_with(prefix)) return std::nullopt;
        return line.substr(prefix.size());
    };
    if (!std::getline(lines, line) || line != kCacheHeader) {
        why = "not a launch shapes file of format version 2";
        return std::nullopt;
    }
    if (next("kernel ") != tuning.kernel || next("device ") != tuning.device) {
        why = "written for another kernel or device";
        return std::nullopt;
    }
    TunedLaunch tuned{.by_band = {}, .source = LaunchSource::cache};
    for (int band = 0; band < kSizeBands; ++band) {
        const auto knobs = next("band " + std::to_string(band) + " ");
        const auto parsed = knobs ? parse_knobs(*knobs) : std::nullopt;
        if (!parsed || !tuning.space.allows(*parsed)) {
            why = "band " + std::to_string(band) + " has no shape this device can run";
            return std::nullopt;
        }
        tuned.by_band[static_cast<std::size_t>(band)] = *parsed;
    }
    if (!std::getline(lines, line) || line != "end" || std::getline(lines, line)) {
        why = "cut short or followed by more";
        return std::nullopt;
    }
    return tuned;
}

// Writes the file whole: a temporary file of a name no other process uses, renamed over it.
void write_cache(const std::string& path, const std::string& text) {
    std::random_device random;
    const std::string temporary = path + ".tmp-" + std::to_string(random()) + std::to_string(random());
    platform::FileDescriptor fd(platform::create_new_file(temporary));
    const bool written = fd.get() >= 0 && platform::write_all(fd.get(), text) && fd.close();
    if (!written || !platform::replace_path(temporary, path)) {
        platform::remove_path(temporary);
        std::cerr << "launch shapes: cannot write the cache " << path << ": the tuned shapes hold for this run only\n";
    }
}

// Seconds per call, or infinity for a shape the device refuses (its storage does not fit, a driver
// that will not launch it): never picked, and said.
double measure(const LaunchTuning& tuning, const LaunchKnobs& knobs, std::size_t n) {
    try {
        return tuning.seconds_per_call(knobs, n);
    } catch (const std::runtime_error& e) {
        std::cerr << "  " << knobs.text() << " left out: " << e.what() << "\n";
        return std::numeric_limits<double>::infinity();
    }
}

// Coordinate descent from the defaults, band by band from the smallest: group size, then loads,
// then groups per compute unit, then calls in flight, each at the values the device allows, until the budget is spent
// (a band not reached keeps its defaults, unmeasured). A knob moves only for a gain above the noise (kMinGain).
TunedLaunch sweep(const LaunchTuning& tuning) {
    std::cerr << "tuning " << tuning.kernel << " on " << tuning.device << " (once per device; --tune=off skips it)...\n";
    const auto deadline = std::chrono::steady_clock::now() + kTuneBudget;
    const auto spent = [&] { return std::chrono::steady_clock::now() > deadline; };
    TunedLaunch tuned{.by_band = {}, .source = LaunchSource::tuner};
    std::array<double, kSizeBands> best{};
    int measured = 0;
    const LaunchSpace& space = tuning.space;
    const std::vector<std::pair<const std::vector<std::uint32_t>*, std::uint32_t LaunchKnobs::*>> knobs = {
        {&space.group_sizes, &LaunchKnobs::group_size}, {&space.loads, &LaunchKnobs::loads}, {&space.groups_per_unit, &LaunchKnobs::groups_per_unit},
        {&space.in_flight, &LaunchKnobs::in_flight}};
    for (int band = 0; band < kSizeBands; ++band) {
        const auto b = static_cast<std::size_t>(band);
        tuned.by_band[b] = tuning.defaults(band);
        best[b] = std::numeric_limits<double>::quiet_NaN();
        if (spent()) continue;
        best[b] = measure(tuning, tuned.by_band[b], band_size(band));
        ++measured;
        for (const auto& [values, member] : knobs) {
            const LaunchKnobs start = tuned.by_band[b];
            for (const std::uint32_t value : *values) {
                if (value == start.*member || spent()) continue;
                LaunchKnobs candidate = start;
                candidate.*member = value;
                const double seconds = measure(tuning, candidate, band_size(band));
                ++measured;
                if (seconds < best[b] * (1 - kMinGain)) {
                    best[b] = seconds;
                    tuned.by_band[b] = candidate;
                }
            }
        }
    }
    for (int band = 0; band < kSizeBands; ++band) {
        const auto b = static_cast<std::size_t>(band);
        std::cerr << "  n " << (band + 1 < kSizeBands ? "<= 2^" + std::to_string(18 + 4 * band) : "> 2^" + std::to_string(14 + 4 * band)) << ": "
                  << tuned.by_band[b].text();
        if (std::isnan(best[b])) std::cerr << " (the defaults, not measured)\n";
        else std::cerr << " (" << best[b] * 1e6 << " us a call at 2^" << std::countr_zero(band_size(band)) << ")\n";
    }
    std::cerr << "  " << measured << " shapes measured" << (spent() ? ", the rest left out: the budget was spent" : "") << "\n";
    return tuned;
}

TunedLaunch find(const LaunchTuning& tuning) {
    TunedLaunch defaults;
    for (int band = 0; band < kSizeBands; ++band) defaults.by_band[static_cast<std::size_t>(band)] = tuning.defaults(band);
    const TuneMode mode = tune_mode();
    if (mode == TuneMode::off) return defaults;
    const std::string path = launch_cache_file(tuning.kernel, tuning.device);
    if (path.empty()) {
        std::cerr << "launch shapes: no cache directory ($XDG_CACHE_HOME, $HOME): " << tuning.kernel << " runs its defaults\n";
        return defaults;
    }
    std::error_code error;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
    // One process tunes a kernel at a time; the next reads what it wrote.
    platform::FileDescriptor lock(platform::open_file(path + ".lock", platform::OpenFor::locking));
    if (lock.get() >= 0) platform::lock_exclusive(lock.get());
    if (mode == TuneMode::auto_tune) {
        std::string why;
        if (auto cached = read_cache(tuning, path, why)) return *cached;
        if (!why.empty()) std::cerr << "launch shapes: the cache " << path << " is refused (" << why << "): tuning again\n";
    }
    const TunedLaunch tuned = sweep(tuning);
    write_cache(path, cache_text(tuning, tuned));
    return tuned;
}

}  // namespace

std::string LaunchKnobs::text() const {
    return "group=" + std::to_string(group_size) + " loads=" + std::to_string(loads) + " per_unit=" + std::to_string(groups_per_unit) +
           " in_flight=" + std::to_string(in_flight);
}

std::optional<LaunchKnobs> parse_knobs(std::string_view text) {
    LaunchKnobs knobs;
    int seen = 0;
    std::string words(text);
    std::replace(words.begin(), words.end(), ',', ' ');
    std::istringstream in(words);
    for (std::string word; in >> word;) {
        const auto equals = word.find('=');
        if (equals == std::string::npos) return std::nullopt;
        const std::string name = word.substr(0, equals), value = word.substr(equals + 1);
        if (value.empty() || value.size() > 5 || value.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
        const auto number = static_cast<std::uint32_t>(std::stoul(value));
        if (number == 0 || (number & (number - 1)) != 0) return std::nullopt;  // powers of two only
        if (name == "group") knobs.group_size = number, seen |= 1;
        else if (name == "loads") knobs.loads = number, seen |= 2;
        else if (name == "per_unit") knobs.groups_per_unit = number, seen |= 4;
        else if (name == "in_flight") knobs.in_flight = number, seen |= 8;
        else return std::nullopt;
    }
    return seen == 15 ? std::optional(knobs) : std::nullopt;
}

std::string_view to_string(LaunchSource source) {
    switch (source) {
        case LaunchSource::defaults: return "defaults";
        case LaunchSource::cache: return "cache";
        case LaunchSource::tuner: return "tuner";
        case LaunchSource::forced: return "forced";
    }
    return "?";
}

std::optional<TuneMode> parse_tune_mode(std::string_view text) {
    if (text == "off") return TuneMode::off;
    if (text == "auto") return TuneMode::auto_tune;
    if (text == "force") return TuneMode::force;
    return std::nullopt;
}

void set_tune_mode(TuneMode mode) { mode_setting() = mode; }
TuneMode tune_mode() { return mode_setting(); }

int size_band(std::size_t n) { return n <= (std::size_t{1} << 18) ? 0 : n <= (std::size_t{1} << 22) ? 1 : 2; }
// The top band at 2^26, not at its edge: a shape that won at 2^24 (a call's ramp and drain still a
// fifth of it) read 10% slower at 2^28 (H200, opencl/exact, group=64).
std::size_t band_size(int band) { return std::size_t{1} << std::array{16, 20, 26}[static_cast<std::size_t>(band)]; }

std::string launch_cache_file(const std::string& kernel, const std::string& device) {
    const std::string directory = cache_directory();
    if (directory.empty()) return {};
    std::string name = kernel;
    std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)) && c != '-'; }, '_');
    char hash[17];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(device)));
#ifdef _WIN32
    return directory + "\\" + name + "-" + hash + ".launch";
#else
    return directory + "/" + name + "-" + hash + ".launch";
#endif
}

bool LaunchSpace::allows(const LaunchKnobs& knobs) const {
    const auto in = [](const std::vector<std::uint32_t>& values, std::uint32_t v) {
        return std::find(values.begin(), values.end(), v) != values.end();
    };
    return in(group_sizes, knobs.group_size) && in(loads, knobs.loads) && in(groups_per_unit, knobs.groups_per_unit) &&
           in(in_flight, knobs.in_flight);
}

std::vector<LaunchKnobs> LaunchSpace::all() const {
    std::vector<LaunchKnobs> every;
    for (const std::uint32_t g : group_sizes)
        for (const std::uint32_t l : loads)
            for (const std::uint32_t p : groups_per_unit)
                for (const std::uint32_t f : in_flight) every.push_back({.group_size = g, .loads = l, .groups_per_unit = p, .in_flight = f});
    return every;
}

void set_forced_launch(std::optional<LaunchKnobs> knobs) {
    const std::lock_guard lock(forced_mutex());
    forced_setting() = knobs;
}

TunedLaunch tuned_launch(const LaunchTuning& tuning) {
    {
        const std::lock_guard lock(forced_mutex());
        if (const auto& knobs = forced_setting()) {
            if (!tuning.space.allows(*knobs)) throw std::runtime_error("the forced launch '" + knobs->text() + "' is not a shape " + tuning.kernel + " can run here");
            return {.by_band = {*knobs, *knobs, *knobs}, .source = LaunchSource::forced};
        }
    }
    static std::mutex mutex;
    static std::map<std::string, TunedLaunch> found;
    const std::lock_guard lock(mutex);
    const std::string key = tuning.kernel + '\n' + tuning.device;
    if (auto it = found.find(key); it != found.end()) return it->second;
    return found.emplace(key, find(tuning)).first->second;
}

double seconds_per_call(const DeviceBackendParts& parts, std::size_t n) {
    constexpr int kBatches = 3;
    // A batch's start and drain (an H200's: 6-30 us) stay under a few percent of a batch this long, as
    // in the harness's batches, which run 1 ms and more (rules::kBatchBytes).
    constexpr double kBatchSeconds = 1e-3;
    const int most = rules::batch_calls(n * sizeof(float), 1);
    const std::vector<float> ones(n, 1.0f);
    TimedDeviceReduction reduction("tuner", parts, Elements(ones), {.batch = most});
    reduction.run_batch(rules::kMinBatch);  // warm-up: pipelines, clocks, the first touch of the copies
    const double estimate = reduction.run_batch(rules::kMinBatch) / rules::kMinBatch;
    // Clamped as a double: a clock too coarse to see two calls (0 s) asks for the most, not for inf as an int.
    const int batch = static_cast<int>(std::clamp(std::ceil(kBatchSeconds / estimate), double{rules::kMinBatch}, double(most)));
    std::array<double, kBatches> seconds{};
    for (double& s : seconds) s = reduction.run_batch(batch) / batch;
    std::sort(seconds.begin(), seconds.end());
    return seconds[kBatches / 2];
}

}  // namespace shootout
