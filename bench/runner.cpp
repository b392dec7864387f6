#include "runner.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <ostream>

#include "exact_sum.hpp"
#include "measurement.hpp"
#include "reporters.hpp"
#include "system_info.hpp"

namespace shootout {

namespace {

// One (backend, threads, transfer) on the current input.
struct Case {
    const Backend* backend;
    int threads;
    bool include_transfer;
    std::string name;  // the Google Benchmark name, which --benchmark_filter matches
    std::optional<double> result = {};
    std::string failure = {};
    bool exhausted = false;  // failed for lack of memory: skipped, not broken
};

// Keeps one case prepared at a time, so that device and host memory hold one backend's copies.
class PreparedCase {
public:
    Reduction& get(Case& c, std::span<const float> input) {
        if (current_ != &c) {
            reduction_.reset();
            current_ = nullptr;
            reduction_ = c.backend->prepare(input, {.threads = c.threads, .include_transfer = c.include_transfer});
            reduction_->run();  // the first call pays for page faults, module loading and lazy set-up
            current_ = &c;
        }
        return *reduction_;
    }
    void release() { reduction_.reset(); current_ = nullptr; }

private:
    const Case* current_ = nullptr;
    std::unique_ptr<Reduction> reduction_;
};

void run_case(benchmark::State& state, Case& c, std::span<const float> input, PreparedCase& prepared) {
    try {
        Reduction& reduction = prepared.get(c, input);
        const bool self_timed = c.backend->timing == Timing::device_events;
        for (auto _ : state) {
            const std::optional<double> device_seconds = reduction.run();
            if (self_timed != device_seconds.has_value())
                throw std::logic_error(c.backend->name + ": run() must return a time exactly when timed by device events");
            if (device_seconds) state.SetIterationTime(*device_seconds);
        }
        c.result = reduction.result();
        state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * input.size_bytes()));
    } catch (const ResourceExhausted& e) {
        prepared.release();
        c.exhausted = true;
        c.failure = e.what();
        state.SkipWithError(c.failure.c_str());
    } catch (const std::exception& e) {
        prepared.release();
        c.failure = e.what();
        state.SkipWithError(c.failure.c_str());
    }
}

// Collects each benchmark's per-repetition times and calls back once per finished benchmark.
// Stands in for Google Benchmark's console reporter: one line per case instead of one per repetition.
class TimingCollector : public benchmark::BenchmarkReporter {
public:
    struct Timing {
        double median_ns = 0, min_ns = 0;
        std::int64_t iterations = 0;
        std::string error = {};
    };
    using Finished = std::function<void(const std::string& name, const Timing&)>;

    explicit TimingCollector(Finished finished) : finished_(std::move(finished)) {}

    bool ReportContext(const Context&) override { return true; }

    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& run : runs) {
            const std::string& name = run.run_name.function_name;
            Partial& p = partial_[name];
            if (run.error_occurred) {
                finish(name, {.error = run.error_message});
            } else if (run.run_type == Run::RT_Iteration) {
                p.times.push_back(run.GetAdjustedRealTime());
                p.iterations = run.iterations;
                if (run.repetitions <= 1) finish(name, summarize(p));
            } else if (run.aggregate_name == "median") {
                p.median = run.GetAdjustedRealTime();
            } else if (run.aggregate_name == "min") {
                p.min = run.GetAdjustedRealTime();
                finish(name, summarize(p));  // "min" is registered after the built-in statistics
            }
        }
    }

private:
    struct Partial {
        std::vector<double> times;
        std::int64_t iterations = 0;
        double median = 0, min = 0;  // from aggregates, when repetitions were not reported one by one
    };

    static Timing summarize(Partial& p) {
        if (p.times.empty()) return {.median_ns = p.median, .min_ns = p.min, .iterations = p.iterations};
        std::sort(p.times.begin(), p.times.end());
        const std::size_t k = p.times.size();
        const double median = k % 2 ? p.times[k / 2] : (p.times[k / 2 - 1] + p.times[k / 2]) / 2;
        return {.median_ns = median, .min_ns = p.times.front(), .iterations = p.iterations};
    }

    void finish(const std::string& name, const Timing& timing) {
        partial_.erase(name);
        finished_(name, timing);
    }

    Finished finished_;
    std::map<std::string, Partial> partial_;
};

std::list<Case> make_cases(const std::vector<const Backend*>& backends, const Options& options, std::uint64_t n) {
    std::list<Case> cases;  // a list: benchmarks hold references to its elements
    for (const Backend* backend : backends) {
        const std::vector<int> thread_counts = backend->parallel ? options.threads : std::vector<int>{1};
        for (bool transfer : {false, true}) {
            if (transfer && !(options.include_transfer && backend->supports_transfer)) continue;
            for (int threads : thread_counts) {
                std::string name = backend->name + "/n:" + std::to_string(n) + "/input:" + options.input.label() +
                                   "/threads:" + std::to_string(threads) + (transfer ? "/h2d" : "");
                cases.push_back({.backend = backend, .threads = threads, .include_transfer = transfer, .name = std::move(name)});
            }
        }
    }
    return cases;
}

