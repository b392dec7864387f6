// std::accumulate, the way most code sums: one running total, in float or in double.
#include <numeric>
#include <type_traits>

#include "cpu/backends/host_backend.hpp"

namespace shootout {
namespace {

// A running Total over input of each of Types.
template <class Total, class... Types>
Backend serial_accumulate(std::string name, std::string description) {
    return serial_backend<Types...>(
        std::move(name), std::move(description),
        kSerial(std::is_same_v<Total, double> ? Accumulator::f64 : Accumulator::f32, Order::sequential),
        [](const auto* x, std::size_t n) { return std::accumulate(x, x + n, Total{0}); });
}

// Float input only: a float total of doubles rounds every double to float on the way in, a sum
// nobody should measure.
[[maybe_unused]] const bool registered_f32 = register_backend(serial_accumulate<float, float>(
    "cpu/serial/accumulate-f32", "std::accumulate into a float: one thread, one running float total (float32 input only)"));
[[maybe_unused]] const bool registered_f64 = register_backend(serial_accumulate<double, float, double>(
    "cpu/serial/accumulate-f64",
    "std::accumulate into a double: one thread, one running double total (floats widened before adding)"));

}  // namespace
}  // namespace shootout
