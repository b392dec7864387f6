// The operating system's file calls that the input reader and the reporters need, behind one small
// interface: POSIX (Linux, macOS) in files_posix.cpp, Windows in files_windows.cpp. Paths are
// narrow strings as the command line gave them; errors are errno values, so messages read the same
// on every system.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace shootout::platform {

// What a path names. Windows has no FIFOs, block devices or sockets in its file system; its
// character devices (NUL, CON) are character_device.
enum class FileKind { regular, directory, fifo, character_device, block_device, socket, other };

struct FileStatus {
    FileKind kind = FileKind::other;
    std::uint64_t size = 0;  // bytes, for regular files
};

// false with errno set when the path or descriptor cannot be looked at.
bool file_status(const std::string& path, FileStatus& status);
bool file_status(int fd, FileStatus& status);

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

// Opens without blocking on a FIFO and without passing the descriptor to child processes; -1 with
// errno set on failure. appending creates the file (mode 0666 less the umask) and writes at its end;
// locking creates it too, for a lock, and refuses a symbolic link in its place.
enum class OpenFor { reading, appending, locking };
int open_file(const std::string& path, OpenFor how);

// Reads up to out.size() bytes from offset, retrying after short reads and EINTR, so fewer come back
// only at the end of the file. -1 with errno set on an error.
std::int64_t read_at(int fd, std::span<char> out, std::uint64_t offset);

// Writes all of text. False with errno set on an error.
bool write_all(int fd, std::string_view text);

// Waits for an exclusive lock on the whole file, held until the descriptor closes: flock() on
// POSIX, LockFileEx() on Windows. Both are advisory between programs that ask for them, which is
// what two runs appending to one CSV file are. False with errno set on an error.
bool lock_exclusive(int fd);

// The same without waiting: locked, held by another process (or descriptor), or failed with errno set.
enum class TryLock { locked, held, failed };
TryLock try_lock_exclusive(int fd);

// Whether path still names the file fd has open (a lock taken on a name another process has since
// removed guards nothing). Windows removes no open file, so there it is always so.
bool same_file(int fd, const std::string& path);

// Cuts the file to size bytes; flushes it to the storage device. False with errno set on an error.
bool truncate_file(int fd, std::uint64_t size);
bool sync_file(int fd);

// Whether this process may write the file; whether it may create files in the directory. False
// with errno set when not.
bool may_write(const std::string& path);
bool may_create_in(const std::string& directory);

// Creates a new, empty file named prefix + a unique suffix and opens it for writing; the name is
// stored in `name`. -1 with errno set on failure.
int create_unique_file(const std::string& prefix, std::string& name);

// Gives the file that fd writes the permissions `path` has, or, when path does not exist, those a
// new file gets (0666 less the umask). Windows files have no such bits: nothing to do there.
bool copy_permissions(int fd, const std::string& path);

// Puts `from` in place of `to` in one step: a reader sees the old file or the new one, whole. Both
// are in one directory. False with errno set on failure.
bool replace_path(const std::string& from, const std::string& to);
bool remove_path(const std::string& path);

}  // namespace shootout::platform
