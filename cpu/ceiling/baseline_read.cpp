// The machine's read ceiling, per thread count, against which every CPU row is judged: the fastest
// read of the input this machine manages with up to T threads.
//
// The loop is the widest float-lane kernel (two full loads a cycle in L1; cpu/PERFORMANCE.md),
// without or with software prefetch 8 KiB ahead, the widest kernel that widens each float to
// double (the parallel backends' kernel), or the baseline ISA's 16-byte loads in
// cpu/serial/unrolled's loop, whichever reads this input faster here. Around it, the choices that
// a reduction backend could otherwise make better than the ceiling, all timed in prepare
// (CeilingPolicy), and the fastest kept:
//   - Loop: which loop reads fastest moves with the machine and the size, so a fixed choice is
//     wrong somewhere. Prefetching costs 10-13% in L1/L2 on the development VM and gains from its
//     DRAM at some sizes; on the H200 machine's Xeon host one thread reads L3 (2^20-2^23 floats)
//     2.6-3.5% faster with cpu/serial/unrolled's 16-byte loads than with the AVX-512 loop; on the
//     development VM two threads read DRAM (2^28-2^29) faster with the widening kernel the parallel
//     backends share. Each of these beat the ceiling in repeated runs (results/ceiling-runs/,
//     plot/ceiling_verdict.py) until it became a candidate.
//   - Parts: T, T/2, ..., 1 pinned threads, each reading a static part in chunks that idle threads
//     take over (balanced_chunks.hpp); one part is the calling thread alone, without a pool. Where
//     waking a thread costs more than its share of the read saves (a small input; how small depends
//     on the machine: 0.1-1 us a wake-up on the development VM, more on a 16-vCPU guest), fewer
//     threads read faster than T; a fixed grain guessed it wrong on one machine or the other.
//   - Schedule: with oneTBB, also T unpinned threads stealing 256 KiB ranges (oneTBB's
//     parallel_reduce, as cpu/tbb/reduce schedules its own kernel). On the H200 machine's Xeon host,
//     with 2-4 MiB a thread (1-2x its L2), cpu/tbb/reduce read 5-37% faster than the pinned parts in
//     every run, whichever 4 or 8 of its 16 vCPUs it was given (taskset: 0-7, 8-15, the even ones);
//     why is not established (cpu/PERFORMANCE.md). A ceiling that lacks a schedule some backend has
//     is beaten by it.
//   - Placement: part k of T is the k-th static chunk, copied in prepare by pool thread k
//     (cpu/parallel/placed_input.hpp). With fewer parts than T, or stolen ranges, parts span several threads'
//     copies: the same NUMA node on every machine measured here.
// The result is float- or double-lane sums of chunks or ranges, added in double. One part is the
// cpu/<widest ISA>/f32 call (prefetching or not: the same bits), the cpu/<widest ISA>/f64 one or
// cpu/serial/unrolled's. Which candidate reads fastest is a
// timing, so two prepares at one thread count may pick two and give other bits: the ceiling
// declares no reproducibility, and an unordered sum (its sum is a by-product; its time is the point).
#include "cpu/ceiling/ceiling_read.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "cpu/backends/host_backend.hpp"

#ifdef SHOOTOUT_HAVE_TBB
#include "cpu/parallel/tbb_threads.hpp"
#endif

namespace shootout {

#ifdef SHOOTOUT_HAVE_TBB
bool ceiling_can_steal() { return true; }

class StealingThreads {
public:
    explicit StealingThreads(int threads) : arena_(threads) {}

