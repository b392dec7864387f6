#include "platform/atomic_wait.hpp"

#if defined(_WIN32)
#include <windows.h>
#endif

namespace shootout::platform {

#if defined(_WIN32)

// WaitOnAddress compares the word's bytes: the atomic must be the plain word.
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) && std::atomic<std::uint32_t>::is_always_lock_free);

void atomic_wait(const std::atomic<std::uint32_t>& value, std::uint32_t old) noexcept {
    // Without a timeout it fails on nothing; a return of any kind is one the caller checks again.
    ::WaitOnAddress(const_cast<std::atomic<std::uint32_t>*>(&value), &old, sizeof old, INFINITE);
}

void atomic_notify_one(std::atomic<std::uint32_t>& value) noexcept { ::WakeByAddressSingle(&value); }
void atomic_notify_all(std::atomic<std::uint32_t>& value) noexcept { ::WakeByAddressAll(&value); }

#else

void atomic_wait(const std::atomic<std::uint32_t>& value, std::uint32_t old) noexcept {
    value.wait(old, std::memory_order_relaxed);
}

void atomic_notify_one(std::atomic<std::uint32_t>& value) noexcept { value.notify_one(); }
void atomic_notify_all(std::atomic<std::uint32_t>& value) noexcept { value.notify_all(); }

#endif

}  // namespace shootout::platform
