// Launch shapes of the portable kernels (opencl/*, vulkan/*), tuned on the user's own device: the
// knobs a single-pass kernel is launched with (work-group size, 16-byte loads in flight per
// work-item, work-groups per compute unit, calls of a batch in flight), one set per size band, and
// where they came from.
//
//   defaults  the API's policy for the device's vendor (tune mode off, or nowhere to cache)
//   cache     read from the user's cache directory, written by an earlier tuning on this device
//   tuner     measured now: a short sweep on first use of a device (name + driver + API) the cache
//             does not know, or every time under --tune=force (--retune)
//   forced    $SHOOTOUT_LAUNCH (`group=256,loads=4,per_unit=4,in_flight=8`) for every band: a shape measured
//             by hand, or the test of every shape the tuner can pick
//
// The cache: $XDG_CACHE_HOME (else ~/.cache; %LOCALAPPDATA% on Windows)/accumulate-shootout, one
// file per kernel and device, written whole (a temporary file renamed over it), read back only when
// its format version, kernel and device match and every shape is valid, else refused with a message
// and tuned again. Two processes tuning one kernel at once take turns on a lock file: the second
// reads what the first wrote.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shootout {

struct LaunchKnobs {
    std::uint32_t group_size = 256;     // work-items a work-group (a power of two)
    std::uint32_t loads = 4;            // 16-byte loads each work-item issues before it adds (a power of two)
    std::uint32_t groups_per_unit = 4;  // the grid's cap: work-groups per compute unit
    std::uint32_t in_flight = 1;        // calls of a batch that may run at once (results/README.md, "The overlap rule")
    bool operator==(const LaunchKnobs&) const = default;
    // "group=256 loads=4 per_unit=4 in_flight=1"; parse_knobs reads it back, spaces or commas between.
    std::string text() const;
};
std::optional<LaunchKnobs> parse_knobs(std::string_view text);

enum class LaunchSource { defaults, cache, tuner, forced };
std::string_view to_string(LaunchSource source);

// off: the API's defaults; auto_tune: the cache, tuned where it has nothing valid; force: tuned again.
// The harness sets it (--tune, --retune); before that, $SHOOTOUT_TUNE (off|auto|force), else off.
enum class TuneMode { off, auto_tune, force };
std::optional<TuneMode> parse_tune_mode(std::string_view text);
void set_tune_mode(TuneMode mode);
TuneMode tune_mode();

// The size bands a shape is chosen for: n up to 2^18, up to 2^22, above; each measured at the
// representative size band_size(band) (launch-bound, half-resident, bandwidth-bound on a GPU).
inline constexpr int kSizeBands = 3;
int size_band(std::size_t n);
std::size_t band_size(int band);

struct TunedLaunch {
    std::array<LaunchKnobs, kSizeBands> by_band;
    LaunchSource source = LaunchSource::defaults;
    const LaunchKnobs& for_size(std::size_t n) const { return by_band[static_cast<std::size_t>(size_band(n))]; }
};

// The knobs a kernel can run with on a device: each list in increasing order, the defaults among them.
struct LaunchSpace {
    std::vector<std::uint32_t> group_sizes, loads, groups_per_unit, in_flight;
    bool allows(const LaunchKnobs& knobs) const;
    std::vector<LaunchKnobs> all() const;  // every combination
};

// What an API tells the tuner about one kernel on its device.
struct LaunchTuning {
    std::string kernel;  // the backend's name: "vulkan/single-pass"
    std::string device;  // what identifies the device: its name, driver version and API version
    std::function<LaunchKnobs(int band)> defaults;
    LaunchSpace space;
    // Seconds per call of the kernel with these knobs on n floats, timed on the device as the
    // harness times it (api/device_timing.hpp; seconds_per_call below).
    std::function<double(const LaunchKnobs&, std::size_t n)> seconds_per_call;
};

// The kernel's shapes on this device: the forced knobs where set, else under the tune mode, found
// once per process.
TunedLaunch tuned_launch(const LaunchTuning& tuning);

// Knobs every kernel runs with for every size (source `forced`) while set; nullopt: none. Starts as
// $SHOOTOUT_LAUNCH. A kernel that cannot run them throws, naming them.
void set_forced_launch(std::optional<LaunchKnobs> knobs);

struct DeviceBackendParts;
// The median of 3 timed batches over n ones, after a warm-up, each batch as many calls as take 1 ms
// and at most the harness's (rules::batch_calls): a short batch's start and drain would weigh on its
// time, and differ between shapes (calls in flight). The device's clock, rotated inputs
// (api/device_timing.hpp).
double seconds_per_call(const DeviceBackendParts& parts, std::size_t n);

// The cache file of a kernel on a device, or empty where there is no cache directory.
std::string launch_cache_file(const std::string& kernel, const std::string& device);

}  // namespace shootout
