#include "cpu/parallel/thread_headroom.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "api/backend.hpp"
#include "platform/joining_thread.hpp"
#include "platform/system.hpp"

namespace shootout {
namespace {

// Starts threads - 1 threads, each waiting until all have started, joins them, and returns once the
// kernel has released them (for a second at most): the runtime's team would otherwise find them
// still counted against the limit. Returns how many ran at once and why the next would not start
// ("" when all did).
std::pair<int, std::string> probe(int threads) {
    std::mutex mutex;
    std::condition_variable all_started;
    bool go = false;
    std::vector<std::uint64_t> ids(static_cast<std::size_t>(threads), 0);  // each probe's kernel id; 0: the caller
    int running = 1;
    std::string failure;
    {
        std::vector<platform::JoiningThread> probes;
        probes.reserve(ids.size());
        try {
            for (; running < threads; ++running)
                probes.emplace_back([&, slot = static_cast<std::size_t>(running)] {
                    ids[slot] = platform::kernel_thread_id();  // read after the join
                    std::unique_lock lock(mutex);
                    all_started.wait(lock, [&] { return go; });
                });
        } catch (const std::system_error& e) {
            failure = e.what();
        }
        {
            std::lock_guard lock(mutex);
            go = true;
        }
        all_started.notify_all();
    }
    for (const std::uint64_t id : ids)
        for (int poll = 0; poll < 10000 && platform::kernel_holds_thread(id); ++poll)
            std::this_thread::sleep_for(std::chrono::microseconds(100));
    return {running, failure};
}

}  // namespace

void require_threads(const std::string& who, int threads) {
    // Threads that another runtime or backend has just let go stay counted for a moment: a probe that
    // fails is made again, up to five times 20 ms apart, before the case is skipped.
    std::pair<int, std::string> result = probe(threads);
    for (int retry = 0; retry < 4 && !result.second.empty(); ++retry) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        result = probe(threads);
    }
    const auto& [running, failure] = result;
    if (!failure.empty())
        throw ResourceExhausted(who + ": " + std::to_string(threads) + " threads cannot run at once here (" +
                                std::to_string(running) + " could): " + failure);
}

}  // namespace shootout
