// A thread that is joined when it goes out of scope: what std::jthread does without its stop token
// (libc++ 16, the clang-libcxx preset's, has no std::jthread); and the parts of one job on such
// threads, where they can start.
#pragma once

#include <cstddef>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace shootout::platform {

class JoiningThread {
public:
    template <class F, class... Args>
    explicit JoiningThread(F&& f, Args&&... args) : thread_(std::forward<F>(f), std::forward<Args>(args)...) {}
    JoiningThread(JoiningThread&&) noexcept = default;
    JoiningThread& operator=(JoiningThread&&) = delete;
    ~JoiningThread() {
        if (thread_.joinable()) thread_.join();
    }

private:
    std::thread thread_;
};

// task(part) for every part in [0, parts), each on a thread of its own, and on the calling thread the
// parts whose thread would not start (a process or address-space limit): for work whose result does
// not depend on which thread does it, such as making an input or its exact sum.
template <class Task>
void run_parts(std::size_t parts, const Task& task) {
    std::vector<JoiningThread> threads;
    threads.reserve(parts);
    std::size_t started = 0;
    try {
        for (; started < parts; ++started) threads.emplace_back(task, started);
    } catch (const std::system_error&) {
    }
    for (std::size_t part = started; part < parts; ++part) task(part);
}

}  // namespace shootout::platform
