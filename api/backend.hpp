// The registry interface: the only thing a backend and the harness share.
//
// A backend is a named way of summing an array. It says where it runs, which element types it takes,
// whether it can run on this machine (and why not), and how to prepare itself for one input. Preparing does everything that
// is not the reduction itself (allocation, host-to-device copies, temporary storage, thread start-up),
// so that the harness can time Reduction::run() alone.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/element_type.hpp"

namespace shootout {

// Where a backend runs: the name of a registered device API (api/device_api.hpp): "cpu" for the
// host, "cuda", and whatever a device folder registers. The harness never tests for a particular one.
class Device {
public:
    constexpr explicit Device(std::string_view name) : name_(name) {}
    constexpr std::string_view name() const { return name_; }
    bool operator==(const Device&) const = default;

    static const Device cpu;  // the host's processors

private:
    std::string_view name_;
};
inline constexpr Device Device::cpu{"cpu"};

inline std::string_view to_string(Device device) { return device.name(); }

// Who measures a run: the harness on the host's wall clock, or the backend itself, which returns
// the seconds from run(): device timestamps around the device work (api/device_timing.hpp), or
// the slowest rank's wall clock between barriers (mpi/*).
enum class Timing { host_wall_clock, device_events };

// What a call finds in the caches, the CSV's cache column (results/README.md, "How a number is taken").
enum class Cache {
    warm,  // every call reads the same input: an input that fits a cache level is read from it
    cold,  // inputs rotate through copies spanning kL2RotationFactor x the device's last-level cache
};
std::string_view to_string(Cache cache);

// What the backend carries its running sum in. Tests derive each backend's error bound from this
// (with its Order), and the plots group and mark backends by it.
enum class Accumulator {
    f32,              // float additions
    f64,              // each float widened, double additions
    f16,              // float16 additions, each rounded to float16: a 16-bit running total of float16 input
    bf16,             // bfloat16 additions, each rounded to bfloat16
    compensated_f32,  // float sum plus a float compensation (Kahan, Neumaier, TwoSum)
    compensated_f64,  // double sum plus a double compensation
    exact,            // the exact sum, rounded once
    none,             // sums nothing (a copy)
    // Tensor cores (cuda/primitives/tf32_mma.cuh): each float first becomes TF32 terms (8-bit
    // exponent, 11 significant bits), which MMAs add into float accumulators.
    tf32,        // each float rounded to one TF32 term: within 2^-11 of it, relatively
    tf32_split,  // each float split into two TF32 terms, hi + lo: within 2^-22 of it, relatively
};

// How the additions are arranged; with the accumulator it bounds the rounding error.
enum class Order {
    sequential,     // one running total, element by element
    lanes,          // a fixed number of independent totals (SIMD lanes, unrolled registers), combined at the end
    pairwise,       // blocked pairwise (recursive halving)
    thread_chunks,  // one contiguous chunk per thread, each summed in order, then the partials combined
    tree,           // a device's grid: per-thread partials combined by a fixed reduction tree
    unordered,      // whatever order the library or atomics pick
};

// Whether the same input gives the same bits. For multi-GPU and MPI backends the GPU and rank
// counts are thread counts too: the input is split by them.
enum class Reproducibility {
    none,              // may differ from run to run (dynamic scheduling, atomics)
    per_thread_count,  // the same bits on every run at one thread (GPU, rank) count; may change with it
    any_thread_count,  // the same bits on every run and for every thread (GPU, rank) count
};

// What a row of this backend measures.
enum class Role {
    reduction,       // sums the input
    ceiling,         // the fastest read of the input this device manages: what reductions are judged against
    reference_copy,  // moves the input without summing it (result NaN), for scale
    launch_floor,    // reads nothing (result NaN): the least a call costs on this device, an empty
                     // launch; with the ceiling's bandwidth it bounds a call's time from below
};

// The roles that sum nothing: they measure the device, not a way of summing.
constexpr bool is_reference(Role role) { return role == Role::reference_copy || role == Role::launch_floor; }

std::string_view to_string(Accumulator accumulator);
std::string_view to_string(Order order);
std::string_view to_string(Reproducibility reproducibility);
std::string_view to_string(Role role);

// Facts about a backend that the tests, --list, the CSV and the plots read: never guessed from its name.
struct Traits {
    Accumulator accumulator = Accumulator::f32;
    Order order = Order::sequential;
    Reproducibility reproducibility = Reproducibility::none;
    Role role = Role::reduction;
};

struct PrepareOptions {
    int threads = 1;                // used by parallel backends only
    bool include_transfer = false;  // device backends: time host->device copy + reduction + copy back
    int batch = 1;                  // batching backends: the calls each run_batch() will make
    int gpus = 1;                   // multi-GPU backends: devices 0 .. gpus - 1 share the input
};

// What a device backend runs on, for the CSV's gpu column and the plots' reference line.
struct DeviceInfo {
    std::string name;
    double peak_gbps = 0;  // theoretical memory bandwidth from the device's attributes; 0 if unknown
    int visible = 1;       // devices of this kind the process sees: the most a multi-GPU backend can use
};

// Joules, or none: `missing` says why where a counter was expected and cannot be read (NVIDIA's
// management library not found, a GPU without the counter), and is empty where there is none at all.
struct Energy {
    std::optional<double> joules = {};
    std::string missing = {};
};

// A device's clocks, read now, in MHz, for the sm_clock_mhz/mem_clock_mhz/throttled columns and the
// throttle rule (measurement_rules.hpp). All none where the device has no clock to read; `missing`
// says why where one was expected (NVIDIA's management library not found).
struct DeviceClocks {
    std::optional<double> sm_mhz = {}, memory_mhz = {}, sm_max_mhz = {};
    std::string missing = {};
};

// One prepared input. run() is called many times; every call does the whole reduction again.
class Reduction {
public:
    virtual ~Reduction() = default;

