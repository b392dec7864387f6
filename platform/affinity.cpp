#include "platform/affinity.hpp"

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#elif defined(_WIN32)
#include <windows.h>
#endif

namespace shootout::platform {

#if defined(__linux__)

std::vector<int> current_thread_cpus() {
    std::vector<int> cpus;
    cpu_set_t set;
    if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) != 0) return cpus;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
    return cpus;
}

void pin_current_thread(std::span<const int> cpus) {
    if (cpus.empty()) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (const int cpu : cpus) CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

int current_cpu() { return sched_getcpu(); }

#elif defined(_WIN32)

// CPU numbers are group * 64 + the bit in the group's mask.
std::vector<int> current_thread_cpus() {
    std::vector<int> cpus;
    GROUP_AFFINITY affinity{};
    if (!::GetThreadGroupAffinity(::GetCurrentThread(), &affinity)) return cpus;
    for (int bit = 0; bit < 64; ++bit)
        if (affinity.Mask >> bit & 1) cpus.push_back(affinity.Group * 64 + bit);
    return cpus;
}

void pin_current_thread(std::span<const int> cpus) {
    if (cpus.empty()) return;
    GROUP_AFFINITY affinity{};
    affinity.Group = static_cast<WORD>(cpus.front() / 64);  // a thread runs in one group
    for (const int cpu : cpus)
        if (cpu / 64 == affinity.Group) affinity.Mask |= KAFFINITY{1} << (cpu % 64);
    ::SetThreadGroupAffinity(::GetCurrentThread(), &affinity, nullptr);
}

int current_cpu() {
    PROCESSOR_NUMBER number{};
    ::GetCurrentProcessorNumberEx(&number);
    return number.Group * 64 + number.Number;
}

#else

std::vector<int> current_thread_cpus() { return {}; }
void pin_current_thread(std::span<const int>) {}
int current_cpu() { return -1; }

#endif

}  // namespace shootout::platform
