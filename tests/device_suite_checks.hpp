// The checks every device API's suite (gpu_backends_test, opencl_backends_test,
// vulkan_backends_test) makes of each of its backends in one element type T: called inside
// for_each_element_type, each through device_sum() (tests/backend_test_support.hpp); and of its
// launch floor, which sums nothing.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/backend.hpp"
#include "tests/backend_test_support.hpp"
#include "tests/error_bounds.hpp"
#include "tests/sweep_support.hpp"

namespace shootout::device_checks {

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
