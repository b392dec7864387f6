// The sweep, in four stages per size: plan the cases (sweep_plan), make the input and its exact sum
// (below), time every case (case_timer), and record each finished case as a Measurement for the
// reporters (below). Under MPI every rank runs the same sweep on its own shard of each input
// (mpi_world.hpp); the distributed backends' calls meet in collectives, and only rank 0's reporters
// and progress lines exist (main.cpp).
#include "bench/runner.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <thread>

#include "bench/case_timer.hpp"
#include "bench/cli.hpp"
#include "exact/exact_sum.hpp"
#include "api/measurement_rules.hpp"
#include "api/mpi_world.hpp"
#include "report/reporters.hpp"
#include "report/size_text.hpp"
#include "bench/sweep_plan.hpp"
#include "bench/system_info.hpp"

namespace shootout {

namespace {

// "n=2^20 (4 MiB)", with the element type where it is not the default.
std::string input_name(std::uint64_t n, ElementType type) {
    return "n=" + describe_size(n, type) + (type == ElementType::f32 ? "" : " dtype=" + std::string(to_string(type)));
}

// Input: this rank's shard of the generated values for one size and type (all of them on one
// rank), or nothing (with the reason printed) when they cannot be had. Shard bytes plus room for
// what the backends and the system take alongside them must fit.
std::optional<HostArray> generate_input(const InputSpec& spec, std::uint64_t n, ElementType type, std::ostream& err) {
    const Shard shard = shard_of(n, mpi::world().rank, mpi::world().size);
    const double bytes = static_cast<double>(input_bytes(type, shard.size()));
    if (bytes > 0.8 * static_cast<double>(platform::available_memory_bytes())) {
        err << "skipping " << input_name(n, type) << ": the input needs " << gib(bytes) << " of host memory and "
            << gib(static_cast<double>(platform::available_memory_bytes())) << " is available\n";
        return std::nullopt;
    }
    try {
        HostArray values(type, shard.size());
        fill(values, spec, n, shard.begin);
        return values;
    } catch (const std::bad_alloc&) {
        err << "skipping " << input_name(n, type) << ": allocating " << gib(bytes) << " of host memory failed\n";
        return std::nullopt;
    }
}

// One line per element type of the sweep (--dtype's, or the input file's) naming the selected
// backends that do not take it, and one per backend that takes it but cannot sum it here, with the
// reason: skipped, not failed.
void name_skipped_types(const Options& planned, const std::vector<const Backend*>& backends, std::ostream& out) {
    for (ElementType type : planned.dtypes) {
        const std::string asked = planned.input.file.empty() ? "--dtype=" + std::string(to_string(type))
                                                             : "the input file's " + std::string(to_string(type)) + " values";
        std::string names;
        for (const Backend* backend : backends)
            if (!backend->takes(type)) names += (names.empty() ? "" : ", ") + backend->name;
        if (!names.empty()) out << "not measured with " << asked << " (they do not take it): " << names << '\n';
        for (const Backend* backend : backends)
            if (const auto reason = backend->takes(type) ? backend->why_type_unavailable(type) : std::nullopt)
                out << "not measured with " << asked << ": " << backend->name << ": " << *reason << '\n';
    }
}

// The configuration column: the one configuration every prepare chose, or each with its count,
// "schedule=pinned parts=2 loop=avx512/f32 (7 of 9); schedule=pinned parts=1 loop=avx512/f32 (2 of 9)".
std::string describe_configurations(const std::vector<std::pair<std::string, int>>& seen) {
    if (seen.size() == 1) return seen.front().first;
    int prepares = 0;
    for (const auto& entry : seen) prepares += entry.second;
    std::string text;
    for (const auto& [configuration, count] : seen) {
        if (!text.empty()) text += "; ";
        text += (configuration.empty() ? std::string("(none)") : configuration) + " (" + std::to_string(count) + " of " +
                std::to_string(prepares) + ")";
    }
    return text;
}

// What every row of this run shares.
struct RunContext {
    std::string host, cpu, compiler, build, machine, version;
    std::map<const Backend*, DeviceInfo> device_info;
    platform::CpuContext cpu_context;
};

// Record: one finished case as a row.
Measurement record(const RunContext& run, const Options& options, const Case& c, const CaseOutcome& outcome,
                   const CaseTiming& timing, std::uint64_t n, const ExactAccumulator& exact) {
    const auto device = run.device_info.find(c.backend);
    const bool on_device = device != run.device_info.end();
    const Traits& traits = c.backend->traits_for(c.dtype);
    const std::uint64_t bytes = input_bytes(c.dtype, n);
    const double result = outcome.result.value_or(0);
    return {
        .timestamp = utc_timestamp(), .host = run.host, .cpu = run.cpu, .gpu = on_device ? device->second.name : "",
        .compiler = run.compiler, .build = run.build, .backend = c.backend->name,
        .device = std::string(to_string(c.backend->device)) + (c.include_transfer ? "+h2d" : ""),
        .threads = c.threads, .input = options.input.label(),
        .seed = options.input.file.empty() ? std::optional(options.input.seed) : std::nullopt,
        .n = n, .bytes = bytes,
        .gbps = rules::gbps(bytes, timing.median_ns),
        .time_ns_median = timing.median_ns, .time_ns_min = timing.min_ns, .iterations = timing.calls,
        .result = result, .exact = exact.round(), .rel_error = relative_error(result, exact),
        .peak_gbps = on_device ? device->second.peak_gbps : 0,
        .machine = run.machine, .timing = std::string(to_string(c.timing)), .batch = c.batch,
        .cache = std::string(to_string(c.backend->cache)),
        .accumulator = std::string(to_string(traits.accumulator)), .order = std::string(to_string(traits.order)),
        .reproducibility = std::string(to_string(traits.reproducibility)), .role = std::string(to_string(traits.role)),
        .reproducible = {},  // observed across the run's cases: filled in by the sweep
        .gpus = c.gpus, .ranks = mpi::world().size,
        .pages = outcome.pages.value_or(""), .configuration = describe_configurations(outcome.configurations),
        .dtype = c.dtype,
        .energy_j = outcome.energy ? outcome.energy->joules : std::nullopt,
        .version = run.version,
        .spread = timing.spread,
        .reps = static_cast<int>(timing.repetitions_ns.size()),
        .noisy = timing.spread ? (*timing.spread > options.max_noise.value_or(rules::kNoisySpread) ? "yes" : "no") : "",
        .throttled = timing.throttled, .sm_clock_mhz = timing.sm_mhz, .mem_clock_mhz = timing.memory_mhz,
        .governor = run.cpu_context.governor, .turbo = run.cpu_context.turbo, .load1 = run.cpu_context.load1,
        .repetitions_ns = timing.repetitions_ns,
    };
}

// "1h02m", "6m40s", "12s".
std::string duration_text(double seconds) {
    const auto whole = static_cast<long long>(std::max(0.0, seconds) + 0.5);
    char text[32];
    if (whole >= 3600) std::snprintf(text, sizeof text, "%lldh%02lldm", whole / 3600, whole / 60 % 60);
    else if (whole >= 60) std::snprintf(text, sizeof text, "%lldm%02llds", whole / 60, whole % 60);
    else std::snprintf(text, sizeof text, "%llds", whole);
    return text;
}

}  // namespace

void ProgressEstimate::size_done(std::uint64_t bytes, std::size_t cases, double seconds) {
    if (cases) done_.push_back({static_cast<double>(bytes), static_cast<double>(cases), seconds});
}

std::optional<double> ProgressEstimate::seconds_for(std::uint64_t bytes, std::size_t cases) const {
    if (done_.empty()) return std::nullopt;
    // Least squares of the time per case against bytes, each size weighted by its case count.
    double w = 0, x = 0, y = 0, xx = 0, xy = 0;
    for (const Size& size : done_) {
        const double per_case = size.seconds / size.cases;
        w += size.cases;
        x += size.cases * size.bytes;
        y += size.cases * per_case;
        xx += size.cases * size.bytes * size.bytes;
        xy += size.cases * size.bytes * per_case;
    }
    const double mean = y / w, determinant = w * xx - x * x;
    double per_case = mean;
    if (determinant > 0) {
        const double b = (w * xy - x * y) / determinant, a = (y - b * x) / w;
        if (a >= 0 && b >= 0) per_case = a + b * static_cast<double>(bytes);
    }
    return per_case * static_cast<double>(cases);
}

std::string progress_estimate_line(std::size_t done, std::size_t total, double elapsed, std::optional<double> left) {
    return std::to_string(done) + "/" + std::to_string(total) + " cases, " + duration_text(elapsed) + " elapsed" +
           (left ? ", about " + duration_text(*left) + " left" : "");
}

std::vector<std::string> unavailable_lines(const std::vector<std::pair<std::string, std::string>>& unavailable,
                                           const std::vector<std::string>& registered) {
    const auto prefix = [](const std::string& name) { return name.substr(0, name.find('/')); };
    std::vector<std::string> reasons;
    std::map<std::string, std::vector<std::string>> names_by_reason;
    for (const auto& [name, reason] : unavailable) {
        auto& names = names_by_reason[reason];
        if (names.empty()) reasons.push_back(reason);
        names.push_back(name);
    }
    std::vector<std::string> lines;
    for (const std::string& reason : reasons) {
        const std::vector<std::string>& names = names_by_reason[reason];
        if (names.size() == 1) {
            lines.push_back("unavailable here: " + names.front() + ": " + reason);
            continue;
        }
        const std::set<std::string> sharing(names.begin(), names.end());
        std::string listed;
        std::set<std::string> prefixes_listed;
        for (const std::string& name : names) {
            const std::string group = prefix(name);
            const bool whole = group != name && std::all_of(registered.begin(), registered.end(), [&](const std::string& other) {
                return prefix(other) != group || sharing.count(other);
            });
            if (whole && !prefixes_listed.insert(group).second) continue;
            listed += (listed.empty() ? "" : ", ") + (whole ? group + "/*" : name);
        }
        lines.push_back("unavailable here: " + listed + " (" + std::to_string(names.size()) + " backends): " + reason);
    }
    return lines;
}

int run_sweep(const Options& options, const std::vector<const Backend*>& selected, std::ostream& out, std::ostream& err) {
    int status = 0;
    std::vector<const Backend*> backends;
    std::vector<std::pair<std::string, std::string>> unavailable;
    for (const Backend* backend : selected) {
        std::optional<std::string> reason = backend->why_unavailable();
        if (!reason && !backend->distributed && mpi::world().size > 1)
            reason = "runs in one process, and each of the " + std::to_string(mpi::world().size) +
                     " ranks would run it whole: under mpirun only mpi/* backends run";
        if (!reason) {
            backends.push_back(backend);
            continue;
        }
        unavailable.emplace_back(backend->name, *reason);
        // Named, not picked by a group or a glob: something asked for is not measured.
        if (names_backend(options.backends, backend->name)) status = 1;
    }
    std::vector<std::string> registered;
    for (const Backend& backend : registered_backends()) registered.push_back(backend.name);
    for (const std::string& line : unavailable_lines(unavailable, registered)) out << line << '\n';
    if (backends.empty()) {
        err << "accumulate_bench: none of the selected backends can run on this machine (see above)\n";
        return 1;
    }

    // The output files and this rank's shard of a file input: a path or a file that cannot be used on
    // any rank stops every rank (exit status 2) before the first collective call. A listing writes no file.
    std::vector<std::unique_ptr<Reporter>> reporters;
    HostArray file_input;
    mpi::agree([&] {
        if (!options.list_cases)
            reporters = open_reporters({.csv = options.csv_path, .json = options.json_path, .input = options.input.file});
        if (!options.input.file.empty()) {
            const auto asked = options.dtype_given ? std::optional(options.dtypes.front()) : std::nullopt;
            file_input = read_float_file(options.input.file, asked, mpi::world().rank, mpi::world().size);
        }
    });
    // A file input is the sweep's one input, of the file's length and type.
    Options planned = options;
    if (!options.input.file.empty()) {
        planned.sizes = {mpi::sum(file_input.size())};
        planned.sizes_spec.clear();
        planned.dtypes = {file_input.type()};
    }

    RunContext run{.host = host_name(), .cpu = cpu_model(), .compiler = compiler_version(), .build = build_type(),
                   .machine = machine_identity(), .version = build_version(), .device_info = {},
                   .cpu_context = platform::cpu_context()};
    std::map<const Backend*, int> visible_gpus;
    for (const Backend* backend : backends) {
        if (backend->device_info) run.device_info[backend] = backend->device_info();
        if (!backend->multi_gpu) continue;
        const int visible = run.device_info[backend].visible;
        visible_gpus[backend] = visible;
        for (int gpus : gpu_counts(options, visible))
            if (gpus > visible) {
                out << "skipped: " << backend->name << " --gpus=" << gpus << ": only " << visible << " GPU"
                    << (visible == 1 ? " is" : "s are") << " visible\n";
                status = 1;
            }
    }
    // Rank 0 speaks for the run: the other ranks print nothing.
    if (mpi::is_root()) reporters.push_back(std::make_unique<SummaryReporter>(out));
    name_skipped_types(planned, backends, out);

    const bool filtered = benchmark::GetBenchmarkFilter() != "." && !benchmark::GetBenchmarkFilter().empty();
    const std::string no_case = filtered ? ": --benchmark_filter=" + benchmark::GetBenchmarkFilter() + " matches no case" : "";
    std::list<PlannedInput> plan = plan_sweep(backends, planned, visible_gpus);
    if (options.list_cases) {
        // Google Benchmark prints each case's name as a filter matches it; no input is made, nothing runs.
        std::size_t listed = 0;
        if (mpi::is_root())
            for (auto& [n, dtype, cases] : plan) listed += time_cases(cases, {}, [](const Case&, const CaseOutcome&, const CaseTiming&) {});
        if (listed == 0 && mpi::is_root()) {
            err << "accumulate_bench: no case to list" << no_case << '\n';
            return 1;
        }
        return status;
    }
    // Google Benchmark's context warnings, once per run that measures (its console reporter, which would print
    // them, is replaced by the case timer's).
    for (const std::string& warning : context_warnings(run.cpu_context, run.build, std::max(1u, std::thread::hardware_concurrency())))
        err << warning << '\n';
    for (PlannedInput& planned_input : plan) keep_filtered(planned_input.cases, benchmark::GetBenchmarkFilter());
    std::erase_if(plan, [](const PlannedInput& planned_input) { return planned_input.cases.empty(); });
    std::size_t total = 0;
    for (const PlannedInput& planned_input : plan) total += planned_input.cases.size();
    std::size_t done = 0, measured = 0;
    std::set<std::string> energy_notes;  // why a device's rows have no energy or clocks, said once each
    // The stderr progress line: refreshed in place on a terminal, one line per case elsewhere.
    const auto started = std::chrono::steady_clock::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(); };
    const bool refresh = &err == &std::cerr && platform::is_terminal(2);
    ProgressEstimate estimate;
    const auto seconds_left = [&](const std::list<PlannedInput>::iterator& from, std::size_t left_in_this_size) {
        std::optional<double> left;
        for (auto later = from; later != plan.end(); ++later) {
            const std::size_t cases = later == from ? left_in_this_size : later->cases.size();
            const auto more = estimate.seconds_for(input_bytes(later->dtype, later->n), cases);
            if (more) left = left.value_or(0) + *more;
        }
        return left;
    };

