// Work on threads started for one call and joined before it returns: what cpu/threads/simd
// measures against a persistent pool.
#pragma once

#include <cstddef>
#include <string>
#include <system_error>
#include <vector>

#include "api/backend.hpp"
#include "platform/joining_thread.hpp"

namespace shootout {

// task(part) for every part in [0, parts): part 0 on the calling thread, the others on new threads,
// joined before it returns. A thread that will not start (a process or address-space limit) throws
// ResourceExhausted naming `who`: the harness skips the case.
template <class Task>
void run_on_new_threads(const char* who, int parts, Task& task) {
    std::vector<platform::JoiningThread> threads;
    threads.reserve(static_cast<std::size_t>(parts - 1));
    try {
        for (int part = 1; part < parts; ++part) threads.emplace_back(task, part);
    } catch (const std::system_error& e) {
        throw ResourceExhausted(std::string(who) + ": starting thread " + std::to_string(threads.size() + 2) + " of " +
                                std::to_string(parts) + ": " + e.what());
    }
    task(0);
}

// Threads started for every call, with a ThreadPool's interface (balanced_chunks.hpp): run and
// run_shared both start parts - 1 threads and join them. A thread the OS starts late finds the
// shared work gone, and the join waits only for it to see that.
class NewThreads {
public:
    NewThreads(int parts, const char* who) : parts_(parts), who_(who) {}
    int size() const { return parts_; }
    template <class Task>
    void run(Task& task) {
        run_on_new_threads(who_, parts_, task);
    }
    template <class Task>
    void run_shared(Task& task) {
        run_on_new_threads(who_, parts_, task);
    }

private:
    int parts_;
    const char* who_;
};

}  // namespace shootout