    template <class KernelResult>
    double sum(std::span<const float> x, KernelResult (*kernel)(const float*, std::size_t)) {
        return arena_.execute([&] { return sum_stolen_ranges(x, kernel); });
    }

private:
    TbbThreads arena_;
};
#else
bool ceiling_can_steal() { return false; }

class StealingThreads {};  // never made without oneTBB: use() refuses the schedule
#endif

struct CeilingRead::Timed {
    double seconds = std::numeric_limits<double>::infinity();
    Candidate candidate = {};
    std::size_t loop = 0;
};

CeilingRead::CeilingRead(int threads, const simd::Best& kernels)
    : threads_(threads), kernel_(kernels.sum_f32), candidate_{Schedule::pinned_parts, 1} {  // one part: no threads yet
    const std::string isa = kernels.isa;  // loops are named as their backends, cpu/<name>
    loops_.push_back({isa + "/f32", kernels.sum_f32});
    if (kernels.sum_f32_prefetched) loops_.push_back({isa + "/f32+prefetch", kernels.sum_f32_prefetched});
    loops_.push_back({isa + "/f64", kernels.sum_f64});
    const simd::SumToFloat unrolled = simd::sum_unrolled_f32;
    if (kernels.sum_f32 != unrolled) loops_.push_back({"serial/unrolled", unrolled});
    use_threads({Schedule::pinned_parts, threads});
}

CeilingRead::~CeilingRead() = default;

// Pinned part counts from T down, then oneTBB's T stealing threads. At each candidate the loops are
// timed in alternating rounds, so that the machine's drift during the timing falls on each alike.
// Timed one block after the other, the one-thread ceiling trailed its own prefetch-free loop by
// 7-30% at 2^18 and 2^21 in the development VM's sweep: picking the prefetching loop in L2 costs
// that much, and one block of 500 us sees the VM's drift.
void CeilingRead::pick(std::span<const float> x) {
    std::vector<Candidate> pinned = {{Schedule::pinned_parts, threads_}};
    if (threads_ > 1)
        for (int parts = std::bit_floor(static_cast<unsigned>(threads_ - 1)); parts >= 1; parts /= 2)
            pinned.push_back({Schedule::pinned_parts, parts});
    const bool steal = ceiling_can_steal() && threads_ > 1;
    Timed best;
    for (const Candidate& candidate : pinned) {
        const Timed timed = time_loops(x, candidate);
        if (timed.seconds < best.seconds) best = timed;
        else if (timed.seconds > CeilingPolicy::give_up_ratio * best.seconds) break;  // fewer parts only read slower from here
    }
    if (steal) {
        const Timed timed = time_loops(x, {Schedule::work_stealing, threads_});
        if (timed.seconds < best.seconds) best = timed;
    }
    use(best.candidate, best.loop);
}

void CeilingRead::use(const Candidate& candidate, std::size_t loop) {
    if (candidate.schedule == Schedule::work_stealing && !ceiling_can_steal())
        throw std::logic_error("the ceiling's work-stealing schedule needs oneTBB, and this build has none");
    if (loop >= loops_.size()) throw std::out_of_range("the ceiling has " + std::to_string(loops_.size()) + " loops");
    use_threads(candidate);
    use_loop(loop);
}

double CeilingRead::operator()(std::span<const float> x) {
    return std::visit([&](auto kernel) -> double {
#ifdef SHOOTOUT_HAVE_TBB
        if (stealing_) return stealing_->sum(x, kernel);
#endif
        return parts_ ? (*parts_)(x, kernel) : kernel(x.data(), x.size());
    }, kernel_);
}

std::string CeilingRead::configuration() const {
    const std::string threads = candidate_.schedule == Schedule::pinned_parts
                                    ? "schedule=pinned parts=" + std::to_string(candidate_.threads)
                                    : "schedule=tbb threads=" + std::to_string(candidate_.threads);
    return threads + " loop=" + loops_[loop_].name;
}

// The median time of each loop on one candidate, the loops timed in alternating rounds.
CeilingRead::Timed CeilingRead::time_loops(std::span<const float> x, const Candidate& candidate) {
    use_threads(candidate);
    std::vector<std::vector<double>> rounds(loops_.size());
    std::vector<int> calls(loops_.size());
    for (std::size_t loop = 0; loop < loops_.size(); ++loop) {  // wakes the threads, fills the caches
        use_loop(loop);
        calls[loop] = static_cast<int>(std::clamp(CeilingPolicy::batch_seconds / seconds_per_call(x, 1), 1.0, 65536.0));
    }
    for (int round = 0; round < CeilingPolicy::rounds; ++round)
        for (std::size_t loop = 0; loop < loops_.size(); ++loop) {
            use_loop(loop);
            rounds[loop].push_back(seconds_per_call(x, calls[loop]));
        }
    Timed fastest;
    for (std::size_t loop = 0; loop < loops_.size(); ++loop) {
        std::vector<double>& times = rounds[loop];
        std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());  // rounds is odd
        if (times[times.size() / 2] < fastest.seconds) fastest = {times[times.size() / 2], candidate, loop};
    }
    return fastest;
}

// One set of threads at a time: a pool pins the calling thread and restores its affinity when
// destroyed, and oneTBB's calling thread must be unpinned to run unpinned. A new pool's threads are
// up when it is constructed (thread_pool.hpp), so a candidate is timed as in back-to-back timed
// calls. The candidate in use keeps its threads.
void CeilingRead::use_threads(const Candidate& candidate) {
    if (candidate == candidate_) return;
    parts_.reset();
    stealing_.reset();
#ifdef SHOOTOUT_HAVE_TBB
    if (candidate.schedule == Schedule::work_stealing) stealing_ = std::make_unique<StealingThreads>(candidate.threads);
#endif
    if (candidate.schedule == Schedule::pinned_parts && candidate.threads > 1) parts_.emplace(candidate.threads);
    candidate_ = candidate;
}

void CeilingRead::use_loop(std::size_t loop) {
    loop_ = loop;
    kernel_ = loops_[loop].sum;
}

double CeilingRead::seconds_per_call(std::span<const float> x, int calls) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    for (int call = 0; call < calls; ++call) timed_sum_ = (*this)(x);
    return std::chrono::duration<double>(Clock::now() - start).count() / calls;
}

namespace {

// The prepared ceiling as the harness calls it (behind a pointer: a CeilingRead owns threads, which
// cannot move).
struct CeilingCall {
    std::unique_ptr<CeilingRead> read;
    double operator()(std::span<const float> x) { return (*read)(x); }
    std::string configuration() const { return read->configuration(); }
};

[[maybe_unused]] const bool registered = register_backend(parallel_backend(
    "cpu/baseline/read",
    "read ceiling: the widest float-lane kernel, with or without prefetch, the widest widening (f64) kernel or the baseline ISA's unrolled loop, on the pinned thread count up to T, or oneTBB's T stealing threads, that reads the input fastest (timed in prepare)",
    {.accumulator = Accumulator::f32, .order = Order::unordered, .reproducibility = Reproducibility::none, .role = Role::ceiling}, [](std::span<const float> input, int threads) {
        auto read = std::make_unique<CeilingRead>(threads, simd::best());
        PlacedInput placed(input, threads, [&](auto& copy_part) { read->place(copy_part); });
        read->pick(placed.span());
        return make_placed_reduction(std::move(placed), CeilingCall{std::move(read)});
    }));

}  // namespace
}  // namespace shootout
