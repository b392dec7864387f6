// The column table (reporters.hpp: csv_schema()) as JSON, for the programs that write or read rows
// outside the harness. accumulate_bench --columns prints columns_document(); report/columns.json is
// its committed copy, which plot/ reads and a test keeps in step; --write-input's manifest carries
// columns_json() to the framework runner.
#pragma once

#include <string>
#include <vector>

namespace shootout {

// A header an earlier harness wrote: today's columns up to and including `last` (columns are only
// ever appended). Readers of older files name them: a file without the newest one's columns
// predates what the tools read, and the columns after it may be missing from a file.
struct CsvLayout {
    const char* name;
    const char* last;
};
std::vector<CsvLayout> csv_layouts();

// The columns, in order, one JSON object each: name, kind ("text", "whole", "real"), pattern (the
// printf pattern of a real column's CSV text; null otherwise) and may_be_empty.
std::string columns_json();

// {"columns": columns_json(), "layouts": csv_layouts()}, with what wrote it and where the columns
// are documented: the same text from every build of one column table.
std::string columns_document();

}  // namespace shootout
