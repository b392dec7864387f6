#include "bench/sweep_plan.hpp"

#include <algorithm>
#include <set>

#include "bench/measurement_rules.hpp"

namespace shootout {

std::string_view to_string(TimingRule rule) { return rule == TimingRule::batched ? "batched" : "isolated"; }

namespace {

bool is_size(const Options& options, std::uint64_t n) {
    return std::find(options.sizes.begin(), options.sizes.end(), n) != options.sizes.end();
}

// The thread counts a backend runs at size n.
std::vector<int> thread_counts(const Backend& backend, const Options& options, std::uint64_t n) {
    if (!options.sizes_per_thread) return backend.parallel ? options.threads : std::vector<int>{1};
    if (!backend.parallel) return is_size(options, n) ? std::vector<int>{1} : std::vector<int>{};
    std::vector<int> counts;
    for (int threads : options.threads)
        if (n % static_cast<std::uint64_t>(threads) == 0 && is_size(options, n / static_cast<std::uint64_t>(threads)))
            counts.push_back(threads);
    return counts;
}

}  // namespace

std::vector<std::uint64_t> sweep_sizes(const Options& options) {
    if (!options.sizes_per_thread) return options.sizes;
    std::set<std::uint64_t> sizes(options.sizes.begin(), options.sizes.end());  // serial backends'
    for (const std::uint64_t size : options.sizes)
        for (const int threads : options.threads) sizes.insert(size * static_cast<std::uint64_t>(threads));
    return {sizes.begin(), sizes.end()};
}

std::vector<int> gpu_counts(const Options& options, int visible) {
    return options.gpus.empty() ? std::vector<int>{visible} : options.gpus;
}

std::list<Case> plan_cases(const std::vector<const Backend*>& backends, const Options& options, std::uint64_t n,
                           const std::map<const Backend*, int>& visible_gpus) {
    std::list<Case> cases;
    const int batch = rules::batch_calls(n * sizeof(float));
    for (const Backend* backend : backends) {
        const std::vector<int> thread_counts = shootout::thread_counts(*backend, options, n);
        std::vector<int> gpu_choices = {backend->device == Device::cuda ? 1 : 0};
        if (backend->multi_gpu) {
            const auto visible = visible_gpus.find(backend);
            const int most = visible != visible_gpus.end() ? visible->second : 1;
            gpu_choices.clear();
            for (int gpus : gpu_counts(options, most))
                if (gpus <= most) gpu_choices.push_back(gpus);
        }
        for (bool transfer : {false, true}) {
            if (transfer && !(options.include_transfer && backend->supports_transfer)) continue;
            for (TimingRule timing : {TimingRule::isolated, TimingRule::batched}) {
                // A timed transfer is one call's copy in and result out: batching it is another benchmark.
                if (timing == TimingRule::batched && (transfer || !backend->batches)) continue;
                for (int threads : thread_counts)
                    for (int gpus : gpu_choices) {
                        std::string name = backend->name + "/n:" + std::to_string(n) + "/input:" + options.input.label() +
                                           "/threads:" + std::to_string(threads) +
                                           (backend->multi_gpu ? "/gpus:" + std::to_string(gpus) : "") + (transfer ? "/h2d" : "") +
                                           (timing == TimingRule::batched ? "/batched" : "");
                        cases.push_back({.backend = backend, .threads = threads, .include_transfer = transfer, .timing = timing,
                                         .batch = timing == TimingRule::batched ? batch : 1, .gpus = gpus,
                                         .name = std::move(name)});
                    }
            }
        }
    }
    return cases;
}

}  // namespace shootout
