// What the tests over every registered backend share: how GoogleTest names and prints a backend,
// the element types a backend is tested on, data on which every correct summation order is exact,
// and the exact sum and error of a result in either element type.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <ostream>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "api/backend.hpp"
#include "api/device_api.hpp"
#include "cuda/runtime/cuda_api.hpp"
#include "api/element_type.hpp"
#include "exact/exact_sum.hpp"
#include "bench/inputs.hpp"

namespace shootout {

// A parameter appears in ctest's test names and in failure messages: the backend's name, not its address.
inline void PrintTo(const Backend* backend, std::ostream* os) { *os << backend->name; }

// "cpu/avx2/kahan" -> "cpu_avx2_kahan": test names allow only letters, digits and underscores.
inline std::string backend_test_name(const ::testing::TestParamInfo<const Backend*>& info) {
    std::string name = info.param->name;
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
}

// Calls f(std::type_identity<T>{}) with the C++ type T of each element type the backend declares,
// failures inside naming the type: a backend is tested on every type it takes, except one this
// machine cannot give it (Backend::why_type_unavailable), which is named on the output.
template <class F>
void for_each_element_type(const Backend& backend, F&& f) {
    for (ElementType type : backend.element_types) {
        if (const auto reason = backend.why_type_unavailable(type)) {
            std::cout << "[ SKIPPED  ] " << backend.name << " " << to_string(type) << ": " << *reason << '\n';
            continue;
        }
        SCOPED_TRACE(std::string("element type ") + std::string(to_string(type)));
        switch (type) {
            case ElementType::f32: f(std::type_identity<float>{}); break;
            case ElementType::f64: f(std::type_identity<double>{}); break;
            case ElementType::f16: f(std::type_identity<Float16>{}); break;
            case ElementType::bf16: f(std::type_identity<BFloat16>{}); break;
        }
    }
}

// Integers in [-magnitude, magnitude]: while n * magnitude < 2^24 (2^53 for doubles) every partial
// sum of any order is an integer exact in T, so every correct algorithm, float or not, returns the
// exact sum, and a skipped, repeated or misread element changes it.
template <class T = float>
std::vector<T> small_integers(std::size_t n, int magnitude, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> value(-magnitude, magnitude);
    std::vector<T> v(n);
    for (T& x : v) x = T(static_cast<double>(value(rng)));
    return v;
}

// A reference copy moves the input and sums nothing.
inline bool sums(const Backend& backend) { return backend.traits.accumulator != Accumulator::none; }

// A device backend's sum of the input: two calls on one prepared input (the second from scratch),
// each returning the time its device timestamps measured.
inline double device_sum(const Backend& backend, Elements input, bool include_transfer = false) {
    auto reduction = backend.prepare(input, {.include_transfer = include_transfer});
    const std::optional<double> seconds = reduction->run();
    EXPECT_TRUE(seconds && *seconds > 0) << "run() must return the time its events measured";
    reduction->run();
    return reduction->result();
}

// Why this build has no CUDA backends, or nullopt when it has them.
inline std::optional<std::string> cuda_unbuilt() { return find_device_api(cuda::kDevice)->unbuilt; }
// small_integers' largest magnitude for T at up to 2^20 elements: 8 for float and the 16-bit types
// (whose accumulators are float or wider, or 16 bits wide: see exact_up_to); 2^30 for double, where
// most of the integers are not floats, so a double read as or rounded to a float shows.
template <class T>
inline constexpr int kExactMagnitude = std::is_same_v<T, double> ? 1 << 30 : 8;

// The largest n x magnitude for which every partial sum of n small integers is exact in an
// accumulator: 2^p for its p significand bits (2^24 for float, 2^11 for float16, 2^8 for
// bfloat16; doubles and exact sums far past any test's size). The tensor cores' totals are floats, and
// kExactMagnitude's integers are TF32 terms as they are.
inline double exact_up_to(Accumulator accumulator) {
    switch (accumulator) {
        case Accumulator::f32:
        case Accumulator::compensated_f32:
        case Accumulator::tf32:
        case Accumulator::tf32_split: return 0x1p24;
        case Accumulator::f16: return 0x1p11;
        case Accumulator::bf16: return 0x1p8;
        default: return 0x1p53;
    }
}

// Uniform values in [0, 1) with T's full precision (for the 16-bit types, a double in [0, 1)
// rounded to T: [0, 1], as 1 - 2^-54 rounds up).
template <class T>
std::vector<T> uniform_values(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    using Draw = std::conditional_t<std::is_same_v<T, float>, float, double>;
    std::uniform_real_distribution<Draw> value(0, 1);
    std::vector<T> v(n);
    for (T& x : v) x = T(value(rng));
    return v;
}

// Normally distributed values (mixed signs: a changed order of additions almost surely changes the
// bits), drawn as floats and rounded to T.
template <class T>
std::vector<T> normal_values(std::size_t n, std::uint64_t seed) {
    std::vector<float> drawn(n);
    fill(drawn, Distribution::normal, seed);
    std::vector<T> v(n);
    std::transform(drawn.begin(), drawn.end(), v.begin(), [](float x) { return T(x); });
    return v;
}

// S of the values, rounded only by round(): exact_sum for floats and the 16-bit types (floats all);
// doubles each added with ExactAccumulator::add(double), which is exact.
template <class T>
ExactAccumulator exact_sum_of(std::span<const T> values) {
    if constexpr (!std::is_same_v<T, double>) {
        return exact_sum(values);
    } else {
        ExactAccumulator sum;
        for (T x : values) sum.add(x);
        return sum;
    }
}
template <class T>
ExactAccumulator exact_sum_of(const std::vector<T>& values) {
    return exact_sum_of(std::span<const T>(values));
}

// |result - S|, the difference computed exactly and rounded once.
inline double absolute_error(double result, const ExactAccumulator& exact) {
    ExactAccumulator difference = exact;
    difference.add(-result);
    return std::abs(difference.round());
}

}  // namespace shootout
