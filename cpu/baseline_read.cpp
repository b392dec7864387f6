// The machine's read ceiling, per thread count, against which every CPU row is judged: the fastest
// read of the input this machine manages with up to T threads.
//
// The loop is the widest float-lane kernel (two full loads a cycle in L1; cpu/PERFORMANCE.md),
// without or with software prefetch 4 KiB ahead, whichever reads this input faster here. Around
// it, the choices that a reduction backend could otherwise make better than the ceiling:
//   - Loop and parts: of the loops and of T, T/2, ..., 1 parts, the pair that reads this input
//     fastest on this machine, timed in prepare (CeilingPolicy). One part is the calling thread
//     alone, without a pool. Prefetching cost 10-13% in L1/L2 on the development VM and gained
//     nothing from DRAM in one series, 3-12% in another (the prefetching kernels beat the plain
//     loop there): a fixed choice is wrong somewhere.
//     Where waking a thread costs more than its share of the read saves (a small input; how small
//     depends on the machine: 0.1-1 us a wake-up on the development VM, more on a 16-vCPU guest),
//     fewer threads read faster than T; a fixed grain guessed it wrong on one machine or the other.
//   - Placement: part k of T is the k-th static chunk, copied in prepare by pool thread k
//     (cpu/placed_input.hpp). With fewer parts than T, parts span several threads' copies: the same
//     NUMA node on every machine measured here.
//   - Balance: static parts read in chunks that idle threads take over (balanced_chunks.hpp).
// The result is the float-lane sums of the chunks, added in double in chunk order: the same bits on
// every run at one part count. One part is the cpu/<widest ISA>/f32 call, prefetching or not (the
// same bits). The part count is a timing, so two prepares at one thread count may pick two counts
// and give other bits: the ceiling declares no reproducibility (its sum is a by-product; its time
// is the point).
#include <algorithm>
#include <bit>
#include <chrono>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "balanced_chunks.hpp"
#include "host_backend.hpp"
#include "simd_kernels.hpp"

namespace shootout {
namespace {

struct CeilingPolicy {
    // A loop and part count is timed by the best of `rounds` batches of calls, each batch at least
    // `batch_seconds` long (one call where one call is longer).
    static constexpr int rounds = 7;
    static constexpr double batch_seconds = 100e-6;
    // Candidates go from T parts down; once one is this much slower than the best so far, fewer
    // parts only read slower (the input is past where dispatch matters) and the rest are not timed.
    static constexpr double give_up_ratio = 1.25;
};

class CeilingRead {
public:
    CeilingRead(int threads, const simd::Best& kernels) : threads_(threads) {
        const std::string loop = std::string(kernels.isa) + "/f32";  // named as its backend, cpu/<isa>/f32
        loops_.push_back({loop, kernels.sum_f32});
        if (kernels.sum_f32_prefetched) loops_.push_back({loop + "+prefetch", kernels.sum_f32_prefetched});
        use_parts(threads);
    }

    // In prepare: copy_part(k) on the thread that reads part k of T.
    template <class CopyPart>
    void place(CopyPart& copy_part) {
        if (sum_) sum_->pool().run(copy_part);
        else copy_part(0);
    }

