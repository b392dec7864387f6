#include "report/files.hpp"

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <ostream>
#include <random>
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
        case platform::FileKind::symbolic_link: return "is a symbolic link";
        case platform::FileKind::regular:
        case platform::FileKind::other: break;
    }
    return "is not a regular file";
}

namespace {

// The files a stop signal's handler removes, in slots it reads without allocating or locking.
// free -> busy (the owning thread, its stop signals held, creates the file) -> armed -> busy (it
// renames or removes the file) -> free; a handler takes an armed slot to removing for good.
enum SlotState : int { slot_free, slot_busy, slot_armed, slot_removing };
struct Slot {
    std::atomic<int> state{slot_free};
    char path[4096] = {};
};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler reads the slots");
constexpr std::size_t kSlots = 64;  // a run holds a few at once: its lock, a temporary, a probe
std::array<Slot, kSlots> slots;
std::atomic<bool> stopping{false};

// A thread that takes a slot after the handler passed it sees `stopping` (sequentially consistent
// order) and creates nothing; a busy slot's owner runs with its stop signals held, so it is never
// the thread this handler interrupted, and finishes its step.
void remove_files_and_stop(int signal) {
    const int interrupted_errno = errno;  // the interrupted code's, should a chained handler return to it
    stopping.store(true);
    for (Slot& slot : slots) {
        int state = slot.state.load();
        while (state == slot_busy) state = slot.state.load();
        if (state == slot_armed && slot.state.compare_exchange_strong(state, slot_removing)) platform::remove_path(slot.path);
    }
    platform::end_by_signal(signal);
    errno = interrupted_errno;
}

std::once_flag handler_installed;

}  // namespace

int TemporaryFile::create(const std::function<int(std::string& path)>& make) {
    remove();
    const platform::StopSignalsHeld held;
    std::call_once(handler_installed, [] { platform::on_stop_signals(remove_files_and_stop); });
    for (std::size_t i = 0; i < kSlots && slot_ < 0; ++i) {
        int expected = slot_free;
        if (slots[i].state.compare_exchange_strong(expected, slot_busy)) slot_ = static_cast<int>(i);
    }
    if (slot_ < 0) {
        errno = EMFILE;
        return -1;
    }
    Slot& slot = slots[static_cast<std::size_t>(slot_)];
    auto give_back = [&](int error) {
        slot.state.store(slot_free);
        slot_ = -1;
        errno = error;
        return -1;
    };
    if (stopping.load()) return give_back(EINTR);
    std::string path;
    const int fd = make(path);
    if (fd < 0) return give_back(errno);
    if (path.size() >= sizeof slot.path) {  // no room for the handler to know it: not kept
        FileDescriptor(fd).close();
        platform::remove_path(path);
        return give_back(ENAMETOOLONG);
    }
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    path_ = std::move(path);
    slot.state.store(slot_armed);
    return fd;
}

bool TemporaryFile::finish(const std::function<bool()>& step) {
    if (slot_ < 0) return true;
    const platform::StopSignalsHeld held;
    Slot& slot = slots[static_cast<std::size_t>(std::exchange(slot_, -1))];
    int armed = slot_armed;
    if (!slot.state.compare_exchange_strong(armed, slot_busy)) {
        errno = EINTR;  // a stop signal's handler is removing it, and the process ends
        return false;
    }
    const bool done = step();
    const int error = errno;
    slot.state.store(slot_free);
    errno = error;
    return done;
}

bool TemporaryFile::rename_to(const std::string& to) {
    return finish([&] {
        if (platform::replace_path(path_, to)) return true;
        const int error = errno;
        platform::remove_path(path_);
        errno = error;
        return false;
    });
}

void TemporaryFile::keep() { finish([] { return true; }); }

void TemporaryFile::remove() {
    finish([&] { return platform::remove_path(path_); });
}

