// std::accumulate, the way most code sums: one running total, in float or in double.
#include <numeric>
#include <type_traits>

#include "cpu/backends/host_backend.hpp"

namespace shootout {
namespace {

template <class Total>
Backend serial_accumulate(std::string name, std::string description) {
    return {
        .name = std::move(name),
        .device = Device::cpu,
        .description = std::move(description),
        .traits = {.accumulator = std::is_same_v<Total, double> ? Accumulator::f64 : Accumulator::f32,
                   .order = Order::sequential,
                   .reproducibility = Reproducibility::any_thread_count},
        .prepare = [](std::span<const float> input, const PrepareOptions&) {
            return make_serial_reduction(input, [](std::span<const float> x) {
                return std::accumulate(x.begin(), x.end(), Total{0});
            });
        },
    };
}

[[maybe_unused]] const bool registered_f32 = register_backend(serial_accumulate<float>(
    "cpu/serial/accumulate-f32", "std::accumulate into a float: one thread, one running float total"));
[[maybe_unused]] const bool registered_f64 = register_backend(serial_accumulate<double>(
    "cpu/serial/accumulate-f64", "std::accumulate into a double: one thread, each float widened before adding"));

}  // namespace
}  // namespace shootout
