// A backend's first line, compiled the way shootout_backends' sources are (tests/CMakeLists.txt,
// layering.*): SHOOTOUT_LAYERING_HEADER names a contract header, which compiles, or a harness header,
// which must not be found.
#include SHOOTOUT_LAYERING_HEADER
