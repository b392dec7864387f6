#include "report/files.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "api/errors.hpp"

namespace shootout {

std::string describe_non_regular(platform::FileKind kind) {
    switch (kind) {
        case platform::FileKind::directory: return "is a directory";
        case platform::FileKind::fifo: return "is a FIFO, not a regular file";
        case platform::FileKind::character_device: return "is a character device, not a regular file";
        case platform::FileKind::block_device: return "is a block device, not a regular file";
        case platform::FileKind::socket: return "is a socket, not a regular file";
        case platform::FileKind::regular:
        case platform::FileKind::other: break;
    }
    return "is not a regular file";
}

void check_output_path(std::string_view option, const std::string& path, OutputWrite how) {
    auto refuse = [&](const std::string& why) { return UsageError(std::string(option) + ": " + why); };
    const std::string cannot_write = "cannot write '" + path + "': ";
    platform::FileStatus status;
    if (platform::file_status(path, status)) {
        if (status.kind != platform::FileKind::regular)
            throw refuse("'" + path + "' " + describe_non_regular(status.kind) + "; give a regular file's path (leave " +
                         std::string(option) + " out to write none)");
        if (how == OutputWrite::append) {
            if (!platform::may_write(path)) throw refuse(cannot_write + std::strerror(errno));
            return;
        }
    } else if (const int error = errno; error != ENOENT) {
        throw refuse(cannot_write + std::strerror(error));
    }
    // A new file, or a replacement made beside it: both are created in its directory.
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    const std::string directory = parent.empty() ? "." : parent.string();
    if (!platform::file_status(directory, status)) {
        const int error = errno;
        throw refuse(cannot_write + "its directory '" + directory + "' " +
                     (error == ENOENT ? std::string("does not exist") : std::strerror(error)));
    }
    if (status.kind != platform::FileKind::directory) throw refuse(cannot_write + "'" + directory + "' is not a directory");
    if (!platform::may_create_in(directory))
        throw refuse(cannot_write + "no file can be created in '" + directory + "': " + std::strerror(errno));
}

namespace {

// The file path names: the one a symbolic link points to, since replacing a link would replace the
// link, not the file.
std::filesystem::path output_target(const std::string& path) {
    std::error_code not_there;
    const std::filesystem::path resolved = std::filesystem::canonical(path, not_there);
    return not_there ? std::filesystem::path(path) : resolved;
}

// ".NAME<suffix>" in target's directory: hidden, and on target's file system, where a rename works.
std::string hidden_beside(const std::filesystem::path& target, std::string_view suffix) {
    const std::filesystem::path directory = target.has_parent_path() ? target.parent_path() : ".";
    return (directory / std::string(".").append(target.filename().string()).append(suffix)).string();
}

// Opens and locks the lock file. A run that ends removes its lock file while holding it: a lock taken
// on a name that no longer leads to the locked file is dropped and taken again on the new file.
int lock_file(std::string_view option, const std::string& path, const std::string& lock_path) {
    auto refuse = [&](const std::string& why) { return UsageError(std::string(option) + ": " + why); };
    const std::string cannot_lock = "cannot lock '" + path + "': ";
    for (;;) {
        FileDescriptor file(platform::open_file(lock_path, platform::OpenFor::locking));
        if (file.get() < 0) throw refuse(cannot_lock + "creating its lock file '" + lock_path + "' failed: " + std::strerror(errno));
        platform::FileStatus held;
        if (!platform::file_status(file.get(), held) || held.kind != platform::FileKind::regular)
            throw refuse(cannot_lock + "its lock file '" + lock_path + "' " + describe_non_regular(held.kind) + "; remove it");
        switch (platform::try_lock_exclusive(file.get())) {
            case platform::TryLock::held:
                throw refuse("another accumulate_bench run is writing '" + path + "' (it holds the lock '" + lock_path +
                             "'); wait for it to end or give another path");
            case platform::TryLock::failed:
                throw refuse(cannot_lock + "locking '" + lock_path + "' failed: " + std::strerror(errno));
            case platform::TryLock::locked: break;
        }
        if (platform::same_file(file.get(), lock_path)) return file.release();
    }
}

}  // namespace

void replace_file(std::string_view option, const std::string& path, std::string_view text) {
    const std::filesystem::path target = output_target(path);
    std::string temporary;
    FileDescriptor file(platform::create_unique_file(hidden_beside(target, "."), temporary));
    if (file.get() < 0) {
        const int error = errno;
        throw std::runtime_error(std::string(option) + ": creating a temporary file beside '" + path +
                                 "' failed: " + std::strerror(error));
    }
    auto check = [&](bool done, const char* step) {
        if (done) return;
        const int error = errno;
        platform::remove_path(temporary);
        throw std::runtime_error(std::string(option) + ": " + step + " '" + path + "' failed: " + std::strerror(error));
    };
    check(platform::copy_permissions(file.get(), target.string()), "writing");
    check(write_all(file.get(), text), "writing");
    check(platform::sync_file(file.get()), "writing");  // the data is on disk before the name points to it
    check(file.close(), "writing");
    check(platform::replace_path(temporary, target.string()), "replacing");
}

OutputLock::OutputLock(std::string_view option, const std::string& path)
    : lock_path_(hidden_beside(output_target(path), ".lock")), file_(lock_file(option, path, lock_path_)) {}

OutputLock::~OutputLock() {
    platform::remove_path(lock_path_);  // before the lock is dropped: see lock_file()
}

}  // namespace shootout
