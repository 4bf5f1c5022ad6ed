#pragma once
// Bad input (a malformed spec, shape file, flag or kernel) is reported with the file it came from
// and the problem; the CLI maps it to exit code 2.
#include <stdexcept>
#include <string>

namespace hone {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// An InputError whose message starts with the file that held the bad input.
inline InputError input_error(const std::string& file, const std::string& problem) {
  return InputError(file + ": " + problem);
}

}  // namespace hone
