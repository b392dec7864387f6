#include "sweep_plan.hpp"

#include "measurement_rules.hpp"

namespace shootout {

std::string_view to_string(TimingRule rule) { return rule == TimingRule::batched ? "batched" : "isolated"; }

std::list<Case> plan_cases(const std::vector<const Backend*>& backends, const Options& options, std::uint64_t n) {
    std::list<Case> cases;
    const int batch = rules::batch_calls(n * sizeof(float));
    for (const Backend* backend : backends) {
        const std::vector<int> thread_counts = backend->parallel ? options.threads : std::vector<int>{1};
        for (bool transfer : {false, true}) {
            if (transfer && !(options.include_transfer && backend->supports_transfer)) continue;
            for (TimingRule timing : {TimingRule::isolated, TimingRule::batched}) {
                // A timed transfer is one call's copy in and result out: batching it is another benchmark.
                if (timing == TimingRule::batched && (transfer || !backend->batches)) continue;
                for (int threads : thread_counts) {
                    std::string name = backend->name + "/n:" + std::to_string(n) + "/input:" + options.input.label() +
                                       "/threads:" + std::to_string(threads) + (transfer ? "/h2d" : "") +
                                       (timing == TimingRule::batched ? "/batched" : "");
                    cases.push_back({.backend = backend, .threads = threads, .include_transfer = transfer, .timing = timing,
                                     .batch = timing == TimingRule::batched ? batch : 1, .name = std::move(name)});
                }
            }
        }
    }
    return cases;
}

}  // namespace shootout
