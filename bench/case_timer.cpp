#include "bench/case_timer.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <map>
#include <memory>
#include <new>
#include <regex>
#include <set>
#include <stdexcept>
#include <utility>

#include "api/measurement_rules.hpp"
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
// The counters a repetition hands to TimingCollector beside its time: the device's clocks at its
// end, and whether they say it was throttled (rules "throttle").
constexpr const char* kSmCounter = "shootout_sm_mhz";
constexpr const char* kMemoryCounter = "shootout_memory_mhz";
constexpr const char* kThrottledCounter = "shootout_throttled";

void count_clocks(benchmark::State& state, Reduction& reduction, CaseOutcome& outcome) {
    const DeviceClocks clocks = reduction.clocks();
    if (!clocks.missing.empty()) outcome.clocks_missing = clocks.missing;
    if (!clocks.sm_mhz) return;
    state.counters[kSmCounter] = *clocks.sm_mhz;
    if (clocks.memory_mhz) state.counters[kMemoryCounter] = *clocks.memory_mhz;
    state.counters[kThrottledCounter] = clocks.sm_max_mhz && rules::throttled(*clocks.sm_mhz, *clocks.sm_max_mhz);
}

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
        count_clocks(state, reduction, outcome);  // before the energy window's batches, which are not timed
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

// Collects each benchmark's repetitions and calls back once per benchmark whose round ended, with
// its error where it failed. Stands in for Google Benchmark's console reporter: one line per case
// instead of one per repetition.
class TimingCollector : public benchmark::BenchmarkReporter {
public:
    using RoundEnded = std::function<void(const std::string& name, const std::string& error)>;

    TimingCollector(std::map<std::string, RepetitionsTaken>& taken, RoundEnded ended) : taken_(taken), ended_(std::move(ended)) {}

    bool ReportContext(const Context&) override { return true; }

    void ReportRuns(const std::vector<Run>& runs) override {
        for (const Run& run : runs) {
            const std::string& name = run.run_name.function_name;
            if (ended_names_.count(name)) continue;
            RepetitionsTaken& t = taken_[name];
            if (run.error_occurred) {
                end(name, run.error_message);
            } else if (run.run_type == Run::RT_Iteration) {
                add(t, run);
                if (run.repetitions <= 1) end(name, {});
            } else if (run.aggregate_name == "median") {
                t.median = run.GetAdjustedRealTime();
            } else if (run.aggregate_name == "min") {
                t.min = run.GetAdjustedRealTime();
                end(name, {});  // "min" is registered after the built-in statistics
            }
        }
    }

    // A new round: its cases report again.
    void next_round() { ended_names_.clear(); }

private:
    static void add(RepetitionsTaken& t, const Run& run) {
        if (t.iterations == 0) t.iterations = run.iterations;
        t.seconds += run.real_accumulated_time;
        const auto counter = [&](const char* name) -> std::optional<double> {
            const auto at = run.counters.find(name);
            return at == run.counters.end() ? std::nullopt : std::optional<double>(at->second.value);
        };
        if (counter(kThrottledCounter).value_or(0) != 0) {
            ++t.throttled;
            return;
        }
        t.times.push_back(run.GetAdjustedRealTime());
        if (const auto sm = counter(kSmCounter)) {
            t.clocked = true;
            t.sm.push_back(*sm);
        }
        if (const auto memory = counter(kMemoryCounter)) t.memory.push_back(*memory);
    }

    void end(const std::string& name, const std::string& error) {
        ended_names_.insert(name);
        ended_(name, error);
    }

    std::map<std::string, RepetitionsTaken>& taken_;
    RoundEnded ended_;
    std::set<std::string> ended_names_;
};

// The case's timing per timed region, from every repetition kept.
CaseTiming summarize(const RepetitionsTaken& t) {
    if (t.times.empty()) return {.median_ns = t.median.value_or(0), .min_ns = t.min.value_or(0), .calls = t.iterations};
    CaseTiming timing{.median_ns = rules::median(t.times), .min_ns = *std::min_element(t.times.begin(), t.times.end()),
                      .calls = t.iterations, .repetitions_ns = t.times, .spread = rules::relative_spread(t.times)};
    if (t.clocked) {
        timing.throttled = t.throttled;
        if (!t.sm.empty()) timing.sm_mhz = rules::median(t.sm);
        if (!t.memory.empty()) timing.memory_mhz = rules::median(t.memory);
    }
    return timing;
}

}  // namespace

