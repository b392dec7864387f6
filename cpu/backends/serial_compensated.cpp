// Scalar compensated summation in the element type (float or double; float for float16 and
// bfloat16): Kahan's and Neumaier's, one element at a time.
#include "cpu/kernels/compensated.hpp"
#include "cpu/backends/host_backend.hpp"

namespace shootout {
namespace {

template <template <class> class Compensated, class T>
ArithmeticOf<T> sum_compensated(const T* x, std::size_t n) {
    Compensated<ArithmeticOf<T>> total;
    for (std::size_t i = 0; i < n; ++i) total.add(x[i]);
    return total.result();
}

[[maybe_unused]] const bool registered_kahan = register_backend(serial_backend_in_element_type(
    "cpu/serial/kahan", "Kahan compensated summation in the element type (float or double; float for 16-bit input), one element at a time",
    kSerial(Accumulator::compensated_f32, Order::sequential),
    [](const auto* x, std::size_t n) { return sum_compensated<KahanSum>(x, n); }));
[[maybe_unused]] const bool registered_neumaier = register_backend(serial_backend_in_element_type(
    "cpu/serial/neumaier", "Neumaier's improved Kahan summation in the element type (float or double; float for 16-bit input), one element at a time",
    kSerial(Accumulator::compensated_f32, Order::sequential),
    [](const auto* x, std::size_t n) { return sum_compensated<NeumaierSum>(x, n); }));

}  // namespace
}  // namespace shootout
