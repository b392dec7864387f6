#include "bench/case_timer.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>

#include "platform/memory.hpp"

namespace shootout {

namespace {

// Keeps one case prepared at a time, so that device and host memory hold one backend's copies.
class PreparedCase {
public:
    // Prepares c unless it is the case prepared now; a fresh prepare's configuration is counted in
    // `outcome`.
    Reduction& get(const Case& c, Elements input, CaseOutcome& outcome) {
        if (current_ != &c) {
            release();
            reduction_ = c.backend->prepare(input, c.prepare_options());
            count_configuration(outcome, reduction_->configuration());
            // The first call pays for page faults, module loading and lazy set-up (rule: warm-up).
            if (c.timing == TimingRule::batched) reduction_->run_batch(c.batch);
            else reduction_->run();
            current_ = &c;
        }
        return *reduction_;
    }
    void release() {
        reduction_.reset();
        current_ = nullptr;
    }

private:
    static void count_configuration(CaseOutcome& outcome, const std::string& configuration) {
        auto& seen = outcome.configurations;
        const auto same = std::find_if(seen.begin(), seen.end(), [&](const auto& entry) { return entry.first == configuration; });
        if (same == seen.end()) seen.emplace_back(configuration, 1);
        else ++same->second;
    }

    const Case* current_ = nullptr;
    std::unique_ptr<Reduction> reduction_;
};

// Says why a repetition measured nothing. Every repetition reports the iteration count Google Benchmark
// set, run or not (it aborts on repetitions of one case with unlike counts, src/statistics.cc): one
// that ends before its loop enters the loop, which runs no iteration after SkipWithError.
void skip(benchmark::State& state, const std::string& why, bool loop_started) {
    state.SkipWithError(why.c_str());
    if (!loop_started)
        for (auto _ : state) {
        }
}

// One timed region per Google Benchmark iteration: one call, or one batch of c.batch calls (its
// per-call time is taken when the case is recorded, so that Google Benchmark sizes its repetitions
// by the region's real length). A case that throws is skipped where memory or threads could not be
// had, failed otherwise, in this repetition and those after it.
void run_case(benchmark::State& state, const Case& c, CaseOutcome& outcome, Elements input,
              PreparedCase& prepared) {
    if (!outcome.failure.empty()) {  // failed in an earlier repetition: say so once, not once per repetition
        skip(state, outcome.failure, false);
        return;
    }
    bool loop_started = false;
    auto stop = [&](const std::string& why, bool exhausted) {
        prepared.release();
        outcome.exhausted = exhausted;
        outcome.failure = why;
        skip(state, outcome.failure, loop_started);
    };
    try {
        Reduction& reduction = prepared.get(c, input, outcome);
        if (!outcome.pages) {  // after prepare and the warm-up call have touched every page it reads
            const Elements read = reduction.host_input();
            outcome.pages = std::string(read.empty() ? "" : to_string(platform::page_backing(read.data())));
        }
        const bool self_timed = c.backend->timing == Timing::device_events;
        loop_started = true;
        for (auto _ : state) {
            if (c.timing == TimingRule::batched) {
                state.SetIterationTime(reduction.run_batch(c.batch));
                continue;
            }
            const std::optional<double> device_seconds = reduction.run();
            if (self_timed != device_seconds.has_value())
                throw std::logic_error(c.backend->name + ": run() must return a time exactly when timed by device events");
            if (device_seconds) state.SetIterationTime(*device_seconds);
        }
        if (c.timing == TimingRule::batched && !outcome.energy) outcome.energy = reduction.energy_per_call(c.batch);
        const double result = reduction.result();
        if (outcome.result && std::bit_cast<std::uint64_t>(*outcome.result) != std::bit_cast<std::uint64_t>(result))
            outcome.same_bits_every_repetition = false;
        outcome.result = result;
    } catch (const ResourceExhausted& e) {
        stop(e.what(), true);
    } catch (const std::bad_alloc&) {  // a backend's copy of the input, under ulimit -v or a cgroup limit
        stop("allocating memory for this size failed (std::bad_alloc: out of memory or an address-space limit)", true);
    } catch (const std::exception& e) {
        stop(e.what(), false);
    }
}

// Collects each benchmark's per-repetition times and calls back once per finished benchmark.
// Stands in for Google Benchmark's console reporter: one line per case instead of one per repetition.
class TimingCollector : public benchmark::BenchmarkReporter {
public:
    using Finished = std::function<void(const std::string& name, const CaseTiming&)>;

    explicit TimingCollector(Finished finished) : finished_(std::move(finished)) {}

    bool ReportContext(const Context&) override { return true; }

    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& run : runs) {
            const std::string& name = run.run_name.function_name;
            if (done_.count(name)) continue;
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

    static CaseTiming summarize(Partial& p) {
        if (p.times.empty()) return {.median_ns = p.median, .min_ns = p.min, .calls = p.iterations};
        std::sort(p.times.begin(), p.times.end());
        const std::size_t k = p.times.size();
        const double median = k % 2 ? p.times[k / 2] : (p.times[k / 2 - 1] + p.times[k / 2]) / 2;
        return {.median_ns = median, .min_ns = p.times.front(), .calls = p.iterations};
    }

    void finish(const std::string& name, const CaseTiming& timing) {
        partial_.erase(name);
        done_.insert(name);
        finished_(name, timing);
    }

    Finished finished_;
    std::map<std::string, Partial> partial_;
    std::set<std::string> done_;
};

}  // namespace

std::size_t time_cases(std::list<Case>& cases, Elements input, const CaseFinished& finished) {
    PreparedCase prepared;
    std::map<std::string, std::pair<const Case*, CaseOutcome>> by_name;
    for (Case& c : cases) {
        auto& [planned, outcome] = by_name[c.name];
        planned = &c;
        auto* registered = benchmark::RegisterBenchmark(c.name.c_str(), [&c, &outcome = outcome, input, &prepared](benchmark::State& state) {
            run_case(state, c, outcome, input, prepared);
        });
        registered->Unit(benchmark::kNanosecond)->ComputeStatistics("min", [](const std::vector<double>& v) {
            return *std::min_element(v.begin(), v.end());
        });
        if (c.backend->timing == Timing::device_events) registered->UseManualTime();
        else registered->UseRealTime();
    }
    TimingCollector collector([&](const std::string& name, CaseTiming timing) {
        const auto& [c, outcome] = by_name.at(name);
        // Each timed region held c->batch calls.
        timing.median_ns /= c->batch;
        timing.min_ns /= c->batch;
        timing.calls *= c->batch;
        finished(*c, outcome, timing);
    });
    const std::size_t matched = benchmark::RunSpecifiedBenchmarks(&collector);
    benchmark::ClearRegisteredBenchmarks();
    return matched;
}

}  // namespace shootout
