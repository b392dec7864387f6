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
// character devices (NUL, CON) are character_device, and its reparse points (symbolic links,
// junctions) symbolic_link.
enum class FileKind { regular, directory, fifo, character_device, block_device, socket, symbolic_link, other };

// Which file a name leads to: two names of one file have one identity (st_dev and st_ino; Windows:
// the volume's serial number and the file index).
struct FileIdentity {
    std::uint64_t device = 0, inode = 0;
    bool operator==(const FileIdentity&) const = default;
};

struct FileStatus {
    FileKind kind = FileKind::other;
    std::uint64_t size = 0;  // bytes, for regular files
    FileIdentity identity;
    std::uint32_t mode = 0;  // the permission bits, 07777 (Windows: 0666, or 0444 for a read-only file)
    std::uint32_t owner = 0, group = 0;  // user and group ids (0 on Windows)
};

// false with errno set when the path or descriptor cannot be looked at. file_status follows a
// symbolic link to what it names; link_status looks at the link itself.
bool file_status(const std::string& path, FileStatus& status);
bool file_status(int fd, FileStatus& status);
bool link_status(const std::string& path, FileStatus& status);

// The user this process acts as (geteuid(); 0 on Windows), which owns the files it creates.
std::uint32_t effective_user();

// Owns a file descriptor. The destructor closes it unchecked, on paths that are failing anyway;
// close() says whether closing worked, which matters after writes (NFS reports them failed there).
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    ~FileDescriptor();
    FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
    FileDescriptor& operator=(FileDescriptor&& other) noexcept {
        const FileDescriptor closed(std::exchange(fd_, other.release()));
        return *this;
    }

    int get() const { return fd_; }
    int release() { return std::exchange(fd_, -1); }  // the caller closes it
    bool close();  // false with errno set when closing failed

private:
    int fd_;
};

// Opens without blocking on a FIFO and without passing the descriptor to child processes; -1 with
// errno set on failure. appending opens an existing file to write at its end, writing_in_place one
// to write from its start (neither truncates it nor creates one); both refuse a symbolic link in
// the file's place (ELOOP), as locking does, which creates the file (mode 0666 less the umask).
enum class OpenFor { reading, appending, writing_in_place, locking };
int open_file(const std::string& path, OpenFor how);

// Creates a new file (mode 0666 less the umask) and opens it for reading and writing; -1 with errno
// set on failure, EEXIST for any entry in its place, a symbolic link too, dangling or not:
// O_CREAT | O_EXCL | O_NOFOLLOW (Windows: CREATE_NEW on the link itself).
int create_new_file(const std::string& path);

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
// removed guards nothing).
bool same_file(int fd, const std::string& path);

// The process that holds a lock on the file fd has open, from /proc/locks on Linux; -1 when it is
// not known (elsewhere, or a process of another PID namespace).
std::int64_t lock_holder(int fd);

// Cuts the file to size bytes; flushes it to the storage device. False with errno set on an error.
bool truncate_file(int fd, std::uint64_t size);
bool sync_file(int fd);

// Whether this process may write the file, as the system decides (root may write any file). False
// with errno set when not.
bool may_write(const std::string& path);

// Gives the file that fd writes the owner, group and permissions of `existing`, or, when there is
// none, the permissions a new file gets (0666 less the umask). False with errno set (EPERM: only
// root may give a file to another user). Windows files have no such owner or bits: nothing to do.
bool copy_attributes(int fd, const FileStatus* existing);

// Puts `from` in place of `to` in one step: a reader sees the old file or the new one, whole. Both
// are in one directory; a symbolic link at `to` is replaced, not followed. False with errno set.
bool replace_path(const std::string& from, const std::string& to);
// Removes a file (unlink(): safe in a signal handler). False with errno set on failure.
bool remove_path(const std::string& path);
bool remove_path(const char* path);

// The signals that stop a run from outside: SIGINT, SIGTERM and SIGHUP (Windows: SIGINT, SIGTERM and
// SIGBREAK). on_stop_signals installs handler for each of them still at its default action (one the
// user ignores, as nohup does, stays ignored), once: the handler runs with the others held, and the
// signal's default action is back when it runs, so that end_by_signal() from it ends the process
// as the signal would have.
void on_stop_signals(void (*handler)(int));
void end_by_signal(int signal);

// Holds the stop signals back from this thread while it lives (Windows delivers them on a thread of
// their own: nothing to hold there).
class StopSignalsHeld {
public:
    StopSignalsHeld();
    ~StopSignalsHeld();
    StopSignalsHeld(const StopSignalsHeld&) = delete;
    StopSignalsHeld& operator=(const StopSignalsHeld&) = delete;

private:
    unsigned char saved_[128];  // the thread's signal mask before (a sigset_t's bytes)
};

}  // namespace shootout::platform
