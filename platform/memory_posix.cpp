// Linux, and macOS (written for it, not tested there: no transparent huge pages, no smaps).
#include "platform/memory.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <fstream>
#include <new>
#include <sstream>
#include <string>

namespace shootout::platform {

namespace {

std::size_t round_up(std::size_t bytes, std::size_t unit) { return (bytes + unit - 1) / unit * unit; }

}  // namespace

HugePageRegion::HugePageRegion(std::size_t bytes) {
    if (bytes == 0) return;
    size_ = round_up(bytes, kHugePage);
    // Reserve room to align to 2 MiB with at least one guard page either side, all inaccessible;
    // then open the aligned middle. Its flags differ from the guards', so no merge can happen.
    reserved_size_ = size_ + kHugePage + 2 * kSmallPage;
    void* reserved = ::mmap(nullptr, reserved_size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) throw std::bad_alloc();
    reserved_ = static_cast<std::byte*>(reserved);
    const auto first = reinterpret_cast<std::uintptr_t>(reserved_) + kSmallPage;
    data_ = reserved_ + (round_up(first, kHugePage) - reinterpret_cast<std::uintptr_t>(reserved_));
    if (::mprotect(data_, size_, PROT_READ | PROT_WRITE) != 0) {
        ::munmap(reserved_, reserved_size_);
        throw std::bad_alloc();
    }
#if defined(MADV_HUGEPAGE)
    // A request: refused where the kernel lacks THP, and then the pages column says 4k.
    ::madvise(data_, size_, MADV_HUGEPAGE);
#endif
}

void HugePageRegion::release() noexcept {
    if (reserved_) ::munmap(reserved_, reserved_size_);
}

PageBacking page_backing(const void* address) {
#if !defined(__linux__)
    (void)address;
    return PageBacking::unknown;  // only Linux says, in smaps, what backs a mapping
#else
    const auto target = reinterpret_cast<std::uintptr_t>(address);
    std::ifstream smaps("/proc/self/smaps");
    bool inside = false;
    long long rss_kib = -1, huge_kib = -1;
    for (std::string line; std::getline(smaps, line);) {
        // A mapping's first line: "<start>-<end> rw-p 00000000 00:00 0" (addresses in hex); its fields: "Rss:  4096 kB".
        const std::size_t dash = line.find('-');
        const std::size_t space = line.find(' ');
        if (dash != std::string::npos && space != std::string::npos && dash < space && line.find(':') > space) {
            if (inside) break;  // the fields of the mapping that holds it are read
            const std::uintptr_t begin = std::stoull(line.substr(0, dash), nullptr, 16);
            const std::uintptr_t end = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
            inside = begin <= target && target < end;
            continue;
        }
        if (!inside) continue;
        std::istringstream field(line);
        std::string key;
        long long kib = 0;
        field >> key >> kib;
        if (key == "Rss:") rss_kib = kib;
        else if (key == "AnonHugePages:") huge_kib = kib;
    }
    if (rss_kib <= 0 || huge_kib < 0) return PageBacking::unknown;  // untouched, or no such mapping
    if (huge_kib == 0) return PageBacking::small;
    return huge_kib >= rss_kib ? PageBacking::huge : PageBacking::mixed;
#endif
}

bool huge_pages_available() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string modes;
    std::getline(in, modes);
    return modes.find("[always]") != std::string::npos || modes.find("[madvise]") != std::string::npos;
}

}  // namespace shootout::platform