int repetitions_wanted(RepetitionsTaken& t, const StoppingRule& stopping) {
    if (t.round_repetitions == 0) t.round_repetitions = static_cast<int>(t.times.size()) + t.throttled;
    if (t.times.empty() && !t.throttled) return 0;  // aggregates only: nothing to judge by
    const int retake = std::min(t.throttled - t.retaken, rules::kMaxThrottleRetakes - t.retaken);
    if (retake > 0) {
        t.retaken += retake;
        return retake;
    }
    if (!stopping.max_noise || t.seconds >= stopping.max_noise_seconds) return 0;
    const std::optional<double> spread = rules::relative_spread(t.times);
    return spread && *spread > *stopping.max_noise ? t.round_repetitions : 0;
}

void keep_filtered(std::list<Case>& cases, const std::string& filter) {
    const bool negative = filter.starts_with('-');
    const std::string expression = negative ? filter.substr(1) : filter;
    if (expression.empty()) return;
    const std::regex compiled(expression, std::regex::extended | std::regex::nosubs);
    cases.remove_if([&](const Case& c) {
        const std::string registered = c.name + (c.backend->timing == Timing::device_events ? "/manual_time" : "/real_time");
        return std::regex_search(registered, compiled) == negative;
    });
}

std::size_t time_cases(std::list<Case>& cases, Elements input, const CaseFinished& finished, const StoppingRule& stopping) {
    PreparedCase prepared;
    std::map<std::string, std::pair<Case*, CaseOutcome>> by_name;
    for (Case& c : cases) by_name[c.name].first = &c;
    std::map<std::string, RepetitionsTaken> taken;
    std::map<std::string, int> wanted;  // the cases of the next round, and their repetitions
    const auto finish = [&](const std::string& name, CaseTiming timing) {
        auto& [c, outcome] = by_name.at(name);
        // Each timed region held c->batch calls.
        timing.median_ns /= c->batch;
        timing.min_ns /= c->batch;
        timing.calls *= c->batch;
        for (double& time : timing.repetitions_ns) time /= c->batch;
        finished(*c, outcome, timing);
    };
    TimingCollector collector(taken, [&](const std::string& name, const std::string& error) {
        if (!error.empty()) return finish(name, {.error = error});
        RepetitionsTaken& t = taken.at(name);
        if (const int more = repetitions_wanted(t, stopping)) wanted[name] = more;
        else if (t.times.empty() && t.throttled)
            finish(name, {.error = "every repetition, and every re-take, ran with the SM clock throttled below " +
                                   std::to_string(static_cast<int>(rules::kThrottleFraction * 100)) + "% of its maximum"});
        else finish(name, summarize(t));
    });
    // A round times the cases `repetitions` names, as many repetitions as it says each; the first
    // round every case, as many as Google Benchmark's flag says.
    const auto run_round = [&](const std::map<std::string, int>& repetitions) {
        for (auto& [name, entry] : by_name) {
            auto& [c, outcome] = entry;
            const auto asked = repetitions.find(name);
            if (!repetitions.empty() && asked == repetitions.end()) continue;
            auto* registered = benchmark::RegisterBenchmark(c->name.c_str(), [c = c, &outcome = outcome, input, &prepared](benchmark::State& state) {
                run_case(state, *c, outcome, input, prepared);
            });
            registered->Unit(benchmark::kNanosecond)->ComputeStatistics("min", [](const std::vector<double>& v) {
                return *std::min_element(v.begin(), v.end());
            });
            if (asked != repetitions.end()) registered->Repetitions(asked->second);
            if (c->backend->timing == Timing::device_events) registered->UseManualTime();
            else registered->UseRealTime();
        }
        // A later round prepares its cases again: a re-take is a fresh turn, as an interleaved one is.
        prepared.release();
        collector.next_round();
        const std::size_t matched = benchmark::RunSpecifiedBenchmarks(&collector);
        benchmark::ClearRegisteredBenchmarks();
        return matched;
    };
    const std::size_t matched = run_round({});
    while (!wanted.empty()) run_round(std::exchange(wanted, {}));
    return matched;
}

}  // namespace shootout
