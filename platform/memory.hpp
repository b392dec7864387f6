// Host memory for the arrays that are summed: mappings of their own, aligned for huge pages, with
// huge pages requested, and what the system backed them with once they were touched.
// memory_posix.cpp: Linux (transparent huge pages, /proc/self/smaps) and macOS (base pages only;
// written for it, not tested there). memory_windows.cpp: VirtualAlloc, large pages where permitted.
//
// Why: streaming a 1 GiB input from DRAM on 4 KiB pages costs a TLB miss every 4 KiB, and the
// hardware prefetchers stop at every 4 KiB boundary. On the 2-core EPYC VM one core read 25.6 GB/s
// from 4 KiB pages and 30.8 GB/s from transparent huge pages. A mapping is never touched
// here, so the first thread that writes a page places it (NUMA first touch): see cpu/parallel/placed_input.hpp.
// Windows places large pages when it maps them (they are locked in memory), so there the first
// touch places base pages only.
#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

namespace shootout::platform {

inline constexpr std::size_t kSmallPage = std::size_t{4} << 10;
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

// At least `bytes` of zero-filled memory, starting on a 2 MiB boundary. Linux: untouched,
// madvise'd MADV_HUGEPAGE, between two inaccessible guard pages, so the kernel never merges it with a
// neighbouring mapping and /proc/self/smaps describes it alone. Windows: on large pages when
// huge_pages_available(), else committed base pages, untouched. Zero bytes maps nothing.
class HugePageRegion {
public:
    HugePageRegion() = default;
    explicit HugePageRegion(std::size_t bytes);  // throws std::bad_alloc
    ~HugePageRegion() { release(); }
    HugePageRegion(HugePageRegion&& other) noexcept
        : reserved_(std::exchange(other.reserved_, nullptr)), reserved_size_(std::exchange(other.reserved_size_, 0)),
          data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
    HugePageRegion& operator=(HugePageRegion&& other) noexcept {
        if (this != &other) {
            release();
            reserved_ = std::exchange(other.reserved_, nullptr);
            reserved_size_ = std::exchange(other.reserved_size_, 0);
            data_ = std::exchange(other.data_, nullptr);
            size_ = std::exchange(other.size_, 0);
        }
        return *this;
    }
    HugePageRegion(const HugePageRegion&) = delete;
    HugePageRegion& operator=(const HugePageRegion&) = delete;

    std::byte* data() const { return data_; }
    std::size_t size() const { return size_; }  // bytes, a multiple of 2 MiB

private:
    void release() noexcept;  // unmaps; nothing when empty

    std::byte* reserved_ = nullptr;  // the whole mapping, guard pages included
    std::size_t reserved_size_ = 0;
    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
};

// What backs the resident pages of the mapping that holds `address`: all on huge pages, all on base
// pages (4 KiB on x86), or some of each. Linux reads the AnonHugePages and Rss lines of
// /proc/self/smaps; Windows asks QueryWorkingSetEx about the page at `address` (a mapping there is
// all large pages or none). unknown when nothing there is resident, or the system cannot say (macOS).
enum class PageBacking { unknown, huge, small, mixed };
PageBacking page_backing(const void* address);

// The CSV's `pages` value: "huge", "4k", "mixed"; "" for unknown.
constexpr std::string_view to_string(PageBacking backing) {
    switch (backing) {
        case PageBacking::huge: return "huge";
        case PageBacking::small: return "4k";
        case PageBacking::mixed: return "mixed";
        case PageBacking::unknown: return "";
    }
    return "";
}

// Whether HugePageRegion can get huge pages here. Linux: "always" or "madvise" is the selected mode
// in /sys/kernel/mm/transparent_hugepage/enabled. Windows: the system has large pages and this
// process holds the "Lock pages in memory" privilege (SeLockMemoryPrivilege). macOS: never.
bool huge_pages_available();

}  // namespace shootout::platform
