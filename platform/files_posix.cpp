// POSIX files: Linux, and macOS (written for it, not tested there).
#include "platform/files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace shootout::platform {
namespace {

FileKind kind_of(mode_t mode) {
    if (S_ISREG(mode)) return FileKind::regular;
    if (S_ISDIR(mode)) return FileKind::directory;
    if (S_ISFIFO(mode)) return FileKind::fifo;
    if (S_ISCHR(mode)) return FileKind::character_device;
    if (S_ISBLK(mode)) return FileKind::block_device;
    if (S_ISSOCK(mode)) return FileKind::socket;
    return FileKind::other;
}

bool fill(const struct stat& from, FileStatus& status) {
    status.kind = kind_of(from.st_mode);
    status.size = static_cast<std::uint64_t>(from.st_size);
    return true;
}

mode_t current_umask() {
    const mode_t mask = ::umask(0);  // the only way to read it is to set it
    ::umask(mask);
    return mask;
}

}  // namespace

bool file_status(const std::string& path, FileStatus& status) {
    struct stat found {};
    return ::stat(path.c_str(), &found) == 0 && fill(found, status);
}

bool file_status(int fd, FileStatus& status) {
    struct stat found {};
    return ::fstat(fd, &found) == 0 && fill(found, status);
}

FileDescriptor::~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
}

bool FileDescriptor::close() {
    return ::close(std::exchange(fd_, -1)) == 0;  // not retried on EINTR: Linux has released the descriptor
}

int open_file(const std::string& path, OpenFor how) {
    if (how == OpenFor::reading) return ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    // Read-only is enough for flock(); O_NONBLOCK keeps a FIFO put in the lock's place from hanging the run.
    if (how == OpenFor::locking) return ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
    return ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
}

std::int64_t read_at(int fd, std::span<char> out, std::uint64_t offset) {
    std::size_t done = 0;
    while (done < out.size()) {
        const ssize_t got = ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return -1;
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
    }
    return static_cast<std::int64_t>(done);
}

bool write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        const ssize_t put = ::write(fd, text.data(), text.size());
        if (put < 0 && errno == EINTR) continue;
        if (put < 0) return false;
        text.remove_prefix(static_cast<std::size_t>(put));
    }
    return true;
}

bool lock_exclusive(int fd) {
    while (::flock(fd, LOCK_EX) != 0)
        if (errno != EINTR) return false;
    return true;
}

TryLock try_lock_exclusive(int fd) {
    while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) return TryLock::held;
        if (errno != EINTR) return TryLock::failed;
    }
    return TryLock::locked;
}

bool same_file(int fd, const std::string& path) {
    struct stat open {}, named {};
    return ::fstat(fd, &open) == 0 && ::stat(path.c_str(), &named) == 0 && open.st_dev == named.st_dev && open.st_ino == named.st_ino;
}

bool truncate_file(int fd, std::uint64_t size) { return ::ftruncate(fd, static_cast<off_t>(size)) == 0; }
bool sync_file(int fd) { return ::fsync(fd) == 0; }

bool may_write(const std::string& path) { return ::access(path.c_str(), W_OK) == 0; }
bool may_create_in(const std::string& directory) { return ::access(directory.c_str(), W_OK | X_OK) == 0; }

int create_unique_file(const std::string& prefix, std::string& name) {
    name = prefix + "XXXXXX";
    return ::mkostemp(name.data(), O_CLOEXEC);
}

bool copy_permissions(int fd, const std::string& path) {
    struct stat existing {};
    const mode_t mode = ::stat(path.c_str(), &existing) == 0 ? existing.st_mode & 07777 : 0666 & ~current_umask();
    return ::fchmod(fd, mode) == 0;
}

bool replace_path(const std::string& from, const std::string& to) { return ::rename(from.c_str(), to.c_str()) == 0; }
bool remove_path(const std::string& path) { return ::unlink(path.c_str()) == 0; }

}  // namespace shootout::platform
