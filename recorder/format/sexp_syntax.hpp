// sexp_syntax.hpp — the lexical rules of the trace format shared by the
// reader and the writer: which bytes make a symbol, how strings are escaped,
// and what counts as valid UTF-8.
//
// The writer's escaping is the inverse of the reader's unescaping for every
// byte string: bytes that are not valid UTF-8, control bytes, DEL and the
// two bytes of each C1 control (U+0080-U+009F) are written as \xHH, so any
// string round-trips exactly and every written line is valid UTF-8 with no
// control character a terminal would act on.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace skein::sexp {

namespace detail {
constexpr std::array<bool, 256> make_symbol_table() {
  std::array<bool, 256> t{};
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = true;
  for (char c : std::string_view("_.-+*/<>=!?:%&~^$@")) t[static_cast<unsigned char>(c)] = true;
  return t;
}
inline constexpr std::array<bool, 256> kSymbolTable = make_symbol_table();
}  // namespace detail

// Symbol characters: ASCII letters, digits and _ . - + * / < > = ! ? : % & ~ ^ $ @
[[nodiscard]] inline bool is_symbol_char(char c) {
  return detail::kSymbolTable[static_cast<unsigned char>(c)];
}

// Bytes that end an atom: whitespace, parentheses, '"' and ';'.
[[nodiscard]] inline bool is_delimiter(char c) {
  return c == ' ' || c == '\t' || c == '(' || c == ')' || c == '"' || c == ';' || c == '\r' ||
         c == '\n';
}

// Length of the valid UTF-8 sequence starting at s[0], or 0 when s does not
// start with one (overlong forms, surrogates and values past U+10FFFF are
// invalid).
[[nodiscard]] std::size_t utf8_sequence_length(std::string_view s);

// Appends `"text"` to out with the format's escapes.
void append_quoted(std::string& out, std::string_view text);
// An upper bound on the bytes append_quoted writes for `n` input bytes.
[[nodiscard]] constexpr std::size_t max_quoted_size(std::size_t n) { return 4 * n + 2; }
// Writes the quoted form into `out`, which has room for max_quoted_size(text.size())
// bytes, and returns one past the last byte written.
char* write_quoted(char* out, std::string_view text);

}  // namespace skein::sexp
