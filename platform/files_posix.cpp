// POSIX files: Linux, and macOS (written for it, not tested there).
#include "platform/files.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/sysmacros.h>
#endif

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iterator>
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
    if (S_ISLNK(mode)) return FileKind::symbolic_link;
    return FileKind::other;
}

bool fill(const struct stat& from, FileStatus& status) {
    status.kind = kind_of(from.st_mode);
    status.size = static_cast<std::uint64_t>(from.st_size);
    status.identity = {static_cast<std::uint64_t>(from.st_dev), static_cast<std::uint64_t>(from.st_ino)};
    status.mode = static_cast<std::uint32_t>(from.st_mode & 07777);
    status.owner = static_cast<std::uint32_t>(from.st_uid);
    status.group = static_cast<std::uint32_t>(from.st_gid);
    return true;
}

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

sigset_t stop_signal_set() {
    sigset_t set;
    sigemptyset(&set);
    for (const int signal : kStopSignals) sigaddset(&set, signal);
    return set;
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

bool link_status(const std::string& path, FileStatus& status) {
    struct stat found {};
    return ::lstat(path.c_str(), &found) == 0 && fill(found, status);
}

std::uint32_t effective_user() { return static_cast<std::uint32_t>(::geteuid()); }

FileDescriptor::~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
}

bool FileDescriptor::close() {
    return ::close(std::exchange(fd_, -1)) == 0;  // not retried on EINTR: Linux has released the descriptor
}

int open_file(const std::string& path, OpenFor how) {
    switch (how) {
        case OpenFor::reading: return ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        // Read-only is enough for flock(); O_NONBLOCK keeps a FIFO put in the lock's place from hanging the run.
        case OpenFor::locking: return ::open(path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
        case OpenFor::appending: return ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        case OpenFor::writing_in_place: return ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    }
    errno = EINVAL;
    return -1;
}

int create_new_file(const std::string& path) {
    return ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
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

std::int64_t lock_holder(int fd) {
#if defined(__linux__)
    struct stat locked {};
    if (::fstat(fd, &locked) != 0) return -1;
    std::FILE* locks = std::fopen("/proc/locks", "re");
    if (!locks) return -1;
    std::int64_t holder = -1;
    // "1: FLOCK  ADVISORY  WRITE 2311 fd:01:1234 0 EOF"; a waiter's line has "->" after the number.
    char line[256];
    while (holder < 0 && std::fgets(line, sizeof line, locks)) {
        char kind[16] = {}, arrow[4] = {};
        long long pid = 0;
        unsigned major_number = 0, minor_number = 0;
        unsigned long long inode = 0;
        if (std::sscanf(line, "%*d: %3s", arrow) == 1 && std::strcmp(arrow, "->") == 0) continue;
        if (std::sscanf(line, "%*d: %15s %*s %*s %lld %x:%x:%llu", kind, &pid, &major_number, &minor_number, &inode) == 5 &&
            std::strcmp(kind, "FLOCK") == 0 && major_number == major(locked.st_dev) && minor_number == minor(locked.st_dev) &&
            inode == static_cast<unsigned long long>(locked.st_ino) && pid > 0)
            holder = pid;
    }
    std::fclose(locks);
    return holder;
#else
    (void)fd;
    return -1;
#endif
}

bool truncate_file(int fd, std::uint64_t size) { return ::ftruncate(fd, static_cast<off_t>(size)) == 0; }
bool sync_file(int fd) { return ::fsync(fd) == 0; }

bool may_write(const std::string& path) { return ::access(path.c_str(), W_OK) == 0; }

bool copy_attributes(int fd, const FileStatus* existing) {
    if (!existing) return ::fchmod(fd, 0666 & ~current_umask()) == 0;
    struct stat created {};
    if (::fstat(fd, &created) != 0) return false;
    // The owner first: fchown() clears the set-user-ID and set-group-ID bits that fchmod() then sets.
    if ((created.st_uid != existing->owner || created.st_gid != existing->group) &&
        ::fchown(fd, static_cast<uid_t>(existing->owner), static_cast<gid_t>(existing->group)) != 0)
        return false;
    return ::fchmod(fd, static_cast<mode_t>(existing->mode)) == 0;
}

bool replace_path(const std::string& from, const std::string& to) { return ::rename(from.c_str(), to.c_str()) == 0; }
bool remove_path(const std::string& path) { return remove_path(path.c_str()); }
bool remove_path(const char* path) { return ::unlink(path) == 0; }

namespace {
// What each stop signal did before on_stop_signals(), given back by end_by_signal().
struct sigaction previous_actions[std::size(kStopSignals)];
}  // namespace

void on_stop_signals(void (*handler)(int)) {
    struct sigaction action {};
    action.sa_handler = handler;
    action.sa_mask = stop_signal_set();
    for (std::size_t i = 0; i < std::size(kStopSignals); ++i) {
        struct sigaction& previous = previous_actions[i];
        const bool ignored = ::sigaction(kStopSignals[i], nullptr, &previous) == 0 && !(previous.sa_flags & SA_SIGINFO) &&
                             previous.sa_handler == SIG_IGN;
        if (!ignored) ::sigaction(kStopSignals[i], &action, nullptr);  // one ignored, as under nohup, stays so
    }
}

// Another handler that was there first (LLVM's, which PoCL loads, removes its own files) runs next,
// with the signal pending once this handler returns; the default action ends the process.
void end_by_signal(int signal) {
    for (std::size_t i = 0; i < std::size(kStopSignals); ++i)
        if (kStopSignals[i] == signal) ::sigaction(signal, &previous_actions[i], nullptr);
    ::raise(signal);
}

StopSignalsHeld::StopSignalsHeld() {
    static_assert(sizeof(sigset_t) <= sizeof saved_);
    const sigset_t stop = stop_signal_set();
    sigset_t before;
    ::pthread_sigmask(SIG_BLOCK, &stop, &before);
    std::memcpy(saved_, &before, sizeof before);
}

StopSignalsHeld::~StopSignalsHeld() {
    sigset_t before;
    std::memcpy(&before, saved_, sizeof before);
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

}  // namespace shootout::platform
