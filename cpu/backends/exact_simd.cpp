// The exact sum on one thread with the widest vectors this CPU runs: floats inside a fixed-point
// window summed as 64-bit integers in vector lanes, the others one at a time into the
// superaccumulator, the total rounded once (simd_exact.hpp). AVX-512 or AVX2, chosen at run time.
#include "exact/exact_accumulator.hpp"
#include "cpu/backends/host_backend.hpp"
#include "cpu/kernels/simd_kernels.hpp"

namespace shootout {
namespace {

double sum_exact_simd(const float* x, std::size_t n) {
    exact::Sum sum;
    simd::best().accumulate_exact(x, n, sum);
    return sum.round();
}

[[maybe_unused]] const bool registered = register_backend(serial_backend(
    "cpu/exact/simd",
    "exact sum rounded once: fixed-point window in 64-bit integer lanes, other floats into a superaccumulator (AVX-512, AVX2 or portable)",
    kSerial(Accumulator::exact, Order::lanes), sum_exact_simd));

}  // namespace
}  // namespace shootout
