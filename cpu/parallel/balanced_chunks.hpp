// Static parts read in chunks that idle threads take over: the placement and the fixed summation
// order of static chunks, with the balance of a work-stealing scheduler.
//
// Part k of T is static_chunk(x, k, T), the range pool thread k copied and so placed in prepare
// (placed_input.hpp). Each part is cut into chunks claimed from the part's own cursor: every thread
// reads its own part first, then whatever is left in the others. On a quiet machine every thread
// reads just its part. Where one vCPU is slow or starved (shared VMs, the H200's host among them),
// pure static chunks wait for it on every call: at 2^30 floats and 16 threads there, cpu/pool/simd
// with static chunks read 78 GB/s against 122 for the read ceiling and 131 for oneTBB, which both
// move work (cpu/PERFORMANCE.md). ThreadPool::run_shared does not wait for a thread the OS has not
// run by the time the work is gone.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "cpu/backends/host_backend.hpp"
#include "cpu/parallel/static_chunks.hpp"
#include "cpu/parallel/thread_pool.hpp"

namespace shootout {

struct ChunkPolicy {
    // Chunks per part, at most: the granularity at which an idle thread can take over a starved
    // one's work.
    static constexpr std::size_t chunks_per_part = 32;
    // A chunk is at least 1 MiB: each is a kernel call and a claim, ~25 ns, which 64 KiB chunks made
    // 4% of a 2-thread read of 4 MiB from L3 on the development VM (a quarter of that from 1 MiB).
    static constexpr std::size_t min_chunk_bytes = std::size_t{1} << 20;
};

// Threads: what runs the parts, a ThreadPool's interface (size, run, run_shared): the persistent
// pinned ThreadPool (cpu/pool/simd, cpu/exact/parallel) or NewThreads, started and joined on every
// call (cpu/threads/simd); Args are its constructor's after the thread count.
template <class Threads>
class BalancedChunksOn {
public:
    template <class... Args>
    explicit BalancedChunksOn(int threads, Args... args) : pool_(threads, args...), cursors_(static_cast<std::size_t>(threads)) {}

    Threads& pool() { return pool_; }
    int parts() const { return pool_.size(); }

    // The elements in each chunk of part `part`: whole cache lines, at least min_chunk_bytes.
    template <class T>
    static std::size_t chunk_elements(std::span<const T> x, int part, int parts) {
        constexpr std::size_t line = 64 / sizeof(T), least = ChunkPolicy::min_chunk_bytes / sizeof(T);
        const std::size_t elements = static_chunk(x, part, parts).size();
        constexpr std::size_t per_part = ChunkPolicy::chunks_per_part * line;
        return std::max(least, (elements + per_part - 1) / per_part * line);
    }
    template <class T>
    static std::size_t chunks(std::span<const T> x, int part, int parts) {
        const std::size_t elements = static_chunk(x, part, parts).size(), each = chunk_elements(x, part, parts);
        return (elements + each - 1) / each;
    }

    // Calls visit(thread, part, chunk, piece) exactly once for every chunk of every part of x, on
    // the pool's threads (thread 0 the caller); returns when all have returned. visit must not throw.
    template <class T, class Visit>
    void for_each_chunk(std::span<const T> x, Visit&& visit) {
        const int parts = pool_.size();
        for (Cursor& cursor : cursors_) cursor.next.store(0, std::memory_order_relaxed);
        auto read = [&](int self) {
            for (int k = 0; k < parts; ++k) {  // its own part first
                const int part = (self + k) % parts;
                const std::span<const T> range = static_chunk(x, part, parts);
                const std::size_t each = chunk_elements(x, part, parts), count = chunks(x, part, parts);
                std::atomic<std::size_t>& next = cursors_[static_cast<std::size_t>(part)].next;
                if (next.load(std::memory_order_relaxed) >= count) continue;  // a look costs less than a claim
                for (std::size_t chunk; (chunk = next.fetch_add(1, std::memory_order_relaxed)) < count;)
                    visit(self, part, chunk, range.subspan(chunk * each, std::min(each, range.size() - chunk * each)));
            }
        };
        pool_.run_shared(read);  // publishes the cursors and, on return, what visit wrote
    }

private:
    struct alignas(64) Cursor {
        std::atomic<std::size_t> next{0};
    };
    Threads pool_;
    std::vector<Cursor> cursors_;
};
using BalancedChunks = BalancedChunksOn<ThreadPool>;

// The sum of x as kernel's chunk sums added in double in chunk order: the same bits on every run at
// one thread count, whichever thread read which chunk.
template <class Threads>
class ChunkedSumOn {
public:
    template <class... Args>
    explicit ChunkedSumOn(int threads, Args... args)
        : chunks_(threads, args...), sums_(static_cast<std::size_t>(threads) * ChunkPolicy::chunks_per_part) {}

    Threads& pool() { return chunks_.pool(); }
    int parts() const { return chunks_.parts(); }

    template <class T, class KernelResult>
    double operator()(std::span<const T> x, KernelResult (*kernel)(const T*, std::size_t)) {
        chunks_.for_each_chunk(x, [&](int, int part, std::size_t chunk, std::span<const T> piece) {
            slot(part, chunk) = kernel(piece.data(), piece.size());
        });
        double total = 0;
        for (int part = 0; part < parts(); ++part)
            for (std::size_t chunk = 0; chunk < BalancedChunks::chunks(x, part, parts()); ++chunk) total += slot(part, chunk);
        return total;
    }

private:
    double& slot(int part, std::size_t chunk) {
        return sums_[static_cast<std::size_t>(part) * ChunkPolicy::chunks_per_part + chunk];
    }
    BalancedChunksOn<Threads> chunks_;
    std::vector<double> sums_;
};
using ChunkedSum = ChunkedSumOn<ThreadPool>;

// A Reduction that sums its placed copy with ChunkedSumOn<Threads> on `threads` threads (pinned pool
// threads by default): part k of the copy is copied in prepare by the thread that reads it first
// (with NewThreads, a thread started for the copy, in the same part).
template <class Threads = ThreadPool, class T, class KernelResult, class... Args>
std::unique_ptr<Reduction> make_chunked_reduction(std::span<const T> input, int threads,
                                                  KernelResult (*kernel)(const T*, std::size_t), Args... args) {
    auto sum = std::make_unique<ChunkedSumOn<Threads>>(threads, args...);
    PlacedInputOf<T> placed(input, threads, [&](auto& copy_part) { sum->pool().run(copy_part); });
    return make_placed_reduction(std::move(placed), [sum = std::move(sum), kernel](std::span<const T> x) {
        return (*sum)(x, kernel);
    });
}

}  // namespace shootout
