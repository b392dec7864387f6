// The exact kernels per value, the fastest of many calls (results/tuning/cpu-exact-threads/NOTES.md):
//   g++ -std=c++20 -O2 -I. exact_per_value.cpp build/release/CMakeFiles/shootout_backends.dir/cpu/kernels/simd_{avx2,avx512,dispatch,unbuilt}.cpp.o
//   ./a.out N REPS
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#include "cpu/kernels/simd_kernels.hpp"
#include "exact/exact_accumulator.hpp"
using namespace shootout;
template <class F> double best_ns(F f, int reps) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        auto t0 = std::chrono::steady_clock::now(); f(); auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    return best;
}
static volatile double sink;
int main(int argc, char** argv) {
    std::size_t n = argc > 1 ? std::atoll(argv[1]) : 4096;
    int reps = argc > 2 ? std::atoi(argv[2]) : 3000;
    std::mt19937 g(1); std::uniform_real_distribution<float> u(0, 1);
    std::vector<float> f(n); std::vector<Float16> h(n); std::vector<BFloat16> b(n);
    for (std::size_t i = 0; i < n; ++i) { f[i] = u(g); h[i] = Float16(f[i]); b[i] = BFloat16(f[i]); }
    struct Isa { const char* name; void (*f32)(const float*, std::size_t, exact::Sum<float>&); void (*f16)(const Float16*, std::size_t, exact::Sum<float>&); void (*bf16)(const BFloat16*, std::size_t, exact::Sum<float>&); float (*plain)(const float*, std::size_t); };
    Isa isas[] = {{"avx512", simd::accumulate_avx512_exact, simd::accumulate_avx512_exact, simd::accumulate_avx512_exact, simd::sum_avx512_f32},
                  {"avx2", simd::accumulate_avx2_exact, simd::accumulate_avx2_exact, simd::accumulate_avx2_exact, simd::sum_avx2_f32}};
    for (auto& k : isas) {
        auto run = [&](auto call) { return best_ns([&] { exact::Sum<float> s; call(s); sink = s.round(); }, reps) / n; };
        double p = best_ns([&] { sink = k.plain(f.data(), n); }, reps) / n;
        double e32 = run([&](auto& s) { k.f32(f.data(), n, s); });
        double e16 = run([&](auto& s) { k.f16(h.data(), n, s); });
        double eb = run([&](auto& s) { k.bf16(b.data(), n, s); });
        std::printf("%-7s n=%zu ns a value: plain f32 %.3f | exact f32 %.3f, f16 %.3f, bf16 %.3f\n", k.name, n, p, e32, e16, eb);
    }
}
