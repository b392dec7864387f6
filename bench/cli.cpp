#include "bench/cli.hpp"

#include <benchmark/benchmark.h>

#include "api/device_api.hpp"
#include "api/measurement_rules.hpp"
#include "api/wildcard.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <regex>
#include <thread>

namespace shootout {

namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    for (std::size_t begin = 0;;) {
        const std::size_t end = text.find(separator, begin);
        parts.push_back(text.substr(begin, end - begin));
        if (end == std::string_view::npos) return parts;
        begin = end + 1;
    }
}

std::uint64_t parse_unsigned(std::string_view text, std::string_view what) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size())
        throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not a whole number");
    return value;
}

struct Quantity {
    std::uint64_t value;
    bool bytes;
};

// "2^24", "16777216", "32MiB", "4GiB"
Quantity parse_quantity(std::string_view token, std::string_view spec) {
    auto bad = [&](const std::string& why) {
        return UsageError("--sizes=" + std::string(spec) + ": '" + std::string(token) + "' " + why);
    };
    if (token.empty()) throw bad("is empty");
    constexpr std::pair<std::string_view, int> kUnits[] = {{"KiB", 10}, {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
    for (const auto& [suffix, shift] : kUnits) {
        if (!token.ends_with(suffix)) continue;
        const std::string_view number = token.substr(0, token.size() - suffix.size());
        std::uint64_t count = 0;
        const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), count);
        if (number.empty() || error != std::errc{} || end != number.data() + number.size())
            throw bad("is not a byte size (write e.g. 32MiB, 4GiB)");
        if (count > (std::numeric_limits<std::uint64_t>::max() >> (shift + 2)))
            throw bad("is too large");
        return {count << shift, true};
    }
    for (std::string_view decimal_unit : {"KB", "MB", "GB", "TB", "B"})
        if (token.ends_with(decimal_unit)) throw bad("has an unknown unit (use KiB, MiB, GiB or TiB)");
    if (token.starts_with("2^")) {
        const std::uint64_t exponent = [&] {
            try { return parse_unsigned(token.substr(2), "exponent"); }
            catch (const UsageError&) { throw bad("is not a power of two like 2^24"); }
        }();
        if (exponent > 40) throw bad("is larger than 2^40 elements");
        return {std::uint64_t{1} << exponent, false};
    }
    try {
        return {parse_unsigned(token, "size"), false};
    } catch (const UsageError&) {
        throw bad("is not a size (write 2^24, 16777216 or 64MiB)");
    }
}

std::uint64_t to_elements(Quantity q, std::string_view token, std::string_view spec, ElementType type) {
    auto bad = [&](const std::string& why) {
        return UsageError("--sizes=" + std::string(spec) + ": '" + std::string(token) + "' " + why);
    };
    const std::uint64_t elements = q.bytes ? q.value / element_bytes(type) : q.value;  // KiB multiples: whole elements
    if (elements == 0) throw bad("is zero elements");
    if (elements > (std::uint64_t{1} << 40)) throw bad("is larger than 2^40 elements");
    return elements;
}

// --threads and --gpus. Repeated counts are dropped (first-seen order kept): two cases with one
// count would share one benchmark name, and a name must identify one case.
std::vector<int> parse_counts(std::string_view spec, std::string_view option, int most) {
    std::vector<int> counts;
    for (std::string_view part : split(spec, ',')) {
        const std::uint64_t n = parse_unsigned(part, option);
        if (n < 1 || n > static_cast<std::uint64_t>(most))
            throw UsageError(std::string(option) + ": '" + std::string(part) + "' is not between 1 and " + std::to_string(most));
        if (std::find(counts.begin(), counts.end(), static_cast<int>(n)) == counts.end()) counts.push_back(static_cast<int>(n));
    }
    return counts;
}

// The whole text as a decimal number ("1e16", "0.05", "inf"), in range. By strtod, as the
// "C" locale reads it: libc++ 16 has no from_chars for double.
bool parse_double(std::string_view text, double& value) {
    if (text.empty() || std::isspace(static_cast<unsigned char>(text.front())) || text.front() == '+' ||
        text.find_first_of("xX") != std::string_view::npos)
        return false;
    const std::string copy(text);
    char* end = nullptr;
    errno = 0;
    value = std::strtod(copy.c_str(), &end);
    return end == copy.c_str() + copy.size() && errno != ERANGE;
}

