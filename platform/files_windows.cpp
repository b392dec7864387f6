// Windows files: the C runtime's descriptors (_open, _write) and, for what it lacks (reads at an
// offset, locks, replacing a file), the Win32 handle behind each descriptor.
#include "platform/files.hpp"

#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <utility>

namespace shootout::platform {
namespace {

// The errno closest to a Win32 error, so callers' messages come from strerror() everywhere.
int errno_from(DWORD error) {
    switch (error) {
        case ERROR_FILE_NOT_FOUND:
        case ERROR_PATH_NOT_FOUND: return ENOENT;
        case ERROR_ACCESS_DENIED:
        case ERROR_SHARING_VIOLATION:
        case ERROR_LOCK_VIOLATION: return EACCES;
        case ERROR_ALREADY_EXISTS:
        case ERROR_FILE_EXISTS: return EEXIST;
        case ERROR_DISK_FULL:
        case ERROR_HANDLE_DISK_FULL: return ENOSPC;
        case ERROR_NOT_SAME_DEVICE: return EXDEV;
        case ERROR_INVALID_HANDLE: return EBADF;
        default: return EIO;
    }
}

bool failed_with_last_error() {
    errno = errno_from(GetLastError());
    return false;
}

HANDLE handle_of(int fd) { return reinterpret_cast<HANDLE>(::_get_osfhandle(fd)); }

bool fill(const struct _stat64& from, FileStatus& status) {
    switch (from.st_mode & _S_IFMT) {
        case _S_IFREG: status.kind = FileKind::regular; break;
        case _S_IFDIR: status.kind = FileKind::directory; break;
        case _S_IFCHR: status.kind = FileKind::character_device; break;
        case _S_IFIFO: status.kind = FileKind::fifo; break;
        default: status.kind = FileKind::other; break;
    }
    status.size = static_cast<std::uint64_t>(from.st_size);
    return true;
}

}  // namespace

bool file_status(const std::string& path, FileStatus& status) {
    struct _stat64 found {};
    return ::_stat64(path.c_str(), &found) == 0 && fill(found, status);
}

bool file_status(int fd, FileStatus& status) {
    struct _stat64 found {};
    return ::_fstat64(fd, &found) == 0 && fill(found, status);
}

FileDescriptor::~FileDescriptor() {
    if (fd_ >= 0) ::_close(fd_);
}

bool FileDescriptor::close() { return ::_close(std::exchange(fd_, -1)) == 0; }

int open_file(const std::string& path, OpenFor how) {
    if (how == OpenFor::reading) return ::_open(path.c_str(), _O_RDONLY | _O_BINARY | _O_NOINHERIT);
    if (how == OpenFor::locking) return ::_open(path.c_str(), _O_RDWR | _O_CREAT | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
    return ::_open(path.c_str(), _O_RDWR | _O_APPEND | _O_CREAT | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
}

std::int64_t read_at(int fd, std::span<char> out, std::uint64_t offset) {
    const HANDLE file = handle_of(fd);
    std::size_t done = 0;
    while (done < out.size()) {
        OVERLAPPED at{};
        at.Offset = static_cast<DWORD>(offset + done);
        at.OffsetHigh = static_cast<DWORD>((offset + done) >> 32);
        const DWORD want = static_cast<DWORD>(std::min<std::size_t>(out.size() - done, 1u << 30));
        DWORD got = 0;
        if (!::ReadFile(file, out.data() + done, want, &got, &at)) {
            if (GetLastError() == ERROR_HANDLE_EOF) break;
            failed_with_last_error();
            return -1;
        }
        if (got == 0) break;
        done += got;
    }
    return static_cast<std::int64_t>(done);
}

bool write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        const int put = ::_write(fd, text.data(), static_cast<unsigned>(std::min<std::size_t>(text.size(), INT_MAX)));
        if (put < 0) return false;
        text.remove_prefix(static_cast<std::size_t>(put));
    }
    return true;
}

bool lock_exclusive(int fd) {
    OVERLAPPED whole{};  // from offset 0, the largest length: the file and anything appended
    return ::LockFileEx(handle_of(fd), LOCKFILE_EXCLUSIVE_LOCK, 0, MAXDWORD, MAXDWORD, &whole) || failed_with_last_error();
}

TryLock try_lock_exclusive(int fd) {
    OVERLAPPED whole{};
    if (::LockFileEx(handle_of(fd), LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, MAXDWORD, MAXDWORD, &whole))
        return TryLock::locked;
    if (GetLastError() == ERROR_LOCK_VIOLATION) return TryLock::held;
    failed_with_last_error();
    return TryLock::failed;
}

bool same_file(int, const std::string&) { return true; }

bool truncate_file(int fd, std::uint64_t size) {
    const errno_t error = ::_chsize_s(fd, static_cast<long long>(size));
    if (error != 0) errno = error;
    return error == 0;
}

bool sync_file(int fd) { return ::_commit(fd) == 0; }

// Windows' _access reads the read-only attribute only; the ACLs decide when the file is opened.
bool may_write(const std::string& path) { return ::_access(path.c_str(), 2) == 0; }
bool may_create_in(const std::string& directory) { return ::_access(directory.c_str(), 2) == 0; }

int create_unique_file(const std::string& prefix, std::string& name) {
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
        char suffix[32];
        std::snprintf(suffix, sizeof suffix, "%lx-%x", GetCurrentProcessId(), counter.fetch_add(1) ^ static_cast<unsigned>(GetTickCount()));
        name = prefix + suffix;
        const int fd = ::_open(name.c_str(), _O_RDWR | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

bool copy_permissions(int, const std::string&) { return true; }

bool replace_path(const std::string& from, const std::string& to) {
    return ::MoveFileExA(from.c_str(), to.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ||
           failed_with_last_error();
}

bool remove_path(const std::string& path) { return ::_unlink(path.c_str()) == 0; }

}  // namespace shootout::platform