// Input bytes plus room for what the backends and the system take alongside them.
bool fits_in_memory(std::uint64_t n) {
    return static_cast<double>(n * sizeof(float)) <= 0.8 * static_cast<double>(available_memory_bytes());
}

std::string gib(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
    return text;
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

    const std::string host = host_name(), cpu = cpu_model(), compiler = compiler_version(), build = build_type();
    const std::vector<std::unique_ptr<Reporter>> reporters = open_reporters(options);
    std::map<const Backend*, DeviceInfo> device_info;
    for (const Backend* backend : backends)
        if (backend->device_info) device_info[backend] = backend->device_info();

    HostArray file_input;
    std::vector<std::uint64_t> sizes = options.sizes;
    if (!options.input.file.empty()) {
        file_input = read_float_file(options.input.file);
        sizes = {file_input.size()};
    }

    const std::size_t total = sizes.size() * make_cases(backends, options, 0).size();
    const bool filtered = benchmark::GetBenchmarkFilter() != "." && !benchmark::GetBenchmarkFilter().empty();
    std::size_t done = 0;
    int status = 0;
    PreparedCase prepared;

    for (const std::uint64_t n : sizes) {
        HostArray generated;
        std::span<const float> input = file_input.span();
        if (options.input.file.empty()) {
            const std::size_t cases_here = make_cases(backends, options, n).size();
            const double bytes = static_cast<double>(n * sizeof(float));
            if (!fits_in_memory(n)) {
                err << "skipping n=" << describe_size(n) << ": the input needs " << gib(bytes) << " of host memory and "
                    << gib(static_cast<double>(available_memory_bytes())) << " is available\n";
                done += cases_here;
                status = 1;
                continue;
            }
            try {
                generated = HostArray(n);
            } catch (const std::bad_alloc&) {
                err << "skipping n=" << describe_size(n) << ": allocating " << gib(bytes) << " of host memory failed\n";
                done += cases_here;
                status = 1;
                continue;
            }
            fill(generated.span(), options.input.distribution, options.input.seed);
            input = generated.span();
        }
        const ExactAccumulator exact = exact_sum(input);
        const double exact_value = exact.round();

        std::list<Case> cases = make_cases(backends, options, n);
        std::map<std::string, Case*> by_name;
        for (Case& c : cases) {
            by_name[c.name] = &c;
            auto* registered = benchmark::RegisterBenchmark(
                c.name.c_str(), [&c, input, &prepared](benchmark::State& state) { run_case(state, c, input, prepared); });
            registered->Unit(benchmark::kNanosecond)->ComputeStatistics("min", [](const std::vector<double>& v) {
                return *std::min_element(v.begin(), v.end());
            });
            if (c.backend->timing == Timing::device_events) registered->UseManualTime();
            else registered->UseRealTime();
        }

        TimingCollector collector([&](const std::string& name, const TimingCollector::Timing& timing) {
            Case& c = *by_name.at(name);
            ++done;
            if (!timing.error.empty()) {
                (c.exhausted ? out : err) << progress_counter(done, filtered ? 0 : total) << ' ' << c.backend->name << " n=" << describe_size(n)
                                          << (c.exhausted ? ": skipped: " : ": FAILED: ") << timing.error << '\n';
                status = 1;
                return;
            }
            Measurement m{
                .timestamp = utc_timestamp(), .host = host, .cpu = cpu,
                .gpu = device_info.count(c.backend) ? device_info[c.backend].name : "",
                .compiler = compiler, .build = build, .backend = c.backend->name,
                .device = std::string(to_string(c.backend->device)) + (c.include_transfer ? "+h2d" : ""),
                .threads = c.threads, .input = options.input.label(),
                .seed = options.input.file.empty() ? std::optional(options.input.seed) : std::nullopt,
                .n = input.size(), .bytes = input.size_bytes(),
                .gbps = static_cast<double>(input.size_bytes()) / timing.median_ns,
                .time_ns_median = timing.median_ns, .time_ns_min = timing.min_ns, .iterations = timing.iterations,
                .result = c.result.value_or(0), .exact = exact_value, .rel_error = relative_error(c.result.value_or(0), exact),
                .peak_gbps = device_info.count(c.backend) ? device_info[c.backend].peak_gbps : 0,
            };
            out << progress_line(done, filtered ? 0 : total, m) << std::endl;
            for (const auto& reporter : reporters) reporter->report(m);
        });
        benchmark::RunSpecifiedBenchmarks(&collector);
        benchmark::ClearRegisteredBenchmarks();
        prepared.release();
    }
    for (const auto& reporter : reporters) reporter->finish();
    return status;
}

}  // namespace shootout
