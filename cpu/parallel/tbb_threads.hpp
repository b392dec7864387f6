// oneTBB threads for one backend, and reductions that run inside them. Only with oneTBB.
//
// Threads are not pinned: oneTBB's model is work stealing over whichever cores the OS gives its
// workers, and the arena limits how many take part.
#pragma once

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/info.h>
#include <oneapi/tbb/parallel_for.h>
#include <oneapi/tbb/parallel_reduce.h>
#include <oneapi/tbb/partitioner.h>
#include <oneapi/tbb/task_arena.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <span>

#include "api/backend.hpp"
#include "cpu/backends/host_backend.hpp"
#include "cpu/parallel/thread_headroom.hpp"

namespace shootout {

// Elements of T per leaf range, at least: 256 KiB, tens of microseconds of streaming against a
// task's cost of about one. parallel_deterministic_reduce splits to exactly this, whatever the
// thread count.
template <class T>
inline constexpr std::size_t kRangeElements = (std::size_t{1} << 18) / sizeof(T);

// parallel_reduce (auto partitioner) over ranges of at least kRangeElements, each summed by kernel
// and added in double: cpu/tbb/reduce's schedule, and the read ceiling's work-stealing candidate.
template <class T, class KernelResult>
double sum_stolen_ranges(std::span<const T> x, KernelResult (*kernel)(const T*, std::size_t)) {
    return tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, x.size(), kRangeElements<T>), 0.0,
        [&](const tbb::blocked_range<std::size_t>& r, double sum) { return sum + kernel(x.data() + r.begin(), r.size()); },
        std::plus<>());
}

// An arena of exactly `threads` slots, the calling thread in one of them. The process-wide worker
// limit is raised to at least `threads` while it lives: by default oneTBB runs no more threads than
// the machine has, and an arena of 7 on 2 cores would quietly run 2. The threads are asked for first:
// oneTBB terminates the process when a worker will not start (a process limit). Its workers outlive
// an arena; they are let go with it where no other arena lives, so that no idle worker holds threads
// that another backend's case needs.
class TbbThreads {
public:
    explicit TbbThreads(int threads)
        : limit_(tbb::global_control::max_allowed_parallelism,
                 static_cast<std::size_t>(std::max(threads, tbb::info::default_concurrency()))),
          arena_(threads) {
        require_threads("oneTBB", threads);
        arena_.initialize();
    }
    TbbThreads(const TbbThreads&) = delete;
    TbbThreads& operator=(const TbbThreads&) = delete;
    ~TbbThreads() {
        arena_.terminate();
        tbb::task_scheduler_handle workers{tbb::attach{}};
        tbb::finalize(workers, std::nothrow);  // false, and nothing waited for, while another arena lives
    }

    template <class F>
    auto execute(F&& f) {
        return arena_.execute(std::forward<F>(f));
    }

private:
    tbb::global_control limit_;
    tbb::task_arena arena_;
};

// A Reduction that runs sum(input) inside its own arena of `threads`. Work stealing fixes no thread
// to a range, so the copy is placed as a balanced split would first hand it out: `threads` static
// chunks, one to each of the arena's threads (static_partitioner gives each thread one).
template <class T, class Sum>
std::unique_ptr<Reduction> make_arena_reduction(std::span<const T> input, int threads, Sum sum) {
    auto arena = std::make_unique<TbbThreads>(threads);
    PlacedInputOf<T> placed(input, threads, [&](auto& copy_part) {
        arena->execute([&] {
            tbb::parallel_for(tbb::blocked_range<int>(0, threads, 1), [&](const tbb::blocked_range<int>& parts) {
                for (int part = parts.begin(); part != parts.end(); ++part) copy_part(part);
            }, tbb::static_partitioner());
        });
    });
    return make_placed_reduction(std::move(placed), [arena = std::move(arena), sum](std::span<const T> x) {
        return arena->execute([&] { return sum(x); });
    });
}

}  // namespace shootout
