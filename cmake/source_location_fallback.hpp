// source_location_fallback.hpp — std::source_location for clang 14 over
// libstdc++ 12, whose <source_location> is empty without clang 15's
// __builtin_source_location. Force-included (-include) by CMakeLists.txt
// for that compiler only, so the fuzz build (clang, for libFuzzer) compiles
// the runtime and everything above it. Invariant: where the library has its
// own source_location (__cpp_lib_source_location), this header adds
// nothing; otherwise current() names the call site as the standard one
// does, through clang's __builtin_FILE, __builtin_LINE, __builtin_COLUMN
// and __builtin_FUNCTION default arguments. Being four words, not one
// pointer, it is not a site-cache key (runtime/trace_record.hpp).
#pragma once

#if defined(__cplusplus) && __cplusplus > 201703L
#include <source_location>

#if !defined(__cpp_lib_source_location)
namespace std {
struct source_location {
  static consteval source_location current(const char* file = __builtin_FILE(),
                                           const char* function = __builtin_FUNCTION(),
                                           unsigned line = __builtin_LINE(),
                                           unsigned column = __builtin_COLUMN()) noexcept {
    source_location here;
    here.file_ = file;
    here.function_ = function;
    here.line_ = line;
    here.column_ = column;
    return here;
  }
  constexpr source_location() noexcept = default;
  constexpr unsigned line() const noexcept { return line_; }
  constexpr unsigned column() const noexcept { return column_; }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  unsigned line_ = 0;
  unsigned column_ = 0;
};
}  // namespace std
#endif
#endif
