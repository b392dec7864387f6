// Reading and writing files without hanging on a FIFO or losing what a user had: the rules for
// output paths, over the file calls of platform/files.hpp.
#pragma once

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

// One writer per output: an exclusive lock (flock(), LockFileEx()) on a hidden file beside path
// (".NAME.lock", beside the file a symbolic link names), held while this object lives and removed
// with it. The system drops the lock when its process ends, killed or not, so a lock file a killed
// run left behind blocks no later run. Throws UsageError, starting with option and naming path, when another process holds it.
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
