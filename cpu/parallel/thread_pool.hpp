// A persistent pool of threads that runs one task on all of them at once: the calling thread takes
// part 0 and the pool's threads parts 1 .. size() - 1.
//
// Waiting: a waiting thread spins for up to 2 ms (back-to-back calls, and the last worker finishing,
// come well within that) and then sleeps in the kernel on the atomic (futex, WaitOnAddress:
// platform/atomic_wait.hpp), so an idle pool costs no CPU.
//
// Pinning: when there are no more threads than CPUs this process may run on, part k runs on the
// k-th of those CPUs, the calling thread included (its own affinity is restored when the pool is
// destroyed). With the usual x86 Linux numbering that is one thread per physical core first, then
// the SMT siblings. With more threads than CPUs nothing is pinned.
#pragma once

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace shootout {

class ThreadPool {
public:
    // Returns once every thread has started (and pinned itself).
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(workers_.size()) + 1; }

    // Calls task(part) for every part in [0, size()), concurrently; returns when all have returned.
    // task must not throw.
    template <class Task>
    void run(Task& task) {
        run_erased(&task, [](void* t, int part) { (*static_cast<Task*>(t))(part); }, false);
    }

    // For tasks whose parts take their work from one shared supply, so that task(0) returning means
    // nothing is left to start: calls task(part) on the calling thread (part 0) and on each pool
    // thread that gets to it before task(0) has returned, and returns when those have returned. A
    // thread the OS has not run by then (a starved vCPU) is not waited for; it skips this call.
    template <class Task>
    void run_shared(Task& task) {
        run_erased(&task, [](void* t, int part) { (*static_cast<Task*>(t))(part); }, true);
    }

private:
    void run_erased(void* task, void (*invoke)(void*, int), bool shared);
    void work(int part);
    void stop();  // joins the workers and restores the caller's affinity

    // Written before generation_ is bumped (release), read after it is seen (acquire).
    void* task_ = nullptr;
    void (*invoke_)(void*, int) = nullptr;
    // Atomic: a worker that skips a shared run may read it while the pool is being destroyed.
    std::atomic<bool> stopping_{false};

    alignas(64) std::atomic<std::uint32_t> generation_{0};  // bumped once per run
    alignas(64) std::atomic<std::uint32_t> remaining_{0};   // parts still running
    // run_shared: a worker counts itself in `active_` before it looks at `closed_`, the generation
    // of the last shared run that task(0) finished. Both sequentially consistent, so either the
    // caller sees the worker active and waits for it, or the worker sees the run (or a later one)
    // closed and skips it without reading task_ (which the next run may be writing).
    alignas(64) std::atomic<std::uint32_t> active_{0};
    alignas(64) std::atomic<std::uint32_t> closed_{0};

    std::vector<int> cpus_;  // CPU of each part when pinned; empty when not
    bool caller_pinned_ = false;
    std::vector<int> caller_affinity_;  // the caller's CPUs, restored by stop()
    std::vector<std::thread> workers_;
};

}  // namespace shootout