    // Runs the reduction once. Backends with Timing::device_events return the seconds their events
    // measured around the device work; host-timed backends return std::nullopt.
    virtual std::optional<double> run() = 0;

    // Backends with Backend::batches: enqueues `calls` reductions back to back (inputs rotating as in
    // run()) between one pair of events, waits once, and returns the seconds of the whole batch.
    virtual double run_batch(int /*calls*/) { throw std::logic_error("run_batch() on a backend that does not batch"); }

    // Backends whose device has an energy counter: the energy of one call in a stream of batches of
    // `calls` calls, by the energy window of measurement_rules.hpp. None elsewhere.
    virtual Energy energy_per_call(int /*calls*/) { return {}; }

    // Backends on a device with readable clocks: its clocks now (read after each repetition). None
    // elsewhere.
    virtual DeviceClocks clocks() { return {}; }

    // The sum of the last run(), widened to double. Device backends copy it back here, once, after
    // timing.
    virtual double result() = 0;

    // The host memory a run() reads, for the CSV's pages column; empty when the input is read from
    // device memory (device backends, the host-to-device copy's pinned staging included).
    virtual Elements host_input() const { return {}; }

    // What a backend that tunes itself to the input in prepare chose (the read ceiling's loop and
    // part count), for the CSV's configuration column; empty when it chooses nothing.
    virtual std::string configuration() const { return {}; }
};

struct DeviceBackendParts;  // api/device_timing.hpp

struct Backend {
    std::string name = {};  // lower case, slash-separated, stable: "cpu/avx2/kahan", "cuda/cub"
    Device device = Device::cpu;
    std::string description = {};  // one line
    Timing timing = Timing::host_wall_clock;
    Cache cache = Cache::warm;
    int devices = 0;                 // accelerators one case uses: 0 on the host, 1 on a device (gpus column)
    bool parallel = false;           // honours PrepareOptions::threads
    bool supports_transfer = false;  // honours PrepareOptions::include_transfer
    bool batches = false;            // implements Reduction::run_batch(): rows for both timing rules
    bool multi_gpu = false;          // honours PrepareOptions::gpus: one case per --gpus count, devices ignored
    // An mpi/* backend: every MPI rank prepares it with its own shard of the input, and its calls
    // are collective (every rank makes them, in the same order). Selected by name only, never by a
    // group (all, cpu, cuda); the only kind that runs when there is more than one rank.
    bool distributed = false;

