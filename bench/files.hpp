// Reading and writing files without hanging on a FIFO or losing what a user had: the POSIX calls
// that the input reader and the reporters share, and the rules for output paths.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace shootout {

// What a path is when it is not a regular file, for messages: "is a FIFO, not a regular file".
std::string describe_non_regular(mode_t mode);

// Owns a file descriptor. The destructor closes it unchecked, on paths that are failing anyway;
// close() says whether closing worked, which matters after writes (NFS reports them failed there).
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor();
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;

    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }  // the caller closes it
    bool close();  // false with errno set when closing failed

private:
    int fd_;
};

// Reads up to out.size() bytes from offset, retrying after short reads and EINTR, so fewer come back
// only at the end of the file. -1 with errno set on an error.
ssize_t read_at(int fd, std::span<char> out, std::uint64_t offset);

// Writes all of text. False with errno set on an error.
bool write_all(int fd, std::string_view text);

// How an output is written: appended in place, or replaced by rename() (which needs the directory).
enum class OutputWrite { append, replace };

// Throws UsageError, its message starting with option and naming path, unless path is a regular file
// or a new name in an existing directory, writable as `how` needs. FIFOs, devices (/dev/null too) and
// directories are refused: a FIFO blocks the run, /dev/full fails it, and rename() would replace a
// device node.
void check_output_path(std::string_view option, const std::string& path, OutputWrite how);

// Replaces path by a file holding text: writes a temporary file in path's directory, then rename()s
// it over path, so that path holds the old document or the new one, whole, whenever the run stops.
// A new file gets the mode the umask gives; an existing one keeps its mode. Throws
// std::runtime_error naming option and path when any step fails, and removes the temporary file.
void replace_file(std::string_view option, const std::string& path, std::string_view text);

// One writer per output: an exclusive flock() on a hidden file beside path (".NAME.lock", beside the
// file a symbolic link names), held while this object lives and removed with it. The kernel drops a
// flock() when its process ends, killed or not, so a lock file a killed run left behind blocks no
// later run. Throws UsageError, starting with option and naming path, when another process holds it.
class OutputLock {
public:
    OutputLock(std::string_view option, const std::string& path);
    ~OutputLock();
    OutputLock(const OutputLock&) = delete;
    OutputLock& operator=(const OutputLock&) = delete;

    const std::string& lock_path() const { return lock_path_; }

private:
    std::string lock_path_;
    FileDescriptor file_;
};

}  // namespace shootout
