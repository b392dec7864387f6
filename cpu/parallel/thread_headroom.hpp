// Whether a team of threads can start, asked before it is handed to a runtime that cannot survive a
// thread that will not start: libgomp exits the process, oneTBB terminates it (under ulimit -u, a
// cgroup's pids.max, or an address-space limit too tight for their stacks).
#pragma once

#include <string>

namespace shootout {

// Starts threads - 1 threads beside the caller, each waiting until all have started, and joins them
// once the kernel has let them go. Throws ResourceExhausted naming `who` and how many could run when
// they cannot all start: the harness skips the case, and the runtime is never asked.
void require_threads(const std::string& who, int threads);

}  // namespace shootout
