// Host memory for the arrays that are summed: mappings of their own, aligned for huge pages, with
// transparent huge pages requested, and what the kernel backed them with once they were touched.
//
// Why: streaming a 1 GiB input from DRAM on 4 KiB pages costs a TLB miss every 4 KiB, and the
// hardware prefetchers stop at every 4 KiB boundary. On the 2-core EPYC VM one core read 25.6 GB/s
// from 4 KiB pages and 30.8 GB/s from transparent huge pages (cpu/PERFORMANCE.md). A mapping is never
// touched here, so the first thread that writes a page places it (NUMA first touch): see
// cpu/parallel/placed_input.hpp.
#pragma once

#include <cstddef>
#include <string_view>

namespace shootout {

inline constexpr std::size_t kSmallPage = std::size_t{4} << 10;
inline constexpr std::size_t kHugePage = std::size_t{2} << 20;

// At least `bytes` of zero-filled, untouched memory, starting on a 2 MiB boundary, madvise'd
// MADV_HUGEPAGE. It sits between two inaccessible guard pages, so the kernel never merges it with a
// neighbouring mapping and /proc/self/smaps describes it alone. Zero bytes maps nothing.
class HugePageRegion {
public:
    HugePageRegion() = default;
    explicit HugePageRegion(std::size_t bytes);  // throws std::bad_alloc
    ~HugePageRegion();
    HugePageRegion(HugePageRegion&& other) noexcept;
    HugePageRegion& operator=(HugePageRegion&& other) noexcept;
    HugePageRegion(const HugePageRegion&) = delete;
    HugePageRegion& operator=(const HugePageRegion&) = delete;

    std::byte* data() const { return data_; }
    std::size_t size() const { return size_; }  // bytes, a multiple of 2 MiB

private:
    std::byte* reserved_ = nullptr;  // the whole mapping, guard pages included
    std::size_t reserved_size_ = 0;
    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
};

// What backs the resident pages of the mapping that holds `address`, from the AnonHugePages and Rss
// lines of /proc/self/smaps: all on huge pages, all on base pages (4 KiB on x86), or some of each.
// unknown when no mapping holds it or smaps cannot be read.
enum class PageBacking { unknown, huge, small, mixed };
PageBacking page_backing(const void* address);

// The CSV's `pages` value: "huge", "4k", "mixed"; "" for unknown.
std::string_view to_string(PageBacking backing);

// Whether madvise(MADV_HUGEPAGE) can get huge pages here: "always" or "madvise" is the selected mode
// in /sys/kernel/mm/transparent_hugepage/enabled.
bool transparent_huge_pages_enabled();

}  // namespace shootout
