#include "bench/files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <utility>

#include "bench/cli.hpp"

namespace shootout {

std::string describe_non_regular(mode_t mode) {
    if (S_ISDIR(mode)) return "is a directory";
    if (S_ISFIFO(mode)) return "is a FIFO, not a regular file";
    if (S_ISCHR(mode)) return "is a character device, not a regular file";
    if (S_ISBLK(mode)) return "is a block device, not a regular file";
    if (S_ISSOCK(mode)) return "is a socket, not a regular file";
    return "is not a regular file";
}

FileDescriptor::~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
}

bool FileDescriptor::close() {
    return ::close(std::exchange(fd_, -1)) == 0;  // not retried on EINTR: Linux has released the descriptor
}

ssize_t read_at(int fd, std::span<char> out, std::uint64_t offset) {
    std::size_t done = 0;
    while (done < out.size()) {
        const ssize_t got = ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return -1;
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
    }
    return static_cast<ssize_t>(done);
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

void check_output_path(std::string_view option, const std::string& path, OutputWrite how) {
    auto refuse = [&](const std::string& why) { return UsageError(std::string(option) + ": " + why); };
    const std::string cannot_write = "cannot write '" + path + "': ";
    struct stat status {};
    if (::stat(path.c_str(), &status) == 0) {
        if (!S_ISREG(status.st_mode))
            throw refuse("'" + path + "' " + describe_non_regular(status.st_mode) + "; give a regular file's path (leave " +
                         std::string(option) + " out to write none)");
        if (how == OutputWrite::append) {
            if (::access(path.c_str(), W_OK) != 0) throw refuse(cannot_write + std::strerror(errno));
            return;
        }
    } else if (const int error = errno; error != ENOENT) {
        throw refuse(cannot_write + std::strerror(error));
    }
    // A new file, or a replacement made beside it: both are created in its directory.
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    const std::string directory = parent.empty() ? "." : parent.string();
    if (::stat(directory.c_str(), &status) != 0) {
        const int error = errno;
        throw refuse(cannot_write + "its directory '" + directory + "' " +
                     (error == ENOENT ? std::string("does not exist") : std::strerror(error)));
    }
    if (!S_ISDIR(status.st_mode)) throw refuse(cannot_write + "'" + directory + "' is not a directory");
    if (::access(directory.c_str(), W_OK | X_OK) != 0)
        throw refuse(cannot_write + "no file can be created in '" + directory + "': " + std::strerror(errno));
}

namespace {
mode_t current_umask() {
    const mode_t mask = ::umask(0);  // the only way to read it is to set it
    ::umask(mask);
    return mask;
}

// The file path names: the one a symbolic link points to, since rename() over a link would replace
// the link, not the file.
std::filesystem::path output_target(const std::string& path) {
    std::error_code not_there;
    const std::filesystem::path resolved = std::filesystem::canonical(path, not_there);
    return not_there ? std::filesystem::path(path) : resolved;
}

// ".NAME<suffix>" in target's directory: hidden, and on target's file system, where rename() works.
std::string hidden_beside(const std::filesystem::path& target, std::string_view suffix) {
    const std::filesystem::path directory = target.has_parent_path() ? target.parent_path() : ".";
    return (directory / std::string(".").append(target.filename().string()).append(suffix)).string();
}

// Opens and locks the lock file. A run that ends unlinks its lock file while holding it: a lock taken
// on a name that no longer leads to the locked file is dropped and taken again on the new file.
int lock_file(std::string_view option, const std::string& path, const std::string& lock_path) {
    auto refuse = [&](const std::string& why) { return UsageError(std::string(option) + ": " + why); };
    const std::string cannot_lock = "cannot lock '" + path + "': ";
    for (;;) {
        // Read-only is enough for flock(), and O_NONBLOCK keeps a FIFO put in its place from hanging the run.
        FileDescriptor file(::open(lock_path.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666));
        if (file.get() < 0) throw refuse(cannot_lock + "creating its lock file '" + lock_path + "' failed: " + std::strerror(errno));
        struct stat held {}, named {};
        if (::fstat(file.get(), &held) != 0 || !S_ISREG(held.st_mode))
            throw refuse(cannot_lock + "its lock file '" + lock_path + "' " + describe_non_regular(held.st_mode) + "; remove it");
        int locked;
        do locked = ::flock(file.get(), LOCK_EX | LOCK_NB);
        while (locked != 0 && errno == EINTR);
        if (locked != 0 && errno == EWOULDBLOCK)
            throw refuse("another accumulate_bench run is writing '" + path + "' (it holds the lock '" + lock_path +
                         "'); wait for it to end or give another path");
        if (locked != 0) throw refuse(cannot_lock + "flock() on '" + lock_path + "' failed: " + std::strerror(errno));
        if (::stat(lock_path.c_str(), &named) == 0 && held.st_dev == named.st_dev && held.st_ino == named.st_ino)
            return file.release();
    }
}
}  // namespace

void replace_file(std::string_view option, const std::string& path, std::string_view text) {
    const std::filesystem::path target = output_target(path);
    std::string temporary = hidden_beside(target, ".XXXXXX");

    FileDescriptor file(::mkostemp(temporary.data(), O_CLOEXEC));
    if (file.get() < 0) {
        const int error = errno;
        throw std::runtime_error(std::string(option) + ": creating a temporary file beside '" + path +
                                 "' failed: " + std::strerror(error));
    }
    auto check = [&](bool done, const char* step) {
        if (done) return;
        const int error = errno;
        ::unlink(temporary.c_str());
        throw std::runtime_error(std::string(option) + ": " + step + " '" + path + "' failed: " + std::strerror(error));
    };
    struct stat existing {};
    const mode_t mode = ::stat(target.c_str(), &existing) == 0 ? existing.st_mode & 07777 : 0666 & ~current_umask();
    check(::fchmod(file.get(), mode) == 0, "writing");
    check(write_all(file.get(), text), "writing");
    check(::fsync(file.get()) == 0, "writing");  // the data is on disk before the name points to it
    check(file.close(), "writing");
    check(::rename(temporary.c_str(), target.c_str()) == 0, "replacing");
}

OutputLock::OutputLock(std::string_view option, const std::string& path)
    : lock_path_(hidden_beside(output_target(path), ".lock")), file_(lock_file(option, path, lock_path_)) {}

OutputLock::~OutputLock() {
    ::unlink(lock_path_.c_str());  // before the lock is dropped: see lock_file()
}

}  // namespace shootout