// ill:C's C: a number like 1e16, from kMinCondition to kMaxCondition.
double parse_condition(std::string_view text) {
    double c = 0;
    if (!parse_double(text, c) || !(c >= kMinCondition && c <= kMaxCondition))
        throw UsageError("--input=ill:C: '" + std::string(text) + "' is not a condition number from 1 to 1e40 (write e.g. ill:1e16)");
    return c;
}

// The --benchmark_min_time forms the linked Google Benchmark reads (CMakeLists.txt finds which).
constexpr bool kMinTimeUnits = SHOOTOUT_BENCHMARK_MIN_TIME_UNITS;
constexpr std::string_view kMinTimeForms =
    kMinTimeUnits ? "a positive time in seconds (like 0.05 or 0.05s) or count of iterations (like 100x)"
                  : "a positive time in seconds (like 0.05; Google Benchmark " SHOOTOUT_BENCHMARK_VERSION " reads no units or iteration counts)";

// Google Benchmark parses its own flags, but accepts values that measure nothing, and its output file
// is reopened for every size of a sweep (RunSpecifiedBenchmarks runs once per size), keeping only the
// last size: refuse those here, where the message can say what to do instead.
void check_benchmark_flag(const std::string& arg) {
    const std::size_t eq = arg.find('=');
    const std::string key = arg.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    if (key == "--benchmark_out" || key == "--benchmark_out_format")
        throw UsageError(key + " is not supported: Google Benchmark rewrites its output file for every size of a "
                         "sweep, so only the last size would be kept; write --json=PATH or --csv=PATH instead");
    if (key == "--benchmark_repetitions" && parse_unsigned(value, key) < 1)
        throw UsageError(key + ": '" + value + "' would measure nothing: give 1 or more");
    if (key == "--benchmark_min_time") {
        const bool iterations = kMinTimeUnits && value.ends_with('x');
        const bool unit = kMinTimeUnits && value.ends_with('s');
        const std::string_view number = std::string_view(value).substr(0, value.size() - (iterations || unit));
        double amount = 0;
        if (!parse_double(number, amount) || !std::isfinite(amount) || amount <= 0 || (iterations && amount != std::floor(amount)))
            throw UsageError(key + ": '" + value + "' is not " + std::string(kMinTimeForms));
    }
}

// The value of the last `key` flag among Google Benchmark's flags: "" for the bare flag.
std::optional<std::string> last_benchmark_flag(const std::vector<std::string>& flags, std::string_view key) {
    std::optional<std::string> value;
    for (const std::string& flag : flags) {
        if (!flag.starts_with(key)) continue;
        if (flag.size() == key.size()) value = "";
        else if (flag[key.size()] == '=') value = flag.substr(key.size() + 1);
    }
    return value;
}

// A boolean flag's value as Google Benchmark reads it (IsTruthyFlagValue): one character is true when
// it is a letter or digit other than 0, f, F, n and N; a longer value unless it is false, no or off
// in any case; no value is true.
bool benchmark_truthy(std::string_view value) {
    if (value.size() == 1)
        return std::isalnum(static_cast<unsigned char>(value[0])) && std::string_view("0fFnN").find(value[0]) == std::string_view::npos;
    std::string lower(value);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower != "false" && lower != "no" && lower != "off";
}

// "f32", "f64,f16,bf16": each type once, in the order given.
std::vector<ElementType> parse_dtypes(std::string_view value) {
    std::vector<ElementType> types;
    for (std::string_view word : split(value, ',')) {
        const std::optional<ElementType> type = element_type_named(word);
        if (!type) {
            std::string known;
            for (ElementType t : kElementTypes) known += (known.empty() ? "" : ", ") + std::string(to_string(t));
            throw UsageError("--dtype: '" + std::string(word) + "' is not an element type (" + known + ")");
        }
        if (std::find(types.begin(), types.end(), *type) != types.end())
            throw UsageError("--dtype: '" + std::string(word) + "' is named twice");
        types.push_back(*type);
    }
    return types;
}

