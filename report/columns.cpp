#include "report/columns.hpp"

#include "report/reporters.hpp"

namespace shootout {

std::vector<CsvLayout> csv_layouts() {
    return {{"harness v1", "peak_gbps"}, {"harness v2", "role"}, {"the gpus and ranks columns", "ranks"}};
}

std::string columns_json() {
    std::string columns;
    for (const ColumnSchema& column : csv_schema())
        columns += std::string(columns.empty() ? "" : ",\n    ") + "{\"name\": " + quote_json(column.name) + ", \"kind\": " +
                   quote_json(std::string(to_string(column.kind))) +
                   ", \"pattern\": " + (column.pattern ? quote_json(column.pattern) : "null") +
                   ", \"may_be_empty\": " + (column.may_be_empty ? "true" : "false") + "}";
    return "[\n    " + columns + "\n  ]";
}

std::string columns_document() {
    std::string layouts;
    for (const CsvLayout& layout : csv_layouts())
        layouts += std::string(layouts.empty() ? "" : ",\n    ") + "{\"name\": " + quote_json(layout.name) +
                   ", \"last\": " + quote_json(layout.last) + "}";
    return "{\n  \"written_by\": \"accumulate_bench --columns\",\n  \"columns_documented_in\": \"results/README.md\",\n"
           "  \"columns\": " + columns_json() + ",\n  \"layouts\": [\n    " + layouts + "\n  ]\n}\n";
}

}  // namespace shootout
