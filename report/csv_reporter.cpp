#include <cerrno>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "report/files.hpp"
#include "report/reporters.hpp"

namespace shootout {

namespace {

// Whether a file of this size starts with today's header line (or is that line without its newline).
// Rows under another header would sit in the wrong columns.
bool starts_with_header(int fd, std::uint64_t size) {
    const std::string header = csv_header() + '\n';
    std::string start(std::min<std::uint64_t>(size, header.size()), '\0');
    if (read_at(fd, start, 0) != static_cast<std::int64_t>(start.size())) return false;
    return start == header || (size == header.size() - 1 && start + '\n' == header);
}

std::string other_header(const std::string& path) {
    return "--csv: '" + path + "' has a different header from the one this version writes, so new rows would "
           "sit under the wrong columns; give --csv another path (a new file gets today's header)";
}

}  // namespace

CsvReporter::CsvReporter(std::string path) : CsvReporter(OutputFile("--csv", std::move(path), OutputWrite::append)) {}

CsvReporter::CsvReporter(OutputFile output) : output_(std::move(output)) {
    const FileDescriptor file(platform::open_file(output_.target(), platform::OpenFor::reading));
    if (file.get() < 0 && errno == ENOENT) return;  // a new file: the first report() creates it
    platform::FileStatus status;
    if (file.get() < 0 || !platform::file_status(file.get(), status))
        throw UsageError("--csv: cannot read the header of '" + output_.path() + "': " + std::strerror(errno));
    if (status.size > 0 && !starts_with_header(file.get(), status.size))
        throw UsageError(other_header(output_.path()));
}

void CsvReporter::report(const Measurement& m) {
    auto fail = [&](const std::string& what) {
        const int error = errno;
        throw std::runtime_error("--csv: " + what + " '" + output_.path() + "' failed: " + std::strerror(error));
    };
    // Opened for each row, so that a file replaced or removed mid-sweep is written under its name
    // again. Another run may be appending to the same file: the lock is held from looking at the
    // file to the end of the row, and released when the descriptor closes.
    FileDescriptor file = output_.open_locked(std::cerr);
    platform::FileStatus status;
    if (!platform::file_status(file.get(), status)) fail("reading");  // the size another run left
    const std::uint64_t size = status.size;

    std::string text;
    if (size == 0) {
        text += csv_header() + '\n';
    } else {
        if (!starts_with_header(file.get(), size)) throw std::runtime_error(other_header(output_.path()));
        char last = '\n';
        if (read_at(file.get(), {&last, 1}, size - 1) != 1) fail("reading");
        if (last != '\n') text += '\n';  // a file cut short, or saved by an editor without a final newline
    }
    text += csv_row(m) + '\n';
    if (!write_all(file.get(), text)) {
        const int error = errno;
        if (platform::truncate_file(file.get(), size)) errno = error;  // no half row left behind
        fail("writing");
    }
    if (!file.close()) fail("writing");
}

}  // namespace shootout
