// A plain loop with independent accumulators of the element type: what the compiler's
// auto-vectoriser makes of it.
#include <type_traits>

#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

[[maybe_unused]] const bool registered = register_backend(serial_backend_in_element_type(
    "cpu/serial/unrolled",
    "plain loop, 16 independent accumulators of the element type (float or double; float for 16-bit input), vectorised by the compiler (baseline ISA)",
    kSerial(Accumulator::f32, Order::lanes), [](const auto* x, std::size_t n) {
        if constexpr (std::is_same_v<decltype(x), const double*>) return simd::sum_unrolled_f64(x, n);
        else return simd::sum_unrolled_f32(x, n);
    }));

}  // namespace
}  // namespace shootout
