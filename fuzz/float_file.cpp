// libFuzzer target: read_float_file() on any file contents, written to a file named *.npy and to one
// named *.f32 (a .npy file is told by its magic whatever its name; a .npy name without the magic is
// refused), read whole and as one rank's shard of three. A file is refused with InputError (or
// InputTooLarge) or read; anything else (a crash, another exception, a sanitizer report) is a
// finding. The values read are not checked: which files hold which values is inputs_test's job.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <utility>

#include "bench/inputs.hpp"

namespace {

// A directory of this process's own, removed when it exits.
const std::string& work_directory() {
    static const std::string directory = [] {
        std::string name = "/tmp/shootout_fuzz_float_file.XXXXXX";
        if (::mkdtemp(name.data()) == nullptr) std::abort();
        return name;
    }();
    static const struct Remover {
        ~Remover() {
            for (const char* file : {"/input.npy", "/input.f32"}) ::unlink((directory + file).c_str());
            ::rmdir(directory.c_str());
        }
    } remover;
    return directory;
}

void read_as(const std::string& path, const std::uint8_t* data, std::size_t size) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    // Whole and as a shard; with no --dtype, and with each type asked for (a raw file of that type,
    // an .npy file that must agree).
    const std::optional<shootout::ElementType> types[] = {std::nullopt, shootout::ElementType::f32, shootout::ElementType::f64,
                                                          shootout::ElementType::f16, shootout::ElementType::bf16};
    for (const auto& [part, parts] : {std::pair{0, 1}, std::pair{1, 3}})
        for (const auto& type : types) {
            try {
                [[maybe_unused]] const auto values = shootout::read_float_file(path, type, part, parts);
            } catch (const shootout::InputError&) {
            } catch (const shootout::InputTooLarge&) {
            }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    read_as(work_directory() + "/input.npy", data, size);
    read_as(work_directory() + "/input.f32", data, size);
    return 0;
}
