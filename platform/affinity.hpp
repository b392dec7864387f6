// Which CPUs a thread runs on: pthread_{get,set}affinity_np on Linux, thread group affinity on
// Windows (the calling thread's processor group only: 64 logical CPUs). macOS lets no program pin a
// thread (written for it, not tested there): no CPUs are reported there, and pinning does nothing.
#pragma once

#include <span>
#include <vector>

namespace shootout::platform {

// The logical CPUs the calling thread may run on, ascending; empty when the system cannot say.
std::vector<int> current_thread_cpus();

// Restricts the calling thread to cpus. Best effort: a refusal costs speed only. Nothing when empty.
void pin_current_thread(std::span<const int> cpus);

// The logical CPU the calling thread runs on now, numbered as above; -1 when the system cannot say.
int current_cpu();

}  // namespace shootout::platform