InputSpec parse_input(std::string_view value, InputSpec spec) {
    if (value == "ones") spec.distribution = Distribution::ones;
    else if (value == "uniform") spec.distribution = Distribution::uniform;
    else if (value == "normal") spec.distribution = Distribution::normal;
    else if (value.starts_with("ill:")) {
        spec.distribution = Distribution::ill_conditioned;
        spec.condition = parse_condition(value.substr(4));
    } else if (value == "wide") spec.distribution = Distribution::wide;
    else if (value == "cancel") spec.distribution = Distribution::cancel;
    else if (value.starts_with("file:") && value.size() > 5) spec.file = std::string(value.substr(5));
    else throw UsageError("--input: '" + std::string(value) + "' is not ones, uniform, normal or file:PATH, nor a hard input: ill:C, wide or cancel");
    return spec;
}

}  // namespace

std::vector<std::uint64_t> parse_sizes(std::string_view spec, ElementType type) {
    if (spec.empty()) throw UsageError("--sizes: empty (write e.g. 2^10..2^26)");
    std::vector<std::uint64_t> sizes;
    for (std::string_view part : split(spec, ',')) {
        const std::size_t dots = part.find("..");
        if (dots == std::string_view::npos) {
            sizes.push_back(to_elements(parse_quantity(part, spec), part, spec, type));
            continue;
        }
        const std::string_view first = part.substr(0, dots), last = part.substr(dots + 2);
        const std::uint64_t lo = to_elements(parse_quantity(first, spec), first, spec, type);
        const std::uint64_t hi = to_elements(parse_quantity(last, spec), last, spec, type);
        if (!std::has_single_bit(lo) || !std::has_single_bit(hi))
            throw UsageError("--sizes=" + std::string(spec) + ": both ends of the range '" + std::string(part) +
                             "' must be powers of two elements");
        if (lo > hi) throw UsageError("--sizes=" + std::string(spec) + ": the range '" + std::string(part) + "' runs backwards");
        for (std::uint64_t n = lo; n <= hi; n *= 2) sizes.push_back(n);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

std::vector<const Backend*> select_backends(std::string_view spec) {
    const auto& all = registered_backends();
    std::vector<const Backend*> chosen;
    auto add = [&](const Backend& b) {
        if (std::find(chosen.begin(), chosen.end(), &b) == chosen.end()) chosen.push_back(&b);
    };
    for (std::string_view part : split(spec, ',')) {
        const std::string pattern(part);
        bool matched = false;
        for (const auto& backend : all) {
            const bool in_group = !backend.distributed && (pattern == "all" || pattern == to_string(backend.device));
            const bool hit = in_group || wildcard_match(pattern, backend.name);
            if (hit) { add(backend); matched = true; }
        }
        if (const DeviceApi* api = unbuilt_api_named_by(pattern))
            throw UsageError("--backend: '" + pattern + "': this build has no " + std::string(api->device.name()) +
                             " backends: " + *api->unbuilt);
        const bool group = std::any_of(device_apis().begin(), device_apis().end(),
                                       [&](const DeviceApi& api) { return pattern == api.device.name(); });
        if (!matched && !group) {
            std::string message = "--backend: '" + pattern + "' names no backend. Valid names (globs like cpu/avx2/* work too):";
            for (const auto& backend : all) message += "\n  " + backend.name;
            message += "\nand the groups: all";
            for (const DeviceApi& api : device_apis()) message += ", " + std::string(api.device.name());
            throw UsageError(message);
        }
    }
    std::sort(chosen.begin(), chosen.end(), [](const Backend* a, const Backend* b) { return a->name < b->name; });
    return chosen;
}

// A positive decimal number, for --max-noise and --max-noise-seconds.
double parse_positive(const std::string& text, const std::string& what) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(value > 0) || !std::isfinite(value))
        throw UsageError(what + ": '" + text + "' is not a positive number");
    return value;
}

// --sizes=per-thread:SPEC
constexpr std::string_view kPerThread = "per-thread:";

