#include "bench/files.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "bench/errors.hpp"

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

void replace_file(std::string_view option, const std::string& path, std::string_view text) {
    // rename() over a symbolic link would replace the link, not the file it points to.
    std::error_code not_there;
    const std::filesystem::path resolved = std::filesystem::canonical(path, not_there);
    const std::filesystem::path target = not_there ? std::filesystem::path(path) : resolved;
    const std::filesystem::path directory = target.has_parent_path() ? target.parent_path() : ".";
    // Hidden, and beside the target: rename() works within one file system only.
    const std::string hidden_name = std::string(".").append(target.filename().string()).append(".");
    std::string temporary;
    FileDescriptor file(platform::create_unique_file((directory / hidden_name).string(), temporary));
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

}  // namespace shootout
