#include "report/files.hpp"
#include "report/reporters.hpp"

namespace shootout {

namespace {
// The path checked before the lock file is made beside it.
std::string writable_json_path(std::string path) {
    check_output_path("--json", path, OutputWrite::replace);
    return path;
}
}  // namespace

JsonReporter::JsonReporter(std::string path) : path_(writable_json_path(std::move(path))), lock_("--json", path_) {}

void JsonReporter::report(const Measurement& m) {
    measurements_.push_back(m);
    replace_file("--json", path_, json_document(measurements_));
}

}  // namespace shootout