    Traits traits = {};
    // The element types prepare() takes; the sweep skips the others, naming them.
    std::vector<ElementType> element_types = {ElementType::f32};
    // The traits of inputs of a type where they differ from `traits` (a Kahan sum kept in the
    // element type: compensated_f32 for f32 input, compensated_f64 for f64 input).
    std::vector<std::pair<ElementType, Traits>> traits_by_type = {};

    // Why this backend cannot run here ("CPU lacks AVX2", "no CUDA device"), or nullopt when it can.
    // An empty function means always available.
    std::function<std::optional<std::string>()> unavailable_reason = {};
    // Why, where the backend runs, it cannot sum one of its element_types here ("the device lacks
    // cl_khr_fp64"), or nullopt. An empty function means every declared type runs.
    std::function<std::optional<std::string>(ElementType)> type_unavailable_reason = {};

    // Receives the input once, of one of element_types. Throws ResourceExhausted when the input does
    // not fit (the harness skips that size for this backend) and std::runtime_error for anything else.
    std::function<std::unique_ptr<Reduction>(Elements input, const PrepareOptions&)> prepare = {};

    // Optional: the device this backend runs on, for device backends.
    std::function<DeviceInfo()> device_info = {};

    // One-device backends timed through api/device_timing.hpp: their queue and call, for a front
    // end that times the calls itself (tools/accumulate_nvbench.cu); empty for the others.
    std::shared_ptr<const DeviceBackendParts> device_parts = {};

    std::optional<std::string> why_unavailable() const {
        return unavailable_reason ? unavailable_reason() : std::nullopt;
    }
    const Traits& traits_for(ElementType type) const {
        for (const auto& [of, t] : traits_by_type)
            if (of == type) return t;
        return traits;
    }
    bool takes(ElementType type) const {
        return std::find(element_types.begin(), element_types.end(), type) != element_types.end();
    }
    // Why this backend, available here, cannot sum inputs of a type it takes on this machine, or nullopt.
    std::optional<std::string> why_type_unavailable(ElementType type) const {
        return type_unavailable_reason ? type_unavailable_reason(type) : std::nullopt;
    }
    // Whether the sweep measures it with inputs of this type here.
    bool runs(ElementType type) const { return takes(type) && !why_type_unavailable(type); }
};

// Thrown by prepare() (or run()) when memory for this size cannot be had.
class ResourceExhausted : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Adds a backend. Returns true so that a backend file can register from a namespace-scope
// initialiser:  [[maybe_unused]] const bool registered = shootout::register_backend({...});
// Backend sources are linked as object files, never from a static archive, so the linker cannot drop
// them; tests/registry_test.cpp checks the list of names.
bool register_backend(Backend backend);

// All registered backends, sorted by name.
const std::vector<Backend>& registered_backends();

const Backend* find_backend(std::string_view name);


// A Reduction for host backends that are one function of the input: the harness times fn(input).
// A function object with a configuration() member says with it what it chose in prepare.
template <class T, class SumFunction>
class HostReduction final : public Reduction {
public:
    HostReduction(std::span<const T> input, SumFunction sum) : input_(input), sum_(std::move(sum)) {}

    std::optional<double> run() override {
        last_ = static_cast<double>(sum_(input_));
        return std::nullopt;
    }
    double result() override { return last_; }
    Elements host_input() const override { return input_; }
    std::string configuration() const override {
        if constexpr (requires { sum_.configuration(); }) return sum_.configuration();
        else return {};
    }

private:
    std::span<const T> input_;
    SumFunction sum_;
    double last_ = 0;
};

template <class T, class SumFunction>
std::unique_ptr<Reduction> make_host_reduction(std::span<const T> input, SumFunction sum) {
    return std::make_unique<HostReduction<T, SumFunction>>(input, std::move(sum));
}

}  // namespace shootout