    for (auto planned_input = plan.begin(); planned_input != plan.end(); ++planned_input) {
        auto& [n, dtype, cases] = *planned_input;
        const double size_started = elapsed();
        const std::size_t done_before = done;
        std::optional<HostArray> generated;
        Elements input = file_input.elements();
        if (options.input.file.empty()) {
            generated = generate_input(options.input, n, dtype, err);
            // Every rank skips the input when one cannot have its shard: the others would wait in
            // its collectives for ever.
            if (!mpi::all(generated.has_value())) {
                if (generated) err << "skipping " << input_name(n, dtype) << ": another rank cannot have its shard\n";
                done += cases.size();
                status = 1;
                continue;
            }
            input = generated->elements();
        }
        // The exact sum of the whole input: the ranks' shards' exact sums, summed exactly.
        auto words = exact_sum(input).words();
        mpi::sum(words);  // the ranks' accumulators summed word by word: exact (exact/exact_sum.hpp)
        const ExactAccumulator exact = ExactAccumulator::from_words(words);
        // Reproducibility, as observed: the bits of each backend's first result on this input, which
        // every repetition, thread count and timing rule must give again.
        std::map<std::pair<const Backend*, bool>, std::uint64_t> first_bits;

        time_cases(cases, input, [&](const Case& c, const CaseOutcome& outcome, const CaseTiming& timing) {
            const std::string counter = progress_counter(++done, total);
            if (refresh) err << "\r\033[K" << std::flush;  // what stdout prints next takes the refreshed line's place
            if (!timing.error.empty()) {
                (outcome.exhausted ? out : err) << counter << ' ' << c.name << (outcome.exhausted ? ": skipped: " : ": FAILED: ")
                                                << timing.error << '\n';
                status = 1;
                return;
            }
            Measurement m = record(run, options, c, outcome, timing, n, exact);
            const std::uint64_t bits = std::bit_cast<std::uint64_t>(m.result);
            const auto [first, inserted] = first_bits.try_emplace({c.backend, c.include_transfer}, bits);
            m.reproducible = outcome.same_bits_every_repetition && first->second == bits ? "yes" : "no";
            ++measured;
            if (outcome.energy && !outcome.energy->missing.empty()) {
                const std::string note = "energy_j left empty on " + std::string(to_string(c.backend->device)) + ": " + outcome.energy->missing;
                if (energy_notes.insert(note).second) out << note << '\n';
            }
            if (outcome.clocks_missing.size()) {
                const std::string note = "sm_clock_mhz, mem_clock_mhz and throttled left empty on " + std::string(to_string(c.backend->device)) +
                                         ": " + outcome.clocks_missing;
                if (energy_notes.insert(note).second) out << note << '\n';
            }
            out << progress_line(done, total, m) << std::endl;
            err << progress_estimate_line(done, total, elapsed(),
                                          done < total ? seconds_left(planned_input, cases.size() - (done - done_before)) : std::nullopt)
                << (refresh ? "" : "\n") << std::flush;
            for (const auto& reporter : reporters) reporter->report(m);
        }, {.max_noise = options.max_noise, .max_noise_seconds = options.max_noise_seconds});
        estimate.size_done(input_bytes(dtype, n), done - done_before, elapsed() - size_started);
    }
    if (refresh) err << '\n';
    if (measured == 0 && status == 0) {
        err << "accumulate_bench: nothing was measured" << no_case << '\n';
        return 1;
    }
    for (const auto& reporter : reporters) reporter->finish();
    return status;
}

}  // namespace shootout
