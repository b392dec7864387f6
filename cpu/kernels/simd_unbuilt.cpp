// Stand-ins for the SIMD kernels of the other architecture, whose files this build does not compile
// (cpu/CMakeLists.txt): every name simd_kernels.hpp declares links in every build, so code that
// lists each instruction set's kernels (simd_backends.cpp, the tests) needs no #if. Their
// *_unavailable() say "not an x86-64 build" or "not an aarch64 build"; a call anyway is a bug, and
// throws.
#include <stdexcept>
#include <string>

#include "cpu/kernels/simd_kernels.hpp"

namespace shootout::simd {
namespace {

[[noreturn]] void not_built(const char* kernel) {
    throw std::logic_error(std::string("simd::") + kernel + ": not compiled for this architecture");
}

}  // namespace

#if !defined(__x86_64__)
float sum_avx2_f32(const float*, std::size_t) { not_built("sum_avx2_f32"); }
float sum_avx512_f32(const float*, std::size_t) { not_built("sum_avx512_f32"); }
float sum_avx512_f32_prefetched(const float*, std::size_t) { not_built("sum_avx512_f32_prefetched"); }
float sum_avx2_kahan(const float*, std::size_t) { not_built("sum_avx2_kahan"); }
float sum_avx512_kahan(const float*, std::size_t) { not_built("sum_avx512_kahan"); }
float sum_avx2_f32(const Float16*, std::size_t) { not_built("sum_avx2_f32"); }
float sum_avx512_f32(const Float16*, std::size_t) { not_built("sum_avx512_f32"); }
float sum_avx2_f32(const BFloat16*, std::size_t) { not_built("sum_avx2_f32"); }
float sum_avx512_f32(const BFloat16*, std::size_t) { not_built("sum_avx512_f32"); }
float sum_avx2_kahan(const Float16*, std::size_t) { not_built("sum_avx2_kahan"); }
float sum_avx512_kahan(const Float16*, std::size_t) { not_built("sum_avx512_kahan"); }
float sum_avx2_kahan(const BFloat16*, std::size_t) { not_built("sum_avx2_kahan"); }
float sum_avx512_kahan(const BFloat16*, std::size_t) { not_built("sum_avx512_kahan"); }
double sum_avx2_kahan(const double*, std::size_t) { not_built("sum_avx2_kahan"); }
double sum_avx512_kahan(const double*, std::size_t) { not_built("sum_avx512_kahan"); }
double sum_avx2_f64(const float*, std::size_t) { not_built("sum_avx2_f64"); }
double sum_avx512_f64(const float*, std::size_t) { not_built("sum_avx512_f64"); }
double sum_avx2_f64(const double*, std::size_t) { not_built("sum_avx2_f64"); }
double sum_avx512_f64(const double*, std::size_t) { not_built("sum_avx512_f64"); }
void accumulate_avx2_exact(const float*, std::size_t, exact::Sum<float>&) { not_built("accumulate_avx2_exact"); }
void accumulate_avx2_exact(const Float16*, std::size_t, exact::Sum<float>&) { not_built("accumulate_avx2_exact"); }
void accumulate_avx2_exact(const BFloat16*, std::size_t, exact::Sum<float>&) { not_built("accumulate_avx2_exact"); }
void accumulate_avx512_exact(const float*, std::size_t, exact::Sum<float>&) { not_built("accumulate_avx512_exact"); }
void accumulate_avx512_exact(const Float16*, std::size_t, exact::Sum<float>&) { not_built("accumulate_avx512_exact"); }
void accumulate_avx512_exact(const BFloat16*, std::size_t, exact::Sum<float>&) { not_built("accumulate_avx512_exact"); }
#endif

#if !defined(__aarch64__)
float sum_neon_f32(const float*, std::size_t) { not_built("sum_neon_f32"); }
float sum_sve_f32(const float*, std::size_t) { not_built("sum_sve_f32"); }
float sum_neon_kahan(const float*, std::size_t) { not_built("sum_neon_kahan"); }
float sum_sve_kahan(const float*, std::size_t) { not_built("sum_sve_kahan"); }
float sum_neon_f32(const Float16*, std::size_t) { not_built("sum_neon_f32"); }
float sum_sve_f32(const Float16*, std::size_t) { not_built("sum_sve_f32"); }
float sum_neon_f32(const BFloat16*, std::size_t) { not_built("sum_neon_f32"); }
float sum_sve_f32(const BFloat16*, std::size_t) { not_built("sum_sve_f32"); }
float sum_neon_kahan(const Float16*, std::size_t) { not_built("sum_neon_kahan"); }
float sum_sve_kahan(const Float16*, std::size_t) { not_built("sum_sve_kahan"); }
float sum_neon_kahan(const BFloat16*, std::size_t) { not_built("sum_neon_kahan"); }
float sum_sve_kahan(const BFloat16*, std::size_t) { not_built("sum_sve_kahan"); }
double sum_neon_kahan(const double*, std::size_t) { not_built("sum_neon_kahan"); }
double sum_sve_kahan(const double*, std::size_t) { not_built("sum_sve_kahan"); }
double sum_neon_f64(const float*, std::size_t) { not_built("sum_neon_f64"); }
double sum_sve_f64(const float*, std::size_t) { not_built("sum_sve_f64"); }
double sum_neon_f64(const double*, std::size_t) { not_built("sum_neon_f64"); }
double sum_sve_f64(const double*, std::size_t) { not_built("sum_sve_f64"); }
std::size_t sve_vector_bits() { not_built("sve_vector_bits"); }
#endif

}  // namespace shootout::simd