Options parse_command_line(const std::vector<std::string>& args) {
    Options options;
    std::string sizes_spec(kDefaultSizes);
    bool sizes_given = false;
    for (const std::string& arg : args) {
        if (arg.starts_with("--benchmark_")) {
            check_benchmark_flag(arg);
            options.benchmark_flags.push_back(arg);
            continue;
        }
        const std::size_t eq = arg.find('=');
        const std::string key = arg.substr(0, eq);
        const bool has_value = eq != std::string::npos;
        const std::string value = has_value ? arg.substr(eq + 1) : "";
        auto need_value = [&] {
            if (!has_value || value.empty()) throw UsageError(key + " needs a value: " + key + "=...");
        };
        auto no_value = [&] {
            if (has_value) throw UsageError(key + " takes no value");
        };
        if (key == "--help" || key == "-h") { no_value(); options.help = true; }
        else if (key == "--list") { no_value(); options.list = true; }
        else if (key == "--machine") { no_value(); options.machine = true; }
        else if (key == "--version") { no_value(); options.version = true; }
        else if (key == "--columns") { no_value(); options.columns = true; }
        else if (key == "--include-transfer") { no_value(); options.include_transfer = true; }
        else if (key == "--retune") { no_value(); options.tune = TuneMode::force; }
        else if (key == "--tune") {
            need_value();
            options.tune = parse_tune_mode(value);
            if (!options.tune) throw UsageError("--tune: '" + value + "' is not off, auto or force");
        }
        else if (key == "--backend") { need_value(); options.backends = value; }
        else if (key == "--sizes") {
            need_value();
            options.sizes_per_thread = value.starts_with(kPerThread);
            sizes_spec = options.sizes_per_thread ? value.substr(kPerThread.size()) : value;
            sizes_given = true;
        }
        else if (key == "--input") { need_value(); options.input = parse_input(value, options.input); }
        else if (key == "--seed") { need_value(); options.input.seed = parse_unsigned(value, "--seed"); }
        else if (key == "--threads") { need_value(); options.threads = parse_counts(value, "--threads", 4096); }
        else if (key == "--gpus") { need_value(); options.gpus = parse_counts(value, "--gpus", 1024); }
        else if (key == "--dtype") { need_value(); options.dtypes = parse_dtypes(value); options.dtype_given = true; }
        else if (key == "--csv") { need_value(); options.csv_path = value; }
        else if (key == "--json") { need_value(); options.json_path = value; }
        else if (key == "--write-input") { need_value(); options.write_input = value; }
        else if (key == "--max-noise") { need_value(); options.max_noise = parse_positive(value, key) / 100; }
        else if (key == "--max-noise-seconds") { need_value(); options.max_noise_seconds = parse_positive(value, key); }
        else throw UsageError("unknown option '" + arg + "' (see --help)");
    }
    if (!options.write_input.empty() && (!options.csv_path.empty() || !options.json_path.empty()))
        throw UsageError("--write-input writes the inputs, not measurements: leave out --csv and --json");
    if (!options.input.file.empty()) {
        if (sizes_given) throw UsageError("--sizes cannot be combined with --input=file:PATH: the file's length is the size");
        if (options.dtypes.size() > 1)
            throw UsageError("--dtype: a file input holds one element type; give one (or none: an .npy file's header says it)");
    } else {
        options.sizes_spec = sizes_spec;
        options.sizes = parse_sizes(sizes_spec, options.dtypes.front());
    }
    if (options.threads.empty()) options.threads = {static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
    const std::optional<std::string> list_tests = last_benchmark_flag(options.benchmark_flags, "--benchmark_list_tests");
    options.list_cases = list_tests && benchmark_truthy(*list_tests);
    return options;
}

std::string usage() {
    std::string types, groups;
    for (ElementType type : kElementTypes) types += (types.empty() ? "" : ", ") + std::string(to_string(type));
    for (const DeviceApi& api : device_apis()) groups += (groups.empty() ? "" : ", ") + std::string(api.device.name());
    return R"(accumulate_bench: sums arrays ()" + types + R"() every way it knows and reports, per size and
element type, GB/s and the relative rounding error against the exact sum.

Usage: accumulate_bench [options] [--benchmark_* flags]

  --backend=LIST     all (default), a device API's group ()" + groups + R"(), or comma-separated
                     names and shell globs (cpu/avx2/*,cuda/cub). An unknown name exits with the list
                     of valid ones; a backend named (not by a group or glob) that cannot run here makes
                     the exit status 1. The groups leave out the mpi/* backends, which run under
                     mpirun: name them (--backend='mpi/*'). Under mpirun with more than one rank only
                     mpi/* run, and only rank 0 prints and writes rows (README.md, "Running on a cluster").
  --list             list every backend, available or not (with the reason), and exit
  --machine          print this machine's identity (host name and a hardware fingerprint, the
                     CSV's machine column and scripts/run.sh's results file name) and exit
  --version          print the build's version (git describe --always --dirty when built; the
                     CSV's version column) and exit
  --columns          print the CSV columns as JSON (name, kind, printf pattern, may be empty; the
                     headers older versions wrote) and exit: report/columns.json holds the same
  --sizes=SPEC       element counts: a power-of-two sweep 2^10..2^30 (both ends included), one size
                     (2^24 or 16777216), byte sizes (32MiB..4GiB), or a comma-separated list of these.
                     Default: )" + std::string(kDefaultSizes) + R"(. A size that does not fit in memory is skipped, named.
  --sizes=per-thread:SPEC
                     SPEC counts elements per thread: each thread count T of --threads runs at
                     T x each size, serial backends at each size (for dispatch latency:
                     --sizes=per-thread:16 --threads=1,2,4,8 is 16 floats, one cache line, per thread).
  --input=KIND       ones | uniform (default; [0,1)) | normal (mean 0, sd 1) | file:PATH, or a hard one:
                     ill:C (condition number about C, e.g. ill:1e16) | wide (every binade, both signs,
                     subnormals) | cancel (large +x, -x pairs and small values in [0,1))
                     file:PATH reads a regular file of raw little-endian values (--dtype), or a
                     float32, float64 or float16 .npy file (one that starts with the .npy magic,
                     whatever its name); its length is the size, so --sizes does not apply. A file
                     too large for memory is skipped.
  --dtype=T[,T..]    element types: f32 (default), f64, f16 (IEEE binary16), bf16 (bfloat16); a list
                     sweeps them. Each backend takes the types --list shows; the others are skipped
                     for that type, named. A raw input file holds the one type given (f32 if none);
                     an .npy file's header sets it, and a --dtype that differs is refused (bfloat16
                     has no .npy dtype: raw files only). Byte sizes in --sizes count bytes of each type.
  --seed=N           seed of the generated inputs (default 42); same seed, same values, any machine
  --threads=N[,N..]  threads for the parallel backends (default: all hardware threads); a list
                     sweeps them, for scaling curves
  --gpus=N[,N..]     GPUs for the multi-GPU backends (nccl/*; default: every visible GPU); a list
                     sweeps them. A count above the visible GPUs is skipped, named (exit status 1)
  --include-transfer also time device backends with the host->device copy from pinned memory and
                     the result's copy back inside the timed region (device column cuda+h2d)
  --tune=MODE        launch shapes of the portable kernels (opencl/*, vulkan/*): auto (default;
                     $SHOOTOUT_TUNE sets another) reads the user's cache, and on a device it has
                     not seen tunes them (a few seconds a kernel, once); off runs the defaults;
                     force tunes again. The configuration column names the shape and its source
  --retune           --tune=force
  --csv=PATH         append one row per measurement; a new file gets the header, an existing one
                     must start with this version's header (each row is written under a lock)
  --json=PATH        write all measurements as one JSON document, replaced whole (by rename) after
                     each measurement; NaN and infinities are the strings "nan", "inf", "-inf".
                     One run writes a path at a time: a second run naming it stops (exit status 2).
                     Both take a regular file or a new name (no FIFOs or devices, /dev/null
                     included), never one file for both or the input file.
  --write-input=DIR  measure nothing: write each input the sweep would sum (--sizes, --dtype,
                     --input, --seed) to DIR as an .npy file, and DIR/inputs.json with each one's
                     exact sum, the CSV columns, this machine and the measurement rules, for the
                     framework runner (README.md, "Framework rows")
  --max-noise=PCT    repeat each case, in further rounds of its repetitions, until the spread of its
                     times (1.4826 x MAD / median, the CSV's spread) is below PCT percent or it has
                     spent --max-noise-seconds=S (default )" + std::to_string(static_cast<int>(rules::kMaxNoiseSeconds)) + R"() in timed repetitions; the row's
                     reps says how many it took, noisy=yes that the time ran out first
  --help             this text

What is measured, per (backend, size, element type, input, threads, timing): the measurement rules are stated
once, in results/README.md ("How a number is taken"). In short:
  time     median over --benchmark_repetitions (default 5) of the time per call, after a warm-up;
           the repetitions of a size's cases run interleaved, in random order.
           CPU: wall clock around the call, same input every call (cache: warm). GPU: device
           timestamps, inputs rotating past 4x L2 (cache: cold), as one call waited on (isolated)
           and as K calls back to back, time / K (batched).
  GB/s     input bytes (n x the element type's size) / median time, decimal (1 GB = 1e9 bytes).
  error    |result - S| / |S|, S the exact sum (superaccumulator); absolute error when S = 0;
           nan when the input holds NaN or Inf; inf when the input is finite and the result
           is not (the backend overflowed).

Google Benchmark's flags (--benchmark_filter, --benchmark_repetitions, --benchmark_min_time,
--benchmark_min_warmup_time, ...) keep working. --benchmark_min_time takes
)" + std::string(kMinTimeForms) + R"(.
--benchmark_filter is a POSIX extended regular expression (a leading - excludes what it matches)
over the cases' names, which --benchmark_list_tests prints without measuring anything:
  cpu/serial/accumulate-f32/n:1048576/dtype:f32/input:uniform/threads:1/real_time
  cuda/cub/n:1048576/dtype:f32/input:uniform/threads:1/batched/manual_time
(host-timed backends end in /real_time, device-timed ones in /manual_time). --benchmark_out and
--benchmark_out_format are refused: the library rewrites that file for every size, so it would hold
the last size only; --json=PATH and --csv=PATH hold every measurement.

Exit status: 0 all ran; 1 something was skipped or failed (each is named; memory or threads that
could not be had skip the size or the backend), a backend named in --backend cannot run here, or
writing an output, standard output included, failed; 2 a bad command line (on any rank under
mpirun), a bad input file, or an output path that cannot be used, found before anything runs.
)";
}

// The rules' defaults first, so that the user's flags win; but no rank of several may interleave:
// Google Benchmark shuffles with a seed of its own on each.
std::vector<std::string> benchmark_arguments(const std::string& program, const std::vector<std::string>& user_flags, int ranks) {
    const std::optional<std::string> interleave = last_benchmark_flag(user_flags, rules::kInterleaveFlag);
    if (ranks > 1 && interleave && benchmark_truthy(*interleave))
        throw UsageError(std::string(rules::kInterleaveFlag) + (interleave->empty() ? "" : "=" + *interleave) + " under mpirun with " +
                         std::to_string(ranks) + " ranks: each rank would shuffle the cases its own way and wait in another case's collectives");
    std::vector<std::string> args = {program};
    const std::vector<std::string> defaults = rules::benchmark_defaults(ranks);
    args.insert(args.end(), defaults.begin(), defaults.end());
    args.insert(args.end(), user_flags.begin(), user_flags.end());
    return args;
}

void initialize_benchmark(const std::string& program, const std::vector<std::string>& user_flags, int ranks) {
    std::vector<std::string> args = benchmark_arguments(program, user_flags, ranks);
    std::vector<char*> pointers;
    for (std::string& arg : args) pointers.push_back(arg.data());
    int count = static_cast<int>(pointers.size());
    benchmark::Initialize(&count, pointers.data());
    if (count > 1) throw UsageError(std::string("unknown Google Benchmark flag '") + pointers[1] + "'");
    // The filter as the library compiles it (src/re.h: std::regex, POSIX extended; a leading '-'
    // negates): a filter it cannot compile would match nothing, after every input had been made.
    std::string filter = benchmark::GetBenchmarkFilter();
    if (filter.starts_with('-')) filter.erase(0, 1);
    // An empty filter is no regex at all: the library runs every case (and libc++ refuses an empty ERE).
    if (!filter.empty()) {
        try {
            const std::regex compiled(filter, std::regex::extended);
        } catch (const std::regex_error& e) {
            throw UsageError("--benchmark_filter=" + benchmark::GetBenchmarkFilter() +
                             ": not a regular expression Google Benchmark reads (POSIX extended): " + e.what());
        }
    }
}

bool names_backend(std::string_view spec, std::string_view name) {
    for (std::string_view entry : split(spec, ','))
        if (entry == name) return true;
    return false;
}

}  // namespace shootout
