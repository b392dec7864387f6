#include "cpu/parallel/thread_pool.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "api/backend.hpp"
#include "platform/affinity.hpp"
#include "platform/atomic_wait.hpp"

namespace shootout {
namespace {

// How long a waiting thread spins before it sleeps in the kernel. Waking a sleeping thread costs
// from a few microseconds on bare metal to hundreds in a virtual machine (measured: 336 us per call
// for 16 threads on a 16-vCPU Firecracker guest with a 1024-pause window, which let every thread fall
// asleep between calls). A window well above one wake-up keeps back-to-back calls hot; libgomp and
// oneTBB spin for similar times. An idle pool still sleeps after it.
constexpr auto kSpinWindow = std::chrono::milliseconds(2);
constexpr int kPausesPerClockRead = 64;

// One spin-wait pause: x86's PAUSE; on aarch64 ISB, which stalls for a few tens of cycles (YIELD is a
// no-op on most Arm cores).
inline void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("isb" ::: "memory");
#endif
}

// Returns once value differs from old (acquire); spins first, then sleeps in the kernel.
std::uint32_t wait_for_change(const std::atomic<std::uint32_t>& value, std::uint32_t old) {
    const auto give_up = std::chrono::steady_clock::now() + kSpinWindow;
    do {
        for (int spin = 0; spin < kPausesPerClockRead; ++spin) {
            const std::uint32_t now = value.load(std::memory_order_acquire);
            if (now != old) return now;
            spin_pause();
        }
    } while (std::chrono::steady_clock::now() < give_up);
    for (;;) {
        platform::atomic_wait(value, old);
        const std::uint32_t now = value.load(std::memory_order_acquire);
        if (now != old) return now;
    }
}

void pin_to(int cpu) { platform::pin_current_thread({&cpu, 1}); }

}  // namespace

ThreadPool::ThreadPool(int threads) {
    if (threads < 1) throw std::invalid_argument("ThreadPool: threads must be at least 1, not " + std::to_string(threads));
    caller_affinity_ = platform::current_thread_cpus();
    if (static_cast<int>(caller_affinity_.size()) >= threads) {
        cpus_.assign(caller_affinity_.begin(), caller_affinity_.begin() + threads);
        pin_to(cpus_[0]);
        caller_pinned_ = true;
    }
    workers_.reserve(static_cast<std::size_t>(threads - 1));
    try {
        for (int part = 1; part < threads; ++part) workers_.emplace_back([this, part] { work(part); });
    } catch (const std::system_error& e) {  // a process or address-space limit: the harness skips the case
        const std::size_t running = workers_.size() + 1;
        stop();
        throw ResourceExhausted("ThreadPool: starting thread " + std::to_string(running + 1) + " of " + std::to_string(threads) +
                                ": " + e.what());
    }
    // Returns once every thread has started, pinned itself and is spinning: a shared run does not
    // wait for threads that are not up yet, and on a fresh pool would run on the caller alone.
    auto started = [](int) {};
    run(started);
}

ThreadPool::~ThreadPool() { stop(); }

void ThreadPool::stop() {
    if (!workers_.empty()) {
        stopping_.store(true, std::memory_order_relaxed);  // published by the generation's release
        generation_.fetch_add(1, std::memory_order_release);
        platform::atomic_notify_all(generation_);
        for (auto& worker : workers_) worker.join();
        workers_.clear();
    }
    if (caller_pinned_) {
        platform::pin_current_thread(caller_affinity_);
        caller_pinned_ = false;
    }
}

void ThreadPool::run_erased(void* task, void (*invoke)(void*, int), bool shared) {
    if (workers_.empty()) {  // one part: no one to wake, nothing to wait for
        invoke(task, 0);
        return;
    }
    task_ = task;
    invoke_ = invoke;
    remaining_.store(static_cast<std::uint32_t>(workers_.size()), std::memory_order_relaxed);
    const std::uint32_t generation = generation_.fetch_add(1, std::memory_order_release) + 1;
    platform::atomic_notify_all(generation_);  // a system call only when some worker is asleep
    invoke(task, 0);
    if (shared) {
        // An exchange, not a store: the store-then-load against a worker's increment-then-load must
        // not be reordered, and a read-modify-write fences on every target. qemu-user runs an
        // aarch64 seq_cst store (stlr) then load (ldar) as plain x86 moves, which may reorder, and
        // the pool test then saw a worker start a returned run's task.
        closed_.exchange(generation, std::memory_order_seq_cst);
        for (std::uint32_t busy = active_.load(std::memory_order_seq_cst); busy != 0;) busy = wait_for_change(active_, busy);
        return;
    }
    for (std::uint32_t left = remaining_.load(std::memory_order_acquire); left != 0;)
        left = wait_for_change(remaining_, left);
}

void ThreadPool::work(int part) {
    if (!cpus_.empty()) pin_to(cpus_[static_cast<std::size_t>(part)]);
    std::uint32_t seen = 0;
    for (;;) {
        seen = wait_for_change(generation_, seen);
        if (stopping_.load(std::memory_order_relaxed)) return;
        active_.fetch_add(1, std::memory_order_seq_cst);
        // Runs `seen` unless it is closed: closed_ is the last shared run that task(0) finished, so
        // a run at or before it is over (a worker preempted for several runs finds it ahead), and
        // an ordinary run is never closed. Generations wrap: compare their difference.
        if (static_cast<std::int32_t>(seen - closed_.load(std::memory_order_seq_cst)) > 0) {
            invoke_(task_, part);
            if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) platform::atomic_notify_one(remaining_);
        }
        if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) platform::atomic_notify_one(active_);
    }
}

}  // namespace shootout
