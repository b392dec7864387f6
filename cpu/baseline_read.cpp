// The machine's read ceiling, per thread count, against which every CPU row is judged: the fastest
// read of the input this machine manages with up to T threads.
//
// The loop is the widest float-lane kernel, the fastest read loop measured here at every cache
// level (two full loads a cycle in L1, no software prefetch; cpu/PERFORMANCE.md). Around it, three
// choices that a reduction backend could otherwise make better than the ceiling:
//   - Parts: no more threads than the input has grains (CeilingPolicy), one part on the calling
//     thread without the pool at all. Waking a thread costs more than it saves on a small input,
//     where one thread, or oneTBB's grain-sized split, read faster than T static chunks.
//   - Placement: part k is the k-th static chunk, copied in prepare by pool thread k, which reads
//     it (cpu/placed_input.hpp).
//   - Balance: each part is read in chunks claimed from its own cursor, and a thread that finishes
//     its part takes the chunks left in the others. On a quiet machine every thread reads just its
//     own part; where one vCPU is starved (the shared VM) the others take over its chunks, as
//     oneTBB's work stealing does, instead of waiting for it.
// The result is the float-lane sums of the chunks, added in double in chunk order: the same bits on
// every run at one thread count, whichever thread read which chunk.
#include <algorithm>
#include <atomic>
#include <vector>

#include "host_backend.hpp"
#include "simd_kernels.hpp"
#include "static_chunks.hpp"
#include "thread_pool.hpp"

namespace shootout {
namespace {

struct CeilingPolicy {
    // Bytes per part at least: oneTBB's grain here (2^16 floats). The pool's dispatch, about 1.2 us
    // at 2 threads on the VMs (cpu/PERFORMANCE.md), is what one core reads of 256 KiB from L2.
    static constexpr std::size_t grain_bytes = std::size_t{256} << 10;
    // Chunks per part, at most: the granularity at which an idle thread can take over a starved
    // one's work. A chunk is at least 1 MiB: each is a kernel call and a claim, ~25 ns, which 64 KiB
    // chunks made 4% of a 2-thread read of 4 MiB from L3 (a quarter of that read from 1 MiB).
    static constexpr std::size_t chunks_per_part = 32;
    static constexpr std::size_t min_chunk_bytes = std::size_t{1} << 20;
};

class CeilingRead {
public:
    CeilingRead(int threads, simd::SumToFloat kernel)
        : pool_(threads), kernel_(kernel), cursors_(static_cast<std::size_t>(threads)),
          chunk_sums_(static_cast<std::size_t>(threads) * (CeilingPolicy::chunks_per_part + 1)) {}

    ThreadPool& pool() { return pool_; }

    double operator()(std::span<const float> x) {
        constexpr std::size_t grain = CeilingPolicy::grain_bytes / sizeof(float);
        const int parts = static_cast<int>(std::min<std::size_t>(pool_.size(), std::max<std::size_t>(1, x.size() / grain)));
        if (parts == 1) return kernel_(x.data(), x.size());
        for (int part = 0; part < parts; ++part) cursors_[part].next.store(0, std::memory_order_relaxed);
        auto read = [&](int self) {
            if (self >= parts) return;
            for (int k = 0; k < parts; ++k) read_part(x, (self + k) % parts, parts);  // its own first
        };
        pool_.run_shared(read);  // publishes the cursors and, on return, the chunk sums
        double total = 0;
        for (int part = 0; part < parts; ++part)
            for (std::size_t chunk = 0; chunk < chunks(x, part, parts); ++chunk) total += slot(part, chunk);
        return total;
    }

private:
    struct alignas(64) Cursor {
        std::atomic<std::size_t> next{0};
    };

    static std::size_t chunk_floats(std::span<const float> x, int part, int parts) {
        constexpr std::size_t line = 64 / sizeof(float), least = CeilingPolicy::min_chunk_bytes / sizeof(float);
        const std::size_t floats = static_chunk(x, part, parts).size();
        return std::max(least, (floats + CeilingPolicy::chunks_per_part * line - 1) / (CeilingPolicy::chunks_per_part * line) * line);
    }
    static std::size_t chunks(std::span<const float> x, int part, int parts) {
        const std::size_t floats = static_chunk(x, part, parts).size(), each = chunk_floats(x, part, parts);
        return (floats + each - 1) / each;
    }
    double& slot(int part, std::size_t chunk) {
        return chunk_sums_[static_cast<std::size_t>(part) * (CeilingPolicy::chunks_per_part + 1) + chunk];
    }

    // Reads the chunks of `part` that no thread has claimed yet.
    void read_part(std::span<const float> x, int part, int parts) {
        const std::span<const float> range = static_chunk(x, part, parts);
        const std::size_t each = chunk_floats(x, part, parts), count = chunks(x, part, parts);
        for (std::size_t chunk; (chunk = cursors_[part].next.fetch_add(1, std::memory_order_relaxed)) < count;) {
            const std::span<const float> piece = range.subspan(chunk * each, std::min(each, range.size() - chunk * each));
            slot(part, chunk) = kernel_(piece.data(), piece.size());
        }
    }

    ThreadPool pool_;
    simd::SumToFloat kernel_;
    std::vector<Cursor> cursors_;
    std::vector<double> chunk_sums_;
};

[[maybe_unused]] const bool registered = register_backend(parallel_backend(
    "cpu/baseline/read",
    "read ceiling: the widest float-lane kernel; a pinned pool's static parts, at least 256 KiB each, read in chunks that idle threads take over",
    kStaticChunks(Accumulator::f32, Role::ceiling), [](std::span<const float> input, int threads) {
        auto read = std::make_unique<CeilingRead>(threads, simd::best().sum_f32);
        PlacedInput placed(input, threads, [&](auto& copy_part) { read->pool().run(copy_part); });
        return make_placed_reduction(std::move(placed), [read = std::move(read)](std::span<const float> x) { return (*read)(x); });
    }));

}  // namespace
}  // namespace shootout
