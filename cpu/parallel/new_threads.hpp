// Work on threads started for one call and joined before it returns: what cpu/threads/simd
// measures against a persistent pool.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "platform/joining_thread.hpp"

namespace shootout {

// task(part) for every part in [0, parts): part 0 on the calling thread, the others on new threads,
// joined before it returns. `who` names the caller in the error a failed thread start throws.
template <class Task>
void run_on_new_threads(const char* who, int parts, Task& task) {
    std::vector<platform::JoiningThread> threads;
    threads.reserve(static_cast<std::size_t>(parts - 1));
    try {
        for (int part = 1; part < parts; ++part) threads.emplace_back(task, part);
    } catch (const std::system_error& e) {
        throw std::runtime_error(std::string(who) + ": starting a std::thread: " + e.what());
    }
    task(0);
}

}  // namespace shootout
