// What the tests of every device backend share (tests/device_backends_test.cpp, and each API's own
// checks in tests/device_backends_<api>.cpp): the backends they run over, the fixture that skips an
// unavailable backend with its reason and lets its API watch each test, the data every correct
// order sums exactly, and the checks made of a backend in one element type T (called inside
// for_each_element_type, each through device_sum(), tests/backend_test_support.hpp) or of a launch
// floor, which sums nothing.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/backend.hpp"
#include "api/launch_tuning.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/error_bounds.hpp"
#include "tests/sweep_support.hpp"

namespace shootout::device_checks {

// What one device API's own test file adds to every test of its backends, registered from a
// namespace-scope initialiser; an API without one gets the defaults.
struct ApiHooks {
    // Whether the backend's device is a CPU implementation (PoCL, lavapipe), on which inputs of
    // gigabytes take minutes; nullptr: never.
    bool (*on_cpu)(const Backend& backend) = nullptr;
    // The launch shapes the tuner can pick for the backend (api/launch_tuning.hpp), or nullopt for one
    // that is not tuned; nullptr: none of the API's is.
    std::optional<LaunchSpace> (*launch_space)(const Backend& backend) = nullptr;
    // Called as a test of one of its available backends starts; the function it returns is called as
    // the test ends, to fail it with what the API reported meanwhile (the Vulkan validation layer's
    // errors). nullptr: nothing to watch.
    std::function<void()> (*watch)() = nullptr;
};

inline std::map<std::string_view, ApiHooks>& api_hooks_storage() {
    static std::map<std::string_view, ApiHooks> hooks;
    return hooks;
}
inline bool register_api_hooks(Device device, ApiHooks hooks) {
    api_hooks_storage()[device.name()] = hooks;
    return true;
}
inline ApiHooks api_hooks(Device device) {
    const auto found = api_hooks_storage().find(device.name());
    return found == api_hooks_storage().end() ? ApiHooks{} : found->second;
}
inline std::optional<LaunchSpace> launch_space(const Backend& backend) {
    const ApiHooks hooks = api_hooks(backend.device);
    return hooks.launch_space ? hooks.launch_space(backend) : std::nullopt;
}
inline bool on_cpu(const Backend& backend) {
    const ApiHooks hooks = api_hooks(backend.device);
    return hooks.on_cpu && hooks.on_cpu(backend);
}

// The registered one-device backends of every device API that `keep` keeps: not the host's, and not
// the multi-GPU and MPI ones (nccl/*, mpi/*: tests/scale_out_test.cpp).
template <class Keep>
std::vector<const Backend*> device_backends(Keep keep) {
    std::vector<const Backend*> list;
    for (const auto& b : registered_backends())
        if (b.device != Device::cpu && !b.multi_gpu && !b.distributed && keep(b)) list.push_back(&b);
    return list;
}
inline std::vector<const Backend*> device_backends() {
    return device_backends([](const Backend&) { return true; });
}
inline std::vector<const Backend*> backends_of(Device device) {
    return device_backends([device](const Backend& b) { return b.device == device; });
}

// A test of one device backend: skipped, with the backend's reason, where it is unavailable, and
// watched by its API's hooks where it is not.
class DeviceBackendTest : public ::testing::TestWithParam<const Backend*> {
protected:
    void SetUp() override {
        if (auto reason = backend().why_unavailable()) GTEST_SKIP() << *reason;
        if (const auto watch = api_hooks(backend().device).watch) after_ = watch();
    }
    void TearDown() override {
        if (after_) after_();
    }
    const Backend& backend() const { return *GetParam(); }

private:
    std::function<void()> after_;
};

// Integers whose every partial sum, in any order, the backend's accumulator for T holds exactly
// (exact_up_to): small integers of T's magnitude where n of them allow it, else -1, 0 or 1 at every
// stride-th element and zeros between, at most exact_up_to of them, so that a 16-bit accumulator
// too must return the exact sum however long the input.
template <class T>
std::vector<T> exact_integers(const Backend& backend, std::size_t n, unsigned seed) {
    const double most = exact_up_to(backend.traits_for(element_type_of<T>).accumulator);
    if (static_cast<double>(n) * kExactMagnitude<T> <= most) return small_integers<T>(n, kExactMagnitude<T>, seed);
    const auto stride = static_cast<std::size_t>(std::ceil(static_cast<double>(n) / most));
    std::vector<T> v = small_integers<T>(n, 1, seed);
    for (std::size_t i = 0; i < n; ++i)
        if (i % stride != 0) v[i] = T(0);
    return v;
}

// Ones every 257 elements and in the last 1000, zeros elsewhere, 2^31 + 1001 of them: the sum (under
// 2^24) is exact in any order, and a lost or repeated stretch, the end past 2^31 included, changes
// it. Made once per type.
inline constexpr std::size_t kAbove2To31 = (std::size_t{1} << 31) + 1001;
inline constexpr double kAbove2To31Sum = static_cast<double>((kAbove2To31 - 1000 + 256) / 257 + 1000);
template <class T>
const std::vector<T>& above_2_to_31() {
    static const std::vector<T> data = [] {
        std::vector<T> v(kAbove2To31, T(0));
        for (std::size_t i = 0; i < v.size(); i += 257) v[i] = T(1);
        std::fill(v.end() - 1000, v.end(), T(1));
        return v;
    }();
    return data;
}

// Within the bound the backend's traits for T promise (tests/error_bounds.hpp) on uniform data:
// n elements, or for a 16-bit accumulator of unit roundoff u, 1 / (16 u) of them, where the bound
// still says something.
template <class T>
void within_the_bound_of_its_traits(const Backend& backend, std::size_t n) {
    const Traits& traits = backend.traits_for(element_type_of<T>);
    const double u = bounds::unit_roundoff(traits.accumulator);
    const auto v = uniform_values<T>(u > bounds::kFloatU ? static_cast<std::size_t>(1 / (16 * u)) : n, 5);
    const ExactAccumulator s = exact_sum_of(v);  // all positive: sum |x| = S
    const double bound = bounds::for_traits(traits, {.n = v.size(), .abs_sum = s.round(), .exact = s.round(), .threads = 1}).value();
    ASSERT_TRUE(std::isfinite(bound));
    EXPECT_LE(absolute_error(device_sum(backend, std::span<const T>(v)), s), bound)
        << "accumulator " << to_string(traits.accumulator) << ", order " << to_string(traits.order);
}

// The same bits on `calls` isolated calls and after a batch (for a backend that declares itself
// reproducible), on mixed signs, where another order of additions almost surely changes them.
template <class T>
void the_same_bits_on_every_call(const Backend& backend, int calls) {
    const auto v = normal_values<T>(1000003, 9);
    auto reduction = backend.prepare(std::span<const T>(v), {.batch = 3});
    reduction->run();
    const double first = reduction->result();
    for (int call = 0; call < calls; ++call) {
        reduction->run();
        ASSERT_EQ(reduction->result(), first) << "call " << call;
    }
    reduction->run_batch(3);
    EXPECT_EQ(reduction->result(), first) << "after a batch";
}

// `batches` batches of `calls` calls each leave the exact sum of `data`, integers every order sums
// exactly: each call of a batch sums its input again (an in-place kernel gets a fresh copy).
template <class T>
void every_batched_call_sums_the_input(const Backend& backend, const std::vector<T>& data, int calls, int batches) {
    auto reduction = backend.prepare(std::span<const T>(data), {.batch = calls});
    for (int batch = 0; batch < batches; ++batch) {
        EXPECT_GT(reduction->run_batch(calls), 0);
        EXPECT_EQ(reduction->result(), exact_sum_of(data).round()) << "batch " << batch;
    }
}

// A NaN, Inf or -Inf first, in the middle or last, of 1, 33 and 1000003 ones, reaches the result.
template <class T>
void nan_and_infinity_propagate(const Backend& backend) {
    // The other n - 1 ones must fit the accumulator: a 16-bit running total of 10^6 ones overflows to
    // +inf, and +inf + -inf is NaN, as IEEE says.
    const double most = exact_up_to(backend.traits_for(element_type_of<T>).accumulator);
    for (std::size_t n : {1u, 33u, 1000u, 1000003u})
        for (std::size_t where : {std::size_t{0}, n / 2, n - 1}) {
            if (static_cast<double>(n) > most) continue;
            std::vector<T> v(n, T(1));
            v[where] = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
            EXPECT_TRUE(std::isnan(device_sum(backend, std::span<const T>(v)))) << "NaN at " << where << " of " << n;
            v[where] = static_cast<T>(std::numeric_limits<float>::infinity());
            EXPECT_EQ(device_sum(backend, std::span<const T>(v)), std::numeric_limits<double>::infinity())
                << "Inf at " << where << " of " << n;
            v[where] = static_cast<T>(-std::numeric_limits<float>::infinity());
            EXPECT_EQ(device_sum(backend, std::span<const T>(v)), -std::numeric_limits<double>::infinity())
                << "-Inf at " << where << " of " << n;
        }
}

// A launch floor (Role::launch_floor) reads nothing and sums nothing: NaN after an isolated call, a
// timed transfer and a batch of `calls`, on no, one and 10^6 elements, each timing a positive time.
inline void a_launch_floor_sums_nothing(const Backend& backend, int calls) {
    EXPECT_EQ(backend.traits.role, Role::launch_floor);
    EXPECT_EQ(backend.traits.accumulator, Accumulator::none);
    EXPECT_EQ(backend.traits.order, Order::unordered);
    EXPECT_TRUE(backend.batches);
    for (std::size_t n : {0u, 1u, 1000003u}) {
        const auto data = small_integers(n, 8, 7);
        for (bool transfer : {false, true}) {
            auto reduction = backend.prepare(data, {.include_transfer = transfer, .batch = calls});
            const std::optional<double> seconds = reduction->run();
            ASSERT_TRUE(seconds) << "n=" << n;
            EXPECT_TRUE(std::isfinite(*seconds) && *seconds > 0) << "n=" << n << " isolated: " << *seconds;
            EXPECT_TRUE(std::isnan(reduction->result())) << "n=" << n << (transfer ? " with transfer" : "");
            if (transfer) continue;
            const double batch = reduction->run_batch(calls);
            EXPECT_TRUE(std::isfinite(batch) && batch > 0) << "n=" << n << " batched: " << batch;
            EXPECT_TRUE(std::isnan(reduction->result())) << "n=" << n << " after a batch";
        }
    }
}

// The floor's rows through the whole harness: at each size an isolated and a batched row, role
// launch_floor, a finite positive time, result NaN.
inline void a_launch_floor_measures_rows(const std::string& name) {
    const SweepResult r = sweep({"--backend=" + name, "--sizes=2^10,2^16"});
    ASSERT_EQ(r.status, 0) << r.err;
    std::map<std::string, int> timings;
    for (const auto& row : r.rows) {
        EXPECT_EQ(row.at("backend"), name);
        EXPECT_EQ(row.at("role"), "launch_floor");
        EXPECT_EQ(row.at("accumulator"), "none");
        EXPECT_EQ(row.at("result"), "nan");
        const double ns = std::stod(row.at("time_ns_median"));
        EXPECT_TRUE(std::isfinite(ns) && ns > 0) << row.at("timing") << " n=" << row.at("n") << ": " << ns;
        ++timings[row.at("timing")];
    }
    EXPECT_EQ(timings, (std::map<std::string, int>{{"batched", 2}, {"isolated", 2}}));
}

}  // namespace shootout::device_checks
