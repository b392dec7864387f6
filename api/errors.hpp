// What goes wrong, by whose fault, and so with which exit status (docs/cli.md, "Exit status").
#pragma once

#include <stdexcept>

namespace shootout {

// A command line that cannot be followed; what() names the option and what is wrong with it. Exit 2.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An input file that cannot be summed as asked; what() names the file and what is wrong. Exit 2.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An input file's values do not fit in the memory left: the run skips its one input (exit status
// 1, as for a generated size that does not fit); the file itself is not at fault.
class InputTooLarge : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace shootout
