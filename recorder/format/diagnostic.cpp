// diagnostic.cpp — formatting of Diagnostics; see diagnostic.hpp.
#include "recorder/format/diagnostic.hpp"

namespace skein {

std::string Diagnostic::to_string() const {
  std::string out = file;
  if (line != 0) {
    out += ':';
    out += std::to_string(line);
    if (column != 0) {
      out += ':';
      out += std::to_string(column);
    }
  }
  out += ": ";
  if (severity == Severity::warning) out += "warning: ";
  out += message;
  return out;
}

Diagnostic file_error(std::string file, std::string message) {
  return Diagnostic{Severity::error, std::move(file), 0, 0, std::move(message)};
}

}  // namespace skein
