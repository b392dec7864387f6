// The share of cuda/exact's trips and values that leave the fast path on an input, counted on the
// CPU: the kernel's own thread sums (cuda/primitives/thread_*_sum.cuh compile for the host) driven
// in the agent's order (cuda/agents/exact_agent.cuh: even share of whole tiles, a trip of four
// 16-byte vectors 256 vectors apart, the fast step over the trip, then its missed values), on the
// bench's inputs (bench/inputs.hpp). Each run also checks that the thread sums' total is the exact
// sum. NOTES.md beside this says how to build and run it.
#include <cuda_bf16.h>

#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "bench/inputs.hpp"
#include "cuda/agents/exact_policy.cuh"
#include "cuda/primitives/thread_expansion_sum.cuh"
#include "cuda/primitives/thread_window_sum.cuh"

using namespace shootout;
using namespace shootout::cuda::exact_agent;

namespace {

constexpr int kGrid = 132 * 3, kBlock = 256, kLoads = 4;

// Calls trip(first element of each of the thread's trips' vectors) in the agent's order, and
// begin() before each thread's first.
template <class Begin, class Trip>
void walk(std::size_t vectors, Begin&& begin, Trip&& trip) {
    const std::size_t tile = std::size_t{kBlock} * kLoads, tiles = vectors / tile, base = tiles / kGrid, extra = tiles % kGrid;
    for (std::size_t b = 0; b < kGrid; ++b)
        for (std::size_t t = 0; t < kBlock; ++t) {
            begin();
            std::size_t count = base + (b < extra), p = (b * base + (b < extra ? b : extra)) * tile + t;
            for (; count != 0; --count, p += tile) trip(p);
        }
}

InputSpec spec_of(const std::string& input) {
    InputSpec spec;
    if (input == "wide") spec.distribution = Distribution::wide;
    else if (input == "cancel") spec.distribution = Distribution::cancel;
    else if (input == "uniform") spec.distribution = Distribution::uniform;
    else spec.distribution = Distribution::ill_conditioned;  // ill:1e16
    return spec;
}

// float32 and bfloat16 (widened): trips, those off the fast path, and values by where they went.
void floats(const std::string& input, const std::string& type, std::size_t n) {
    const bool bf16 = type == "bf16";
    std::vector<float> x(n);
    if (bf16) {
        std::vector<BFloat16> h(n);
        fill(std::span<BFloat16>(h), spec_of(input));
        for (std::size_t i = 0; i < n; ++i) x[i] = exact::float_from_bits(std::uint32_t{h[i].bits} << 16);
    } else {
        fill(std::span<float>(x), spec_of(input));
    }
    const int lanes = bf16 ? 8 : 4;
    std::vector<std::int64_t> column(exact::kDigits<float>);
    FloatThreadSum* sum = nullptr;
    alignas(FloatThreadSum) static unsigned char storage[sizeof(FloatThreadSum)];
    exact::Sum<float> total;
    std::size_t trips = 0, int32_trips = 0, slow = 0, values = 0, below = 0, digits = 0;
    const auto end_thread = [&] {
        if (!sum) return;
        const ThreadTotal t = sum->finish();
        if (t.digits_used)
            for (int k = 0; k < exact::kDigits<float>; ++k) total.digits[k] += column[k];
        if (t.lsb != kNoWindow) add_terms(total.digits, t.term, t.lsb);
        total.specials |= t.specials;
        exact::normalize(total.digits);
    };
    walk(n / lanes, [&] { end_thread(); sum = new (storage) FloatThreadSum(SharedDigits<float>{column.data(), 1}); }, [&](std::size_t p) {
        float v[32];
        int m = 0;
        for (int k = 0; k < kLoads; ++k)
            for (int l = 0; l < lanes; ++l) v[m++] = x[(p + static_cast<std::size_t>(k) * kBlock) * lanes + l];
        if (!sum->started()) {
            float largest = 0;
            for (int j = 0; j < m; ++j) largest = fmaxf(largest, fabsf(v[j]));
            sum->start(fminf(largest, FLT_MAX));
        }
        ++trips;
        values += m;
        if (bf16) {  // BfloatTrips: the int32 window, judged on the keys
            bool held = true;
            for (int j = 0; j < m; ++j) {
                const std::uint32_t key = (exact::bits_of(v[j]) >> 16 | 0x8000u) - 1;
                held &= static_cast<std::int16_t>(key) >= sum->bfloat_window().lowest && key < sum->bfloat_window().highest;
            }
            if (held) {
                ++int32_trips;
                for (int j = 0; j < m; ++j) sum->add(v[j]);  // the same values, at the float window's lsb
                return;
            }
        }
        // FloatTrips (BfloatTrips' redo does it a quad at a time with the range of that quad's step).
        const FastRange used = sum->fast_range();
        bool fast = true;
        for (int j = 0; j < m; ++j) fast &= used.contains(fabsf(v[j]));
        slow += !fast;
        const auto quad = [&](int q) { return make_float4(v[4 * q], v[4 * q + 1], v[4 * q + 2], v[4 * q + 3]); };
        if (bf16) {
            for (int q = 0; q < m / 4; ++q) {
                const FastRange range = sum->fast_range();
                if (!sum->add_inside(quad(q))) sum->add_missed(quad(q), range);
            }
        } else {
            bool all = true;
            for (int q = 0; q < m / 4; ++q) all &= sum->add_inside(quad(q));
            if (!all)
                for (int q = 0; q < m / 4; ++q) sum->add_missed(quad(q), used);
        }
        for (int j = 0; j < m; ++j) {
            const float a = fabsf(v[j]);
            if (a == 0 || used.contains(a)) continue;
            // Off the fast path: with one fast window into the window below it where it fits (its
            // lsb at -126 or above aside), else (and with two) into the digits.
            (false && a >= used.lo * 0x1p-30f && a < used.lo ? below : digits) += 1;
        }
    });
    end_thread();
    exact::Sum<float> reference;
    exact::accumulate(x.data(), x.size(), reference);
    std::printf("%-9s %-4s fast windows 2: trips %zu, int32 %.4f, off the fast path %.4f; values off it %.4f, of them into the digits %.4f; sum %s\n",
                input.c_str(), type.c_str(), trips, double(int32_trips) / trips, double(slow) / trips,
                double(below + digits) / values, double(digits) / values, reference.round() == total.round() ? "exact" : "WRONG");
}

void doubles(const std::string& input, std::size_t n) {
    std::vector<double> x(n);
    fill(std::span<double>(x), spec_of(input));
    std::vector<std::int64_t> column(exact::kDigits<double>);
    using Sum = DoubleThreadSum<kExpansionTerms>;
    Sum* sum = nullptr;
    alignas(Sum) static unsigned char storage[sizeof(Sum)];
    std::size_t trips = 0, slow = 0;
    walk(n / 2, [&] { sum = new (storage) Sum(WarpDigits{column.data(), 1}); }, [&](std::size_t p) {
        const uint4 unused[kLoads] = {};
        sum->begin_trip(unused);
        double v[8];
        int m = 0;
        for (int k = 0; k < kLoads; ++k)
            for (int l = 0; l < 2; ++l) v[m++] = x[(p + static_cast<std::size_t>(k) * kBlock) * 2 + l];
        for (int j = 0; j < m; ++j) sum->add_fast(v[j]);
        ++trips;
        if (!sum->end_trip()) {
            ++slow;
            for (int j = 0; j < m; ++j) sum->add_one(v[j]);
        }
    });
    std::printf("%-9s f64  expansion of %d: trips %zu, redone a double at a time %.4f\n", input.c_str(), kExpansionTerms, trips, double(slow) / trips);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: window_share uniform|ill:1e16|cancel|wide f32|bf16|f64 LOG2_N\n");
        return 2;
    }
    const std::string input = argv[1], type = argv[2];
    const std::size_t n = std::size_t{1} << std::atoi(argv[3]);
    if (type == "f64") {
        doubles(input, n);
    } else {
        floats(input, type, n);
    }
}
