// Builders for CPU backends: one function of the whole input on the calling thread, or a parallel
// Reduction made for a thread count, for each element type a backend takes. Every CPU backend reads
// its own placed copy of the input (placed_input.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "api/backend.hpp"
#include "cpu/parallel/placed_input.hpp"

namespace shootout {

// The traits most CPU backends share.
inline constexpr Traits kSerial(Accumulator accumulator, Order order) {
    return {.accumulator = accumulator, .order = order, .reproducibility = Reproducibility::any_thread_count};
}
// Static chunks, one per thread, partials added in thread order: repeatable at one thread count.
inline constexpr Traits kStaticChunks(Accumulator accumulator, Role role = Role::reduction) {
    return {.accumulator = accumulator, .order = Order::thread_chunks,
            .reproducibility = Reproducibility::per_thread_count, .role = role};
}

using UnavailableReason = std::function<std::optional<std::string>()>;

// A sum that owns the placed copy it reads, and passes on sum's configuration() where it has one.
template <class T, class Sum>
struct PlacedSum {
    PlacedInputOf<T> input;
    Sum sum;

    auto operator()(std::span<const T> x) { return sum(x); }
    std::string configuration() const
        requires requires(const Sum& s) { s.configuration(); }
    {
        return sum.configuration();
    }
};

// A Reduction whose run() is sum(its copy of the input).
template <class T, class Sum>
std::unique_ptr<Reduction> make_placed_reduction(PlacedInputOf<T> input, Sum sum) {
    const std::span<const T> copy = input.span();  // the copy's memory stays put when its owner moves
    return make_host_reduction(copy, PlacedSum<T, Sum>{std::move(input), std::move(sum)});
}

// One thread: the input copied, and so placed, by the thread that calls run().
template <class T, class Sum>
std::unique_ptr<Reduction> make_serial_reduction(std::span<const T> input, Sum sum) {
    return make_placed_reduction(PlacedInputOf<T>(input, 1, [](auto& copy_part) { copy_part(0); }), std::move(sum));
}

// A backend that sums on the calling thread with sum(const E*, n) for input of each element type E
// it takes, T and Rest (the C++ types of Backend::element_types; float32 alone unless named): one
// function of a float array, or a generic lambda over the types named.
template <class T = float, class... Rest, class Sum>
Backend serial_backend(std::string name, std::string description, Traits traits, Sum sum,
                       UnavailableReason unavailable_reason = {}) {
    return {
        .name = std::move(name),
        .device = Device::cpu,
        .description = std::move(description),
        .traits = traits,
        .element_types = {element_type_of<T>, element_type_of<Rest>...},
        .unavailable_reason = std::move(unavailable_reason),
        .prepare = [sum](Elements input, const PrepareOptions&) {
            return input.template visit<T, Rest...>([&](auto typed) {
                return make_serial_reduction(typed, [sum](auto x) { return sum(x.data(), x.size()); });
            });
        },
    };
}

// serial_backend for float, double, float16 and bfloat16 input, summed in the element type's
// arithmetic (ArithmeticOf: float for the 16-bit types): `of_floats` are the traits of float input,
// and of the 16-bit types; double input's are the same with the accumulator's double counterpart
// (f32 -> f64, compensated_f32 -> compensated_f64).
template <class Sum>
Backend serial_backend_in_element_type(std::string name, std::string description, Traits of_floats, Sum sum) {
    Backend backend = serial_backend<float, double, Float16, BFloat16>(std::move(name), std::move(description), of_floats, std::move(sum));
    Traits of_doubles = of_floats;
    of_doubles.accumulator = of_floats.accumulator == Accumulator::compensated_f32 ? Accumulator::compensated_f64 : Accumulator::f64;
    backend.traits_by_type = {{ElementType::f64, of_doubles}};
    return backend;
}

// make(std::span<const E> input, threads) returns the prepared std::unique_ptr<Reduction>, for
// input of each element type E the backend takes: T and Rest, as for serial_backend.
template <class T = float, class... Rest, class MakeReduction>
Backend parallel_backend(std::string name, std::string description, Traits traits, MakeReduction make,
                         UnavailableReason unavailable_reason = {}) {
    return {
        .name = std::move(name),
        .device = Device::cpu,
        .description = std::move(description),
        .parallel = true,
        .traits = traits,
        .element_types = {element_type_of<T>, element_type_of<Rest>...},
        .unavailable_reason = std::move(unavailable_reason),
        .prepare = [make](Elements input, const PrepareOptions& options) -> std::unique_ptr<Reduction> {
            return input.template visit<T, Rest...>([&](auto typed) { return make(typed, options.threads); });
        },
    };
}

// A parallel backend over every element type that sums each range with simd::Best::lanes_of<T>():
// double lanes for float and double input (`traits`, whose accumulator is f64), float lanes for
// float16 and bfloat16 (the same traits with an f32 accumulator). make as for parallel_backend.
template <class MakeReduction>
Backend parallel_backend_in_lanes(std::string name, std::string description, Traits traits, MakeReduction make,
                                  UnavailableReason unavailable_reason = {}) {
    Backend backend = parallel_backend<float, double, Float16, BFloat16>(std::move(name), std::move(description), traits,
                                                                         std::move(make), std::move(unavailable_reason));
    Traits of_16_bits = traits;
    of_16_bits.accumulator = Accumulator::f32;
    backend.traits_by_type = {{ElementType::f16, of_16_bits}, {ElementType::bf16, of_16_bits}};
    return backend;
}

// A parallel backend this build cannot run at all: listed, with the reason, under its stable name.
inline Backend unavailable_backend(std::string name, std::string description, Traits traits, std::string reason) {
    auto make = [name](std::span<const float>, int) -> std::unique_ptr<Reduction> {
        throw std::logic_error(name + ": prepared, but this build cannot run it");
    };
    return parallel_backend(std::move(name), std::move(description), traits, make,
                            [reason = std::move(reason)]() -> std::optional<std::string> { return reason; });
}

}  // namespace shootout
