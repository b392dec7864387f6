// The sweep, in four stages per size: plan the cases (sweep_plan), make the input and its exact sum
// (below), time every case (case_timer), and record each finished case as a Measurement for the
// reporters (below).
#include "runner.hpp"

#include <benchmark/benchmark.h>

#include <bit>
#include <cstdio>
#include <map>
#include <optional>
#include <ostream>

#include "case_timer.hpp"
#include "exact_sum.hpp"
#include "measurement_rules.hpp"
#include "reporters.hpp"
#include "sweep_plan.hpp"
#include "system_info.hpp"

namespace shootout {

namespace {

std::string gib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    return text;
}

// Input: the generated floats for one size, or nothing (with the reason printed) when they cannot be
// had. Input bytes plus room for what the backends and the system take alongside them must fit.
std::optional<HostArray> generate_input(const InputSpec& spec, std::uint64_t n, std::ostream& err) {
    const double bytes = static_cast<double>(n * sizeof(float));
    if (bytes > 0.8 * static_cast<double>(available_memory_bytes())) {
        err << "skipping n=" << describe_size(n) << ": the input needs " << gib(bytes) << " of host memory and "
            << gib(static_cast<double>(available_memory_bytes())) << " is available\n";
        return std::nullopt;
    }
    try {
        HostArray values(n);
        fill(values.span(), spec.distribution, spec.seed);
        return values;
    } catch (const std::bad_alloc&) {
        err << "skipping n=" << describe_size(n) << ": allocating " << gib(bytes) << " of host memory failed\n";
        return std::nullopt;
    }
}

// What every row of this run shares.
struct RunContext {
    std::string host, cpu, compiler, build, machine;
    std::map<const Backend*, DeviceInfo> device_info;
};

// Record: one finished case as a row.
Measurement record(const RunContext& run, const Options& options, const Case& c, const CaseOutcome& outcome,
                   const CaseTiming& timing, std::span<const float> input, const ExactAccumulator& exact) {
    const auto device = run.device_info.find(c.backend);
    const bool on_device = device != run.device_info.end();
    const Traits& traits = c.backend->traits;
    const double result = outcome.result.value_or(0);
    return {
        .timestamp = utc_timestamp(), .host = run.host, .cpu = run.cpu, .gpu = on_device ? device->second.name : "",
        .compiler = run.compiler, .build = run.build, .backend = c.backend->name,
        .device = std::string(to_string(c.backend->device)) + (c.include_transfer ? "+h2d" : ""),
        .threads = c.threads, .input = options.input.label(),
        .seed = options.input.file.empty() ? std::optional(options.input.seed) : std::nullopt,
        .n = input.size(), .bytes = input.size_bytes(),
        .gbps = rules::gbps(input.size_bytes(), timing.median_ns),
        .time_ns_median = timing.median_ns, .time_ns_min = timing.min_ns, .iterations = timing.calls,
        .result = result, .exact = exact.round(), .rel_error = relative_error(result, exact),
        .peak_gbps = on_device ? device->second.peak_gbps : 0,
        .machine = run.machine, .timing = std::string(to_string(c.timing)), .batch = c.batch,
        // The rule in measurement_rules.hpp: device-event rows rotate their inputs past the L2.
        .cache = c.backend->timing == Timing::device_events ? "cold" : "warm",
        .accumulator = std::string(to_string(traits.accumulator)), .order = std::string(to_string(traits.order)),
        .reproducibility = std::string(to_string(traits.reproducibility)), .role = std::string(to_string(traits.role)),
        .reproducible = {},  // observed across the run's cases: filled in by the sweep
        .pages = outcome.pages.value_or(""),
    };
}

}  // namespace

int run_sweep(const Options& options, const std::vector<const Backend*>& selected, std::ostream& out, std::ostream& err) {
    std::vector<const Backend*> backends;
    for (const Backend* backend : selected) {
        if (auto reason = backend->why_unavailable()) out << "unavailable here: " << backend->name << ": " << *reason << '\n';
        else backends.push_back(backend);
    }
    if (backends.empty()) {
        err << "accumulate_bench: none of the selected backends can run on this machine (see above)\n";
        return 1;
    }

    RunContext run{.host = host_name(), .cpu = cpu_model(), .compiler = compiler_version(), .build = build_type(),
                   .machine = machine_identity(), .device_info = {}};
    for (const Backend* backend : backends)
        if (backend->device_info) run.device_info[backend] = backend->device_info();
    const std::vector<std::unique_ptr<Reporter>> reporters = open_reporters(options);

    HostArray file_input;
    std::vector<std::uint64_t> sizes = sweep_sizes(options);
    if (!options.input.file.empty()) {
        file_input = read_float_file(options.input.file);
        sizes = {file_input.size()};
    }

    const bool filtered = benchmark::GetBenchmarkFilter() != "." && !benchmark::GetBenchmarkFilter().empty();
    std::size_t total = 0;
    for (const std::uint64_t n : sizes) total += plan_cases(backends, options, n).size();
    std::size_t done = 0, measured = 0;
    int status = 0;

    for (const std::uint64_t n : sizes) {
        std::list<Case> cases = plan_cases(backends, options, n);
        if (cases.empty()) continue;  // a size per thread that no selected backend runs at
        std::optional<HostArray> generated;
        std::span<const float> input = file_input.span();
        if (options.input.file.empty()) {
            generated = generate_input(options.input, n, err);
            if (!generated) {
                done += cases.size();
                status = 1;
                continue;
            }
            input = generated->span();
        }
        const ExactAccumulator exact = exact_sum(input);
        // Reproducibility, as observed: the bits of each backend's first result on this input, which
        // every repetition, thread count and timing rule must give again.
        std::map<std::pair<const Backend*, bool>, std::uint64_t> first_bits;

        time_cases(cases, input, [&](const Case& c, const CaseOutcome& outcome, const CaseTiming& timing) {
            const std::string counter = progress_counter(++done, filtered ? 0 : total);
            if (!timing.error.empty()) {
                (outcome.exhausted ? out : err) << counter << ' ' << c.name << (outcome.exhausted ? ": skipped: " : ": FAILED: ")
                                                << timing.error << '\n';
                status = 1;
                return;
            }
            Measurement m = record(run, options, c, outcome, timing, input, exact);
            const std::uint64_t bits = std::bit_cast<std::uint64_t>(m.result);
            const auto [first, inserted] = first_bits.try_emplace({c.backend, c.include_transfer}, bits);
            m.reproducible = outcome.same_bits_every_repetition && first->second == bits ? "yes" : "no";
            ++measured;
            out << progress_line(done, filtered ? 0 : total, m) << std::endl;
            for (const auto& reporter : reporters) reporter->report(m);
        });
    }
    if (measured == 0 && status == 0) {
        err << "accumulate_bench: nothing was measured"
            << (filtered ? ": --benchmark_filter=" + benchmark::GetBenchmarkFilter() + " matches no case" : std::string()) << '\n';
        return 1;
    }
    for (const auto& reporter : reporters) reporter->finish();
    return status;
}

}  // namespace shootout
