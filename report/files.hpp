// Every file the harness creates or replaces (--csv, --json, --write-input's .npy files and
// inputs.json, their temporaries and lock files) goes through OutputFile, by the rules
// results/README.md states once ("Writing the files"), over the file calls of platform/files.hpp.
// plot/output_files.py is the same routine for the Python tools.
#pragma once

#include <filesystem>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "platform/files.hpp"

namespace shootout {

// What a path is when it is not a regular file, for messages: "is a FIFO, not a regular file".
std::string describe_non_regular(platform::FileKind kind);

// The descriptor and read/write calls of the platform layer, under the names the harness uses.
using platform::FileDescriptor;
using platform::read_at;
using platform::write_all;

// A file that goes away with this object, or with the process when a stop signal (SIGINT, SIGTERM,
// SIGHUP) ends it first, unless it was renamed or kept: a temporary, a lock file, a file being
// written. The signal handler reads fixed slots, without allocating or locking; a slot is held
// busy, with this thread's stop signals held back, while the file is created, renamed or removed,
// and a handler on another thread waits for that step, so that no signal leaves a file unnamed to it.
class TemporaryFile {
public:
    TemporaryFile() = default;
    ~TemporaryFile() { remove(); }
    TemporaryFile(const TemporaryFile&) = delete;
    TemporaryFile& operator=(const TemporaryFile&) = delete;

    // Runs make, which creates or opens the file, stores its path and returns its descriptor (-1
    // with errno set on failure); returns make's result. The handler is installed on first use.
    int create(const std::function<int(std::string& path)>& make);
    // Renames the file over `to` (no longer removed), or removes it when that fails; false with errno set.
    bool rename_to(const std::string& to);
    void keep();    // leaves the file where it is, for good
    void remove();  // removes it now
    const std::string& path() const { return path_; }

private:
    bool finish(const std::function<bool()>& step);
    int slot_ = -1;
    std::string path_;
};

// How an output is written.
enum class OutputWrite {
    append,   // rows added in place (--csv); a new file is created
    replace,  // a whole new file renamed over the old one (--json)
    create,   // a name the run picks (--write-input's files): a new file, any entry in its place refused
};

// One file a run writes. The constructor resolves the path once and checks, before anything is
// measured, everything a write will do; it throws UsageError, starting with option and naming the
// path, for:
//   - a symbolic link that is dangling, that an append or replace finds in a sticky world-writable
//     directory owned by neither this user nor the directory's owner (the kernel's
//     protected_symlinks rule), or that stands where a new file goes (create): a link is followed
//     only where the user named it, never for a name the run picks;
//   - anything but a regular file or a new name in an existing directory; an existing entry (create);
//   - a file this user may not write, or whose mode grants writing to no one (a 0444 file, root too);
//     a file in a sticky directory that only its owner may replace;
//   - whatever the write itself would fail at: the file is opened as it will be written, and the
//     temporary (or the new file) is created in the target directory, given the replaced file's
//     owner and mode, and removed again (a name too long for the temporary, an immutable file or
//     directory, a read-only file system, another user's file root may not give back).
class OutputFile {
public:
    OutputFile(std::string_view option, std::string path, OutputWrite how);

    const std::string& option() const { return option_; }
    const std::string& path() const { return path_; }           // as given, for messages
    const std::string& target() const { return target_; }       // the file it names: absolute, links followed
    std::string hidden_beside(std::string_view suffix) const;   // ".NAME<suffix>" beside target()

    // Whether two paths name one file, new files included: the same directory and name once links
    // are followed, or one existing file under two names (hard links).
    bool same_file(const OutputFile& other) const;
    bool same_file(const std::string& other_path) const;

    // replace, create: writes parts, one after another, as the whole file (replace: a temporary
    // beside it, flushed, then renamed over it; create: the new file, removed again if writing it
    // fails). Throws std::runtime_error naming option and path when a step fails.
    void write(std::initializer_list<std::string_view> parts) const;

    // append: the file opened to write at its end (created when it is not there, never through a
    // symbolic link), under an exclusive lock on it, held until the descriptor closes. When another
    // process holds the lock, err is told so (with its pid where the system says) before the wait.
    // Throws std::runtime_error naming option and path.
    FileDescriptor open_locked(std::ostream& err) const;

private:
    // Which file a path names, new ones included.
    struct Place {
        std::filesystem::path target;
        platform::FileIdentity directory;
        std::optional<platform::FileIdentity> file;
        bool same(const Place& other) const;
    };
    static Place place_of(const std::filesystem::path& target);
    std::filesystem::path resolve() const;
    void probe() const;
    // Creates the file a write fills (replace: the temporary beside it; else the file itself).
    int create_written(std::string& name) const;

    std::string option_, path_, target_;
    OutputWrite how_;
    Place place_;
};

// One writer per output: an exclusive lock (flock(), LockFileEx()) on a hidden file beside the
// output (".NAME.lock", beside the file a symbolic link names), held while this object lives and
// removed with it, or by a stop signal's handler. The system drops the lock when its process ends,
// killed or not, so a lock file a killed run left behind blocks no later run. Throws UsageError,
// starting with the output's option and naming its path, when another process holds it.
class OutputLock {
public:
    explicit OutputLock(const OutputFile& output);
    OutputLock(const OutputLock&) = delete;
    OutputLock& operator=(const OutputLock&) = delete;

    const std::string& lock_path() const { return lock_.path(); }

private:
    FileDescriptor descriptor_{-1};  // closed after the file is removed: see the constructor
    TemporaryFile lock_;
};

}  // namespace shootout
