// The exact sum on one thread with the widest vectors this CPU runs: floats inside a fixed-point
// window summed as 64-bit integers in vector lanes, the others one at a time into the
// superaccumulator, the total rounded once (simd_exact.hpp). AVX-512 or AVX2, chosen at run time.
// Doubles take the superaccumulator one at a time; float16 and bfloat16 values the float kernel,
// widened as they are loaded, float16 in one window of 2^-24 units (exact_kernel.hpp).
#include "exact/exact_accumulator.hpp"
#include "cpu/backends/exact_kernel.hpp"
#include "cpu/backends/host_backend.hpp"

namespace shootout {
namespace {

[[maybe_unused]] const bool registered = register_backend(serial_backend<float, double, Float16, BFloat16>(
    "cpu/exact/simd",
    "exact sum rounded once: fixed-point window in 64-bit integer lanes, other floats into a superaccumulator (AVX-512, AVX2 or portable); doubles one at a time, float16 as int64 units, bfloat16 widened",
    kSerial(Accumulator::exact, Order::lanes),
    []<class T>(const T* x, std::size_t n) {
        ExactSumOf<T> sum;
        accumulate_exact(x, n, sum);
        return sum.round();
    }));

}  // namespace
}  // namespace shootout
