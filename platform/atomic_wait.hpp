// Sleeping until an atomic word changes, and waking those asleep on it: std::atomic's wait and
// notify, through the operating system's own primitive everywhere. Linux and macOS: std::atomic
// itself (libstdc++ and libc++ call futex on Linux, libc++ calls __ulock_wait on macOS). Windows:
// WaitOnAddress, because MinGW-w64's libstdc++ (GCC 12) has no native wait there and falls back to a
// condition variable that loses wake-ups (GCC bug 106183, fixed in later releases: the waiter checks
// the word and then sleeps, and a notify that changes the word in between signals nobody), which
// left the thread pool's waiters asleep for ever now and then.
#pragma once

#include <atomic>
#include <cstdint>

namespace shootout::platform {

// Sleeps while value holds old. May return spuriously: callers check the value again.
void atomic_wait(const std::atomic<std::uint32_t>& value, std::uint32_t old) noexcept;

// Wakes one, or every, thread asleep in atomic_wait on value.
void atomic_notify_one(std::atomic<std::uint32_t>& value) noexcept;
void atomic_notify_all(std::atomic<std::uint32_t>& value) noexcept;

}  // namespace shootout::platform