    // In prepare: keeps the loop and part count that read x fastest. Part counts go from T down;
    // at each, the loops are timed in alternating rounds, so that the machine's drift during the
    // timing falls on each alike. Timed one block after the other, the one-thread ceiling trailed
    // its own prefetch-free loop by 7-30% at 2^18 and 2^21 in the development VM's sweep: picking
    // the prefetching loop in L2 costs that much, and one block of 500 us sees the VM's drift.
    void pick(std::span<const float> x) {
        std::vector<int> candidates = {threads_};
        if (threads_ > 1)
            for (int parts = std::bit_floor(static_cast<unsigned>(threads_ - 1)); parts >= 1; parts /= 2) candidates.push_back(parts);
        if (candidates.size() * loops_.size() == 1) return;
        double best = std::numeric_limits<double>::infinity();
        int best_parts = threads_;
        std::size_t best_loop = 0;
        for (int parts : candidates) {
            if (parts != this->parts()) use_parts(parts);
            std::vector<double> seconds(loops_.size(), std::numeric_limits<double>::infinity());
            std::vector<int> calls(loops_.size());
            for (std::size_t loop = 0; loop < loops_.size(); ++loop) {  // wakes the pool, fills the caches
                loop_ = loop;
                calls[loop] = static_cast<int>(std::clamp(CeilingPolicy::batch_seconds / seconds_per_call(x, 1), 1.0, 65536.0));
            }
            for (int round = 0; round < CeilingPolicy::rounds; ++round)
                for (std::size_t loop = 0; loop < loops_.size(); ++loop) {
                    loop_ = loop;
                    seconds[loop] = std::min(seconds[loop], seconds_per_call(x, calls[loop]));
                }
            const std::size_t fastest = static_cast<std::size_t>(std::min_element(seconds.begin(), seconds.end()) - seconds.begin());
            if (seconds[fastest] < best) {
                best = seconds[fastest];
                best_parts = parts;
                best_loop = fastest;
            } else if (seconds[fastest] > CeilingPolicy::give_up_ratio * best) {
                break;  // fewer parts only read slower from here
            }
        }
        loop_ = best_loop;
        if (best_parts != this->parts()) use_parts(best_parts);
    }

    double operator()(std::span<const float> x) {
        const simd::SumToFloat kernel = loops_[loop_].sum;
        return sum_ ? (*sum_)(x, kernel) : kernel(x.data(), x.size());
    }

    // The CSV's configuration column: "parts=2 loop=avx512/f32+prefetch".
    std::string configuration() const { return "parts=" + std::to_string(parts()) + " loop=" + loops_[loop_].name; }

private:
    // One pool at a time: each pins the calling thread and restores its affinity when destroyed.
    // A new pool's threads are up when it is constructed (thread_pool.hpp), so a candidate is timed
    // as in back-to-back timed calls.
    void use_parts(int parts) {
        sum_.reset();
        if (parts > 1) sum_.emplace(parts);
    }

    double seconds_per_call(std::span<const float> x, int calls) {
        using Clock = std::chrono::steady_clock;
        const auto start = Clock::now();
        for (int call = 0; call < calls; ++call) timed_sum_ = (*this)(x);
        return std::chrono::duration<double>(Clock::now() - start).count() / calls;
    }

    int parts() const { return sum_ ? sum_->parts() : 1; }

    struct Loop {
        std::string name;
        simd::SumToFloat sum;
    };

    int threads_;
    std::vector<Loop> loops_;  // the candidates
    std::size_t loop_ = 0;     // the one in use
    std::optional<ChunkedSum> sum_;  // empty: one part, on the calling thread
    double timed_sum_ = 0;           // where the timed calls' sums go
};

// The prepared ceiling as the harness calls it (behind a pointer: a CeilingRead owns a thread pool,
// which cannot move).
struct CeilingCall {
    std::unique_ptr<CeilingRead> read;
    double operator()(std::span<const float> x) { return (*read)(x); }
    std::string configuration() const { return read->configuration(); }
};

[[maybe_unused]] const bool registered = register_backend(parallel_backend(
    "cpu/baseline/read",
    "read ceiling: the widest float-lane kernel, with or without prefetch, on the count of pinned threads up to T that reads the input fastest (timed in prepare); static parts read in chunks that idle threads take over",
    {.accumulator = Accumulator::f32, .order = Order::thread_chunks, .reproducibility = Reproducibility::none, .role = Role::ceiling}, [](std::span<const float> input, int threads) {
        auto read = std::make_unique<CeilingRead>(threads, simd::best());
        PlacedInput placed(input, threads, [&](auto& copy_part) { read->place(copy_part); });
        read->pick(placed.span());
        return make_placed_reduction(std::move(placed), CeilingCall{std::move(read)});
    }));

}  // namespace
}  // namespace shootout
