#include "bench/files.hpp"
#include "bench/reporters.hpp"

namespace shootout {

JsonReporter::JsonReporter(std::string path) : path_(std::move(path)) {
    check_output_path("--json", path_, OutputWrite::replace);
}

void JsonReporter::report(const Measurement& m) {
    measurements_.push_back(m);
    replace_file("--json", path_, json_document(measurements_));
}

}  // namespace shootout
