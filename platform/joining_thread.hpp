// A thread that is joined when it goes out of scope: what std::jthread does without its stop token.
// libc++ 16 (the clang-libcxx preset's) has no std::jthread.
#pragma once

#include <thread>
#include <utility>

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

}  // namespace shootout::platform
