// Windows files: the C runtime's descriptors (_open, _write) and, for what it lacks (reads at an
// offset, locks, replacing a file), the Win32 handle behind each descriptor.
#include "platform/files.hpp"

#include <windows.h>
#include <fcntl.h>
#include <io.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdint>
#include <iterator>
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
        case ERROR_FILENAME_EXCED_RANGE: return ENAMETOOLONG;
        case ERROR_WRITE_PROTECT: return EROFS;
        case ERROR_DIRECTORY: return ENOTDIR;
        case ERROR_CANT_ACCESS_FILE:
        case ERROR_CANT_RESOLVE_FILENAME: return ELOOP;
        default: return EIO;
    }
}

bool failed_with_last_error() {
    errno = errno_from(GetLastError());
    return false;
}

HANDLE handle_of(int fd) { return reinterpret_cast<HANDLE>(::_get_osfhandle(fd)); }

// Which file an open handle is: the volume's serial number and the file index.
FileIdentity identity_of(HANDLE file) {
    BY_HANDLE_FILE_INFORMATION info{};
    if (!::GetFileInformationByHandle(file, &info)) return {};
    return {info.dwVolumeSerialNumber, (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow};
}

// The identity of what path names; flags: FILE_FLAG_OPEN_REPARSE_POINT for a link itself.
FileIdentity identity_of(const std::string& path, DWORD flags) {
    const HANDLE file = ::CreateFileA(path.c_str(), FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                      nullptr, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | flags, nullptr);
    if (file == INVALID_HANDLE_VALUE) return {};
    const FileIdentity identity = identity_of(file);
    ::CloseHandle(file);
    return identity;
}

bool fill(const struct _stat64& from, FileStatus& status) {
    switch (from.st_mode & _S_IFMT) {
        case _S_IFREG: status.kind = FileKind::regular; break;
        case _S_IFDIR: status.kind = FileKind::directory; break;
        case _S_IFCHR: status.kind = FileKind::character_device; break;
        case _S_IFIFO: status.kind = FileKind::fifo; break;
        default: status.kind = FileKind::other; break;
    }
    status.size = static_cast<std::uint64_t>(from.st_size);
    status.mode = static_cast<std::uint32_t>(from.st_mode & 0777);
    return true;
}

// Opens path by CreateFileA, never through a reparse point (a symbolic link or junction in the
// file's place is refused with ELOOP), as a C runtime descriptor with crt_flags.
int open_handle(const std::string& path, DWORD access, DWORD share, DWORD disposition, int crt_flags) {
    const HANDLE file = ::CreateFileA(path.c_str(), access, share, nullptr, disposition,
                                      FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
    if (file == INVALID_HANDLE_VALUE) {
        failed_with_last_error();
        return -1;
    }
    BY_HANDLE_FILE_INFORMATION info{};
    if (!::GetFileInformationByHandle(file, &info) || (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
        const bool link = info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT;
        if (!link) failed_with_last_error();
        ::CloseHandle(file);
        if (link) errno = ELOOP;
        return -1;
    }
    const int fd = ::_open_osfhandle(reinterpret_cast<intptr_t>(file), crt_flags);
    if (fd < 0) ::CloseHandle(file);
    return fd;
}

// What _open() shares by default: others may read and write, not delete.
constexpr DWORD kShareReadWrite = FILE_SHARE_READ | FILE_SHARE_WRITE;

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGBREAK};

}  // namespace

bool file_status(const std::string& path, FileStatus& status) {
    struct _stat64 found {};
    if (::_stat64(path.c_str(), &found) != 0 || !fill(found, status)) return false;
    status.identity = identity_of(path, 0);
    return true;
}

bool file_status(int fd, FileStatus& status) {
    struct _stat64 found {};
    if (::_fstat64(fd, &found) != 0 || !fill(found, status)) return false;
    status.identity = identity_of(handle_of(fd));
    return true;
}

bool link_status(const std::string& path, FileStatus& status) {
    const DWORD attributes = ::GetFileAttributesA(path.c_str());
    if (attributes == INVALID_FILE_ATTRIBUTES) return failed_with_last_error();
    if (!(attributes & FILE_ATTRIBUTE_REPARSE_POINT)) return file_status(path, status);
    status = {};
    status.kind = FileKind::symbolic_link;
    status.identity = identity_of(path, FILE_FLAG_OPEN_REPARSE_POINT);
    status.mode = 0666;
    return true;
}

std::uint32_t effective_user() { return 0; }

FileDescriptor::~FileDescriptor() {
    if (fd_ >= 0) ::_close(fd_);
}

bool FileDescriptor::close() { return ::_close(std::exchange(fd_, -1)) == 0; }

int open_file(const std::string& path, OpenFor how) {
    switch (how) {
        case OpenFor::reading: return ::_open(path.c_str(), _O_RDONLY | _O_BINARY | _O_NOINHERIT);
        // Shared for deleting too: the run holding the lock removes the lock file before it lets go.
        case OpenFor::locking:
            return open_handle(path, GENERIC_READ | GENERIC_WRITE, kShareReadWrite | FILE_SHARE_DELETE, OPEN_ALWAYS, _O_RDWR | _O_BINARY);
        case OpenFor::appending:
            return open_handle(path, GENERIC_READ | GENERIC_WRITE, kShareReadWrite, OPEN_EXISTING, _O_RDWR | _O_APPEND | _O_BINARY);
        case OpenFor::writing_in_place: return open_handle(path, GENERIC_WRITE, kShareReadWrite, OPEN_EXISTING, _O_WRONLY | _O_BINARY);
    }
    errno = EINVAL;
    return -1;
}

// Shared for deleting too: a stop signal's handler removes a file still being written.
int create_new_file(const std::string& path) {
    return open_handle(path, GENERIC_READ | GENERIC_WRITE, kShareReadWrite | FILE_SHARE_DELETE, CREATE_NEW, _O_RDWR | _O_BINARY);
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

bool same_file(int fd, const std::string& path) {
    const FileIdentity open = identity_of(handle_of(fd));
    return open != FileIdentity{} && open == identity_of(path, FILE_FLAG_OPEN_REPARSE_POINT);
}

std::int64_t lock_holder(int) { return -1; }

bool truncate_file(int fd, std::uint64_t size) {
    const errno_t error = ::_chsize_s(fd, static_cast<long long>(size));
    if (error != 0) errno = error;
    return error == 0;
}

bool sync_file(int fd) { return ::_commit(fd) == 0; }

// Windows' _access reads the read-only attribute only; the ACLs decide when the file is opened.
bool may_write(const std::string& path) { return ::_access(path.c_str(), 2) == 0; }

bool copy_attributes(int, const FileStatus*) { return true; }

bool replace_path(const std::string& from, const std::string& to) {
    return ::MoveFileExA(from.c_str(), to.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ||
           failed_with_last_error();
}

bool remove_path(const std::string& path) { return remove_path(path.c_str()); }
bool remove_path(const char* path) { return ::_unlink(path) == 0; }

namespace {
// What each stop signal did before on_stop_signals(), given back by end_by_signal().
void (*previous_actions[std::size(kStopSignals)])(int);
}  // namespace

void on_stop_signals(void (*handler)(int)) {
    for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
        const auto previous = std::signal(kStopSignals[i], handler);
        if (previous == SIG_IGN) std::signal(kStopSignals[i], SIG_IGN);  // ignored: it stays so
        previous_actions[i] = previous == SIG_ERR ? SIG_DFL : previous;
    }
}

// The C runtime restores SIG_DFL before it calls a handler; raising the signal again under the
// action that was there first (the default one ends the process) takes it.
void end_by_signal(int signal) {
    for (std::size_t i = 0; i < std::size(kStopSignals); ++i)
        if (kStopSignals[i] == signal) std::signal(signal, previous_actions[i]);
    std::raise(signal);
}

StopSignalsHeld::StopSignalsHeld() : saved_{} {}
StopSignalsHeld::~StopSignalsHeld() = default;

}  // namespace shootout::platform
