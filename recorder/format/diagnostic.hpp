// diagnostic.hpp — where untrusted input went wrong, as a value that must be
// looked at.
//
// Every reader in recorder/ reports problems as Diagnostics naming the file,
// the 1-based line and the 1-based byte column of the offending token, in the
// form compilers use (`FILE:LINE:COL: message`), so editors can jump to it.
// A Diagnostic with line 0 is about the file as a whole (cannot open it,
// corrupt compression). Binary formats have no lines: their diagnostics have
// line 0 and a message that starts with `byte N: `, N the offset in the
// (decompressed) stream, so they print as `FILE: byte N: message`. Status
// and Result<T> carry one error; they are [[nodiscard]] so an error cannot
// be dropped by accident.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace skein {

enum class Severity : std::uint8_t { error, warning };

struct Diagnostic {
  Severity severity = Severity::error;
  std::string file;
  std::uint64_t line = 0;    // 1-based; 0: the whole file
  std::uint32_t column = 0;  // 1-based byte column; 0: the whole line
  std::string message;

  // "FILE:LINE:COL: message", with "warning: " before the message of a
  // warning. Parts that are 0 are left out.
  [[nodiscard]] std::string to_string() const;
};

[[nodiscard]] Diagnostic file_error(std::string file, std::string message);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Diagnostic error) : error_(std::move(error)), failed_(true) {}  // NOLINT: implicit by design

  [[nodiscard]] bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] const Diagnostic& error() const { return error_; }

 private:
  Diagnostic error_;
  bool failed_ = false;
};

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}              // NOLINT: implicit by design
  Result(Diagnostic error) : state_(std::move(error)) {}     // NOLINT: implicit by design

  [[nodiscard]] bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] T& value() & { return std::get<0>(state_); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(state_)); }
  [[nodiscard]] const T& value() const& { return std::get<0>(state_); }
  [[nodiscard]] const Diagnostic& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Diagnostic> state_;
};

}  // namespace skein
