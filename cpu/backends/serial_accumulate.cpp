// std::accumulate, the way most code sums: one running total, in float or in double; and for
// float16 and bfloat16 input in the input's own 16-bit format, as a framework does that keeps a
// tensor's sum in its dtype.
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

// No double input: a float total of doubles rounds every double to float on the way in, a sum
// nobody should measure. 16-bit input is widened to float, as frameworks sum it.
[[maybe_unused]] const bool registered_f32 = register_backend(serial_accumulate<float, float, Float16, BFloat16>(
    "cpu/serial/accumulate-f32",
    "std::accumulate into a float: one thread, one running float total (float32, and 16-bit input widened; no float64)"));
[[maybe_unused]] const bool registered_f64 = register_backend(serial_accumulate<double, float, double, Float16, BFloat16>(
    "cpu/serial/accumulate-f64",
    "std::accumulate into a double: one thread, one running double total (floats and 16-bit values widened before adding)"));

// A running total in T itself: each float addition of two T values rounded back to T, which is
// T's own correctly rounded addition (api/float16.hpp). It stalls once the total's half ulp
// passes the addends (at 2048 for float16 values below 1, at 256 for bfloat16), and float16's
// overflows past 65504: the accuracy a 16-bit accumulator costs.
template <class T>
Backend serial_accumulate_native(std::string name, std::string description, Accumulator accumulator) {
    return serial_backend<T>(std::move(name), std::move(description), kSerial(accumulator, Order::sequential),
                             [](const T* x, std::size_t n) {
                                 T total(0.0);
                                 for (std::size_t i = 0; i < n; ++i) total = T::round(static_cast<float>(total) + static_cast<float>(x[i]));
                                 return static_cast<float>(total);
                             });
}

[[maybe_unused]] const bool registered_f16 = register_backend(serial_accumulate_native<Float16>(
    "cpu/serial/accumulate-f16", "one running float16 total, each addition rounded to float16 (float16 input only)", Accumulator::f16));
[[maybe_unused]] const bool registered_bf16 = register_backend(serial_accumulate_native<BFloat16>(
    "cpu/serial/accumulate-bf16", "one running bfloat16 total, each addition rounded to bfloat16 (bfloat16 input only)",
    Accumulator::bf16));

}  // namespace
}  // namespace shootout
