// Facts about the machine that the operating system holds: its names, its free memory, the clock's
// calendar time. Linux and Windows are tested; macOS is written for, not tested.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

namespace shootout::platform {

// The CSV's `os` value: "linux", "windows" or "macos", as built.
const char* os_name();

// This machine's network name; "unknown" when the system gives none.
std::string host_name();

// An identifier the system keeps for this installation, stable across boots: /etc/machine-id on
// Linux, the MachineGuid registry value on Windows, gethostuuid() on macOS; "" when unreadable.
std::string machine_id();

// Memory this process can still take: Linux's MemAvailable, or less when a cgroup limit says so;
// Windows' available physical memory; macOS's free and inactive pages. The largest uint64_t when
// the system does not say.
std::uint64_t available_memory_bytes();

// This thread's id as the kernel knows it (Linux's gettid()); 0 where the system does not say.
std::uint64_t kernel_thread_id();

// Whether the kernel still holds thread `id` of this process: a thread counts against a process
// limit (RLIMIT_NPROC, a cgroup's pids.max) until the kernel releases it, a moment after it could be
// joined. Linux's /proc/self/task/ID; false where the system does not say, and for id 0.
bool kernel_holds_thread(std::uint64_t id);

// Whether file descriptor `fd` (2: standard error) is a terminal: progress there is refreshed in place.
bool is_terminal(int fd);

// `when` as UTC calendar time (gmtime_r, gmtime_s: the C library's gmtime() is not thread-safe).
std::tm utc_time(std::time_t when);

}  // namespace shootout::platform
