// Static partition of one input over a fixed number of threads, and the per-thread partial sums.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <vector>

namespace shootout {

// Part `part` of `parts` nearly equal pieces of x. Boundaries fall on multiples of 64 bytes (16
// floats, 8 doubles, 32 16-bit values) from the start, so with a 64-byte aligned input no cache line is shared by two
// threads.
template <class T>
std::span<const T> static_chunk(std::span<const T> x, int part, int parts) {
    constexpr std::size_t kLine = 64 / sizeof(T);
    const std::size_t lines = (x.size() + kLine - 1) / kLine;
    const std::size_t begin = std::min(x.size(), lines * part / parts * kLine);
    const std::size_t end = std::min(x.size(), lines * (part + 1) / parts * kLine);
    return x.subspan(begin, end - begin);
}

// One partial sum per thread, each on its own cache line so that writing them shares none.
class PartialSums {
public:
    explicit PartialSums(int parts) : slots_(static_cast<std::size_t>(parts)) {}
    double& operator[](int part) { return slots_[static_cast<std::size_t>(part)].value; }
    int size() const { return static_cast<int>(slots_.size()); }

    // In part order, so that a fixed thread count gives a bit-identical result on every run.
    double total() const {
        return std::accumulate(slots_.begin(), slots_.end(), 0.0, [](double sum, const Slot& s) { return sum + s.value; });
    }

private:
    struct alignas(64) Slot {
        double value = 0;
    };
    std::vector<Slot> slots_;
};

// Sums part `part` of x's static chunks with kernel(const T*, n) into partials[part].
template <class T, class Kernel>
void sum_chunk(std::span<const T> x, PartialSums& partials, int part, Kernel kernel) {
    const auto chunk = static_chunk(x, part, partials.size());
    partials[part] = kernel(chunk.data(), chunk.size());
}

}  // namespace shootout
