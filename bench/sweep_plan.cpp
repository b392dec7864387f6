#include "bench/sweep_plan.hpp"

#include <algorithm>
#include <set>

#include "bench/cli.hpp"
#include "api/measurement_rules.hpp"

namespace shootout {

std::string_view to_string(TimingRule rule) { return rule == TimingRule::batched ? "batched" : "isolated"; }

namespace {

// The thread counts a backend runs at size n, `given` the sizes asked for.
std::vector<int> thread_counts(const Backend& backend, const Options& options, const std::vector<std::uint64_t>& given,
                               std::uint64_t n) {
    const auto is_size = [&](std::uint64_t size) { return std::find(given.begin(), given.end(), size) != given.end(); };
    if (!options.sizes_per_thread) return backend.parallel ? options.threads : std::vector<int>{1};
    if (!backend.parallel) return is_size(n) ? std::vector<int>{1} : std::vector<int>{};
    std::vector<int> counts;
    for (int threads : options.threads)
        if (n % static_cast<std::uint64_t>(threads) == 0 && is_size(n / static_cast<std::uint64_t>(threads)))
            counts.push_back(threads);
    return counts;
}

}  // namespace

std::vector<std::uint64_t> sweep_sizes(const Options& options, ElementType type) {
    const std::vector<std::uint64_t> given = options.sizes_spec.empty() ? options.sizes : parse_sizes(options.sizes_spec, type);
    if (!options.sizes_per_thread) return given;
    std::set<std::uint64_t> sizes(given.begin(), given.end());  // serial backends'
    for (const std::uint64_t size : given)
        for (const int threads : options.threads) sizes.insert(size * static_cast<std::uint64_t>(threads));
    return {sizes.begin(), sizes.end()};
}

std::vector<int> gpu_counts(const Options& options, int visible) {
    return options.gpus.empty() ? std::vector<int>{visible} : options.gpus;
}

std::list<Case> plan_cases(const std::vector<const Backend*>& backends, const Options& options, std::uint64_t n,
                           ElementType type, const std::map<const Backend*, int>& visible_gpus) {
    std::list<Case> cases;
    const std::vector<std::uint64_t> given = options.sizes_spec.empty() ? options.sizes : parse_sizes(options.sizes_spec, type);
    for (const Backend* backend : backends) {
        if (!backend->runs(type)) continue;
        const std::vector<int> thread_counts = shootout::thread_counts(*backend, options, given, n);
        std::vector<int> gpu_choices = {backend->devices};
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
                        std::string name = backend->name + "/n:" + std::to_string(n) + "/dtype:" + std::string(to_string(type)) +
                                           "/input:" + options.input.label() +
                                           "/threads:" + std::to_string(threads) +
                                           (backend->multi_gpu ? "/gpus:" + std::to_string(gpus) : "") + (transfer ? "/h2d" : "") +
                                           (timing == TimingRule::batched ? "/batched" : "");
                        cases.push_back({.backend = backend, .threads = threads, .include_transfer = transfer, .timing = timing,
                                         .batch = timing == TimingRule::batched ? rules::batch_calls(input_bytes(type, n), gpus) : 1, .gpus = gpus,
                                         .dtype = type, .name = std::move(name)});
                    }
            }
        }
    }
    return cases;
}

std::list<PlannedInput> plan_sweep(const std::vector<const Backend*>& backends, const Options& options,
                                   const std::map<const Backend*, int>& visible_gpus) {
    std::set<std::uint64_t> sizes;
    for (ElementType type : options.dtypes) {
        const std::vector<std::uint64_t> of_type = sweep_sizes(options, type);
        sizes.insert(of_type.begin(), of_type.end());
    }
    std::list<PlannedInput> plan;
    for (const std::uint64_t n : sizes)
        for (ElementType type : options.dtypes) {
            const std::vector<std::uint64_t> of_type = sweep_sizes(options, type);
            if (std::find(of_type.begin(), of_type.end(), n) == of_type.end()) continue;
            std::list<Case> cases = plan_cases(backends, options, n, type, visible_gpus);
            if (!cases.empty()) plan.push_back({.n = n, .dtype = type, .cases = std::move(cases)});
        }
    return plan;
}

}  // namespace shootout
