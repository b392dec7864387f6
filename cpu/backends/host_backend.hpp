// Builders for CPU backends: one function of the whole input on the calling thread, or a parallel
// Reduction made for a thread count. Every CPU backend reads its own PlacedInput (placed_input.hpp).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bench/backend.hpp"
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
    PlacedInput input;
    Sum sum;

    auto operator()(std::span<const T> x) { return sum(x); }
    std::string configuration() const
        requires requires(const Sum& s) { s.configuration(); }
    {
        return sum.configuration();
    }
};

// A Reduction whose run() is sum(its copy of the input), a copy of T.
template <class T = float, class Sum>
std::unique_ptr<Reduction> make_placed_reduction(PlacedInput input, Sum sum) {
    const std::span<const T> copy = input.span<T>();  // the copy's memory stays put when its owner moves
    return make_host_reduction(copy, PlacedSum<T, Sum>{std::move(input), std::move(sum)});
}

// One thread: the input copied, and so placed, by the thread that calls run().
template <class T, class Sum>
std::unique_ptr<Reduction> make_serial_reduction(std::span<const T> input, Sum sum) {
    return make_placed_reduction<T>(PlacedInput(input, 1, [](auto& copy_part) { copy_part(0); }), std::move(sum));
}

template <class Result>
Backend serial_backend(std::string name, std::string description, Traits traits,
                       Result (*sum)(const float*, std::size_t), UnavailableReason unavailable_reason = {}) {
    return {
        .name = std::move(name),
        .device = Device::cpu,
        .description = std::move(description),
        .traits = traits,
        .unavailable_reason = std::move(unavailable_reason),
        .prepare = [sum](std::span<const float> input, const PrepareOptions&) {
            return make_serial_reduction(input, [sum](std::span<const float> x) { return sum(x.data(), x.size()); });
        },
    };
}

// A serial backend of several element types: sum(const T*, n) for each T of `types`.
template <class Sum>
Backend typed_serial_backend(std::string name, std::string description, Traits traits, std::vector<ElementType> types, Sum sum,
                             UnavailableReason unavailable_reason = {}) {
    return {
        .name = std::move(name),
        .device = Device::cpu,
        .description = std::move(description),
        .traits = traits,
        .element_types = std::move(types),
        .unavailable_reason = std::move(unavailable_reason),
        .prepare = [sum](Elements input, const PrepareOptions&) {
            return input.visit([sum]<class T>(std::span<const T> values) {
                return make_serial_reduction(values, [sum](std::span<const T> x) { return sum(x.data(), x.size()); });
            });
        },
    };
}

// make(input, threads) returns the prepared std::unique_ptr<Reduction>.
template <class MakeReduction>
Backend parallel_backend(std::string name, std::string description, Traits traits, MakeReduction make,
                         UnavailableReason unavailable_reason = {}) {
    return {
        .name = std::move(name),
        .device = Device::cpu,
        .description = std::move(description),
        .parallel = true,
        .traits = traits,
        .unavailable_reason = std::move(unavailable_reason),
        .prepare = [make](std::span<const float> input, const PrepareOptions& options) -> std::unique_ptr<Reduction> {
            return make(input, options.threads);
        },
    };
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
