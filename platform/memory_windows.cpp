// Windows: VirtualAlloc. Large pages need the "Lock pages in memory" privilege, which an
// administrator grants (secpol.msc, Local Policies, User Rights Assignment); without it every
// region is on base pages, and the pages column says 4k.
#include "platform/memory.hpp"

#include <windows.h>
#include <psapi.h>

#include <cstdint>
#include <new>

namespace shootout::platform {
namespace {

std::size_t round_up(std::size_t bytes, std::size_t unit) { return (bytes + unit - 1) / unit * unit; }

// Enables SeLockMemoryPrivilege in this process's token, which large-page allocations need.
bool enable_lock_memory_privilege() {
    HANDLE token = nullptr;
    if (!::OpenProcessToken(::GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &token)) return false;
    TOKEN_PRIVILEGES privileges{};
    privileges.PrivilegeCount = 1;
    privileges.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
    bool enabled = ::LookupPrivilegeValueA(nullptr, "SeLockMemoryPrivilege", &privileges.Privileges[0].Luid) &&
                   ::AdjustTokenPrivileges(token, FALSE, &privileges, 0, nullptr, nullptr) &&
                   ::GetLastError() == ERROR_SUCCESS;  // ERROR_NOT_ALL_ASSIGNED: the account lacks it
    ::CloseHandle(token);
    return enabled;
}

}  // namespace

bool huge_pages_available() {
    static const bool available = ::GetLargePageMinimum() != 0 && enable_lock_memory_privilege();
    return available;
}

HugePageRegion::HugePageRegion(std::size_t bytes) {
    if (bytes == 0) return;
    size_ = round_up(bytes, kHugePage);
    if (huge_pages_available()) {
        // Allocated, locked and zeroed here, aligned to the large-page size. It can still fail when
        // physical memory is too fragmented for contiguous large pages: then base pages, as below.
        reserved_size_ = round_up(size_, ::GetLargePageMinimum());
        reserved_ = static_cast<std::byte*>(
            ::VirtualAlloc(nullptr, reserved_size_, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE));
        if (reserved_) {
            data_ = reserved_;
            return;
        }
    }
    // Reserve room to align to 2 MiB, then commit the aligned middle; the rest stays reserved and
    // inaccessible. Committed pages are zero and take no memory until first touched.
    reserved_size_ = size_ + kHugePage;
    reserved_ = static_cast<std::byte*>(::VirtualAlloc(nullptr, reserved_size_, MEM_RESERVE, PAGE_NOACCESS));
    if (!reserved_) throw std::bad_alloc();
    const auto first = reinterpret_cast<std::uintptr_t>(reserved_);
    data_ = reserved_ + (round_up(first, kHugePage) - first);
    if (!::VirtualAlloc(data_, size_, MEM_COMMIT, PAGE_READWRITE)) {
        ::VirtualFree(reserved_, 0, MEM_RELEASE);
        throw std::bad_alloc();
    }
}

void HugePageRegion::release() noexcept {
    if (reserved_) ::VirtualFree(reserved_, 0, MEM_RELEASE);
}

PageBacking page_backing(const void* address) {
    PSAPI_WORKING_SET_EX_INFORMATION page{};
    page.VirtualAddress = const_cast<void*>(address);
    if (!::QueryWorkingSetEx(::GetCurrentProcess(), &page, sizeof page) || !page.VirtualAttributes.Valid)
        return PageBacking::unknown;  // not resident: untouched, or paged out
    return page.VirtualAttributes.LargePage ? PageBacking::huge : PageBacking::small;
}

}  // namespace shootout::platform