namespace {

std::string error_text(int error) { return std::strerror(error); }

// The six characters mkstemp() puts in XXXXXX, drawn here so that the name is known, to the signal
// handler too, before the file exists.
std::string random_suffix() {
    static constexpr char kLetters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static std::mutex mutex;
    static std::mt19937_64 engine{std::random_device{}()};
    const std::lock_guard lock(mutex);
    std::string suffix(6, '\0');
    for (char& c : suffix) c = kLetters[engine() % (sizeof kLetters - 1)];
    return suffix;
}

// Creates prefix + six random characters, as mkstemp() does, by create_new_file(): never through a
// link, never an existing name.
int create_unique_file(const std::string& prefix, std::string& name) {
    for (int attempt = 0; attempt < 100; ++attempt) {
        name = prefix + random_suffix();
        const int fd = platform::create_new_file(name);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    return -1;
}

bool writable_by_someone(const platform::FileStatus& status) { return (status.mode & 0222) != 0; }

// The sticky bit lets only a file's owner, the directory's owner or root rename or remove the file.
bool sticky_keeps_out(const platform::FileStatus& directory, const platform::FileStatus& file) {
    const std::uint32_t me = platform::effective_user();
    return (directory.mode & 01000) && me != 0 && file.owner != me && directory.owner != me;
}

// The kernel's protected_symlinks rule: in a sticky world-writable directory, a link is followed
// only when this user or the directory's owner owns it (anyone could have put it there).
bool planted_link(const platform::FileStatus& directory, const platform::FileStatus& link) {
    const std::uint32_t me = platform::effective_user();
    return (directory.mode & 01002) == 01002 && link.owner != me && link.owner != directory.owner;
}

std::filesystem::path directory_of(const std::filesystem::path& path) {
    return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

}  // namespace

OutputFile::Place OutputFile::place_of(const std::filesystem::path& target) {
    Place place{.target = target, .directory = {}, .file = std::nullopt};
    platform::FileStatus status;
    if (platform::file_status(directory_of(target).string(), status)) place.directory = status.identity;
    if (platform::file_status(target.string(), status)) place.file = status.identity;
    return place;
}

bool OutputFile::Place::same(const Place& other) const {
    const platform::FileIdentity unknown{};
    if (file && other.file && *file != unknown && *file == *other.file) return true;
    return directory != unknown && directory == other.directory && target.filename() == other.target.filename();
}

bool OutputFile::same_file(const OutputFile& other) const { return place_.same(other.place_); }

bool OutputFile::same_file(const std::string& other_path) const {
    std::error_code error;
    std::filesystem::path other = std::filesystem::weakly_canonical(other_path, error);
    if (error) return false;
    if (other.is_relative()) other = std::filesystem::absolute(other, error);
    return !error && place_.same(place_of(other));
}

std::string OutputFile::hidden_beside(std::string_view suffix) const {
    const std::filesystem::path target(target_);
    return (directory_of(target) / std::string(".").append(target.filename().string()).append(suffix)).string();
}

// The file path names: a link followed where the user named one (append, replace), to a file that
// exists; a new name's directory resolved.
std::filesystem::path OutputFile::resolve() const {
    auto refuse = [&](const std::string& why) { return UsageError(option_ + ": " + why); };
    const std::string cannot_write = "cannot write '" + path_ + "': ";
    const std::filesystem::path given(path_);
    std::error_code error;
    platform::FileStatus entry;
    if (platform::link_status(path_, entry)) {
        if (how_ == OutputWrite::create)
            throw refuse("'" + path_ + "' already exists" +
                         (entry.kind == platform::FileKind::regular ? "" : " (it " + describe_non_regular(entry.kind) + ")") +
                         "; it is not replaced: give a directory that does not hold it");
        platform::FileStatus named, directory;
        if (entry.kind == platform::FileKind::symbolic_link && !platform::file_status(path_, named)) {
            const int failure = errno;
            if (failure != ENOENT) throw refuse(cannot_write + "following its symbolic link failed: " + error_text(failure));
            throw refuse("'" + path_ + "' is a symbolic link to '" + std::filesystem::read_symlink(given, error).string() +
                         "', which does not exist; a dangling link is not a name to create: give the file's own path");
        }
        if (entry.kind == platform::FileKind::symbolic_link && platform::file_status(directory_of(given).string(), directory) &&
            planted_link(directory, entry))
            throw refuse("'" + path_ + "' is a symbolic link in the sticky, world-writable directory '" + directory_of(given).string() +
                         "', owned by neither you nor the directory's owner; it is not followed: give the file's own path");
        std::filesystem::path target = std::filesystem::canonical(given, error);
        if (error) throw refuse(cannot_write + error.message());
        return target;
    }
    if (errno != ENOENT) throw refuse(cannot_write + error_text(errno));
    const std::string name = given.filename().string();
    if (name.empty() || name == "." || name == "..")
        throw refuse("'" + path_ + "' names a directory; give a file's path (leave " + option_ + " out to write none)");
    const std::string directory = directory_of(given).string();
    platform::FileStatus status;
    if (!platform::file_status(directory, status)) {
        const int failure = errno;
        throw refuse(cannot_write + "its directory '" + directory + "' " +
                     (failure == ENOENT ? std::string("does not exist") : error_text(failure)));
    }
    if (status.kind != platform::FileKind::directory) throw refuse(cannot_write + "'" + directory + "' is not a directory");
    std::filesystem::path target = std::filesystem::canonical(directory, error) / name;
    if (error) throw refuse(cannot_write + error.message());
    return target;
}

OutputFile::OutputFile(std::string_view option, std::string path, OutputWrite how)
    : option_(option), path_(std::move(path)), how_(how) {
    const std::filesystem::path target = resolve();
    target_ = target.string();
    place_ = place_of(target);
    auto refuse = [&](const std::string& why) { return UsageError(option_ + ": cannot write '" + path_ + "': " + why); };
    platform::FileStatus existing, directory;
    if (platform::file_status(target_, existing)) {
        if (existing.kind != platform::FileKind::regular)
            throw UsageError(option_ + ": '" + path_ + "' " + describe_non_regular(existing.kind) + "; give a regular file's path (leave " +
                             option_ + " out to write none)");
        if (!writable_by_someone(existing)) {
            char mode[16];
            std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(existing.mode));
            throw refuse("it is read-only (mode " + std::string(mode) + "), to root too: make it writable or give another path");
        }
        if (!platform::may_write(target_)) throw refuse(error_text(errno));
        if (how_ == OutputWrite::replace && platform::file_status(directory_of(target).string(), directory) &&
            sticky_keeps_out(directory, existing))
            throw refuse("only its owner may replace it in the sticky directory '" + directory_of(target).string() + "'");
    }
    probe();
}

int OutputFile::create_written(std::string& name) const {
    if (how_ == OutputWrite::replace) return create_unique_file(hidden_beside("."), name);
    name = target_;
    return platform::create_new_file(name);
}

// Does now, and undoes, each step of the write that can fail for a reason the path already has.
void OutputFile::probe() const {
    auto refuse = [&](const std::string& step) {
        return UsageError(option_ + ": cannot write '" + path_ + "': " + step + " failed: " + error_text(errno));
    };
    platform::FileStatus existing;
    const bool exists = platform::link_status(target_, existing);
    if (exists && how_ != OutputWrite::create) {
        const FileDescriptor file(platform::open_file(
            target_, how_ == OutputWrite::append ? platform::OpenFor::appending : platform::OpenFor::writing_in_place));
        if (file.get() < 0) throw refuse("opening it");
    }
    if (how_ == OutputWrite::append && exists) return;
    TemporaryFile trial;
    std::string made;
    const FileDescriptor file(trial.create([&](std::string& name) { return create_written(name); }));
    if (file.get() < 0) throw refuse(how_ == OutputWrite::replace ? "creating a temporary file beside it" : "creating it");
    if (how_ == OutputWrite::replace && !platform::copy_attributes(file.get(), exists ? &existing : nullptr))
        throw refuse("giving its temporary file the owner and mode it has");
}

void OutputFile::write(std::initializer_list<std::string_view> parts) const {
    auto fail = [&](const char* step, int error) {
        return std::runtime_error(option_ + ": " + step + " '" + path_ + "' failed: " + error_text(error));
    };
    TemporaryFile file;
    FileDescriptor descriptor(file.create([&](std::string& name) { return create_written(name); }));
    if (descriptor.get() < 0)
        throw fail(how_ == OutputWrite::replace ? "creating a temporary file beside" : "creating", errno);
    auto check = [&](bool done) {
        if (!done) throw fail("writing", errno);  // the file goes with `file`
    };
    if (how_ == OutputWrite::replace) {
        platform::FileStatus existing;
        const bool replaces = platform::link_status(target_, existing) && existing.kind == platform::FileKind::regular;
        check(platform::copy_attributes(descriptor.get(), replaces ? &existing : nullptr));
    }
    for (const std::string_view part : parts) check(write_all(descriptor.get(), part));
    if (how_ == OutputWrite::replace) check(platform::sync_file(descriptor.get()));  // on disk before the name points to it
    check(descriptor.close());
    if (how_ == OutputWrite::create) return file.keep();
    if (!file.rename_to(target_)) throw fail("replacing", errno);
}

FileDescriptor OutputFile::open_locked(std::ostream& err) const {
    auto fail = [&](const char* step, int error) {
        return std::runtime_error(option_ + ": " + step + " '" + path_ + "' failed: " + error_text(error));
    };
    for (;;) {
        FileDescriptor file(platform::open_file(target_, platform::OpenFor::appending));
        if (file.get() < 0 && errno == ENOENT) {  // new, or removed since: created, never through a link,
            const FileDescriptor created(platform::create_new_file(target_));  // then opened to append as
            if (created.get() >= 0 || errno == EEXIST) continue;               // any other run would
            throw fail("creating", errno);
        }
        if (file.get() < 0) throw fail("opening", errno);
        platform::FileStatus status;
        if (!platform::file_status(file.get(), status)) throw fail("reading", errno);
        if (status.kind != platform::FileKind::regular)
            throw std::runtime_error(option_ + ": '" + path_ + "' " + describe_non_regular(status.kind));
        switch (platform::try_lock_exclusive(file.get())) {
            case platform::TryLock::locked: return file;
            case platform::TryLock::failed: throw fail("locking", errno);
            case platform::TryLock::held: break;
        }
        const std::int64_t holder = platform::lock_holder(file.get());
        const std::string who = holder > 0 ? "another process (pid " + std::to_string(holder) + ")" : "another process";
        err << option_ << ": " << who << " holds the lock on '" << path_ << "'; waiting for it to finish writing" << std::endl;
        if (!platform::lock_exclusive(file.get())) throw fail("locking", errno);
        return file;
    }
}

OutputLock::OutputLock(const OutputFile& output) {
    const std::string path = output.hidden_beside(".lock");
    auto refuse = [&](const std::string& why) { return UsageError(output.option() + ": " + why); };
    const std::string cannot_lock = "cannot lock '" + output.path() + "': ";
    enum class Outcome { locked, open_failed, not_regular, held, lock_failed } outcome = Outcome::locked;
    platform::FileKind kind = platform::FileKind::regular;
    // A run that ends removes its lock file while holding it: a lock taken on a name that no longer
    // leads to the locked file is dropped and taken again on the new file.
    auto failed = [&](Outcome why) {
        outcome = why;
        return -1;
    };
    descriptor_ = FileDescriptor(lock_.create([&](std::string& name) {
        name = path;
        for (;;) {
            FileDescriptor file(platform::open_file(path, platform::OpenFor::locking));
            if (file.get() < 0) return failed(Outcome::open_failed);
            platform::FileStatus held;
            if (!platform::file_status(file.get(), held) || held.kind != platform::FileKind::regular) {
                kind = held.kind;
                return failed(Outcome::not_regular);
            }
            switch (platform::try_lock_exclusive(file.get())) {
                case platform::TryLock::held: return failed(Outcome::held);
                case platform::TryLock::failed: return failed(Outcome::lock_failed);
                case platform::TryLock::locked: break;
            }
            if (platform::same_file(file.get(), path)) return file.release();
        }
    }));
    if (descriptor_.get() >= 0) return;
    const std::string why = error_text(errno);
    switch (outcome) {
        case Outcome::held:
            throw refuse("another accumulate_bench run is writing '" + output.path() + "' (it holds the lock '" + path +
                         "'); wait for it to end or give another path");
        case Outcome::not_regular:
            throw refuse(cannot_lock + "its lock file '" + path + "' " + describe_non_regular(kind) + "; remove it");
        case Outcome::lock_failed: throw refuse(cannot_lock + "locking '" + path + "' failed: " + why);
        case Outcome::open_failed:
        case Outcome::locked: break;
    }
    throw refuse(cannot_lock + "creating its lock file '" + path + "' failed: " + why);
}

}  // namespace shootout
