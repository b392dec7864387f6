#include "report/files.hpp"
#include "report/reporters.hpp"

namespace shootout {

JsonReporter::JsonReporter(std::string path) : JsonReporter(OutputFile("--json", std::move(path), OutputWrite::replace)) {}

JsonReporter::JsonReporter(OutputFile output) : output_(std::move(output)), lock_(output_) {}

void JsonReporter::report(const Measurement& m) {
    measurements_.push_back(m);
    output_.write({json_document(measurements_)});
}

}  // namespace shootout
