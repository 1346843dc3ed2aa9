// sexp_syntax.cpp — UTF-8 validation decodes the whole sequence and rejects
// overlong forms, surrogates and values past U+10FFFF. write_quoted copies
// printable ASCII and valid non-C1 sequences as they are, writes \" \\ \n
// \t \r, and every other byte as \xHH (a C1 control's two bytes as two
// escapes); no escape is longer than 4 bytes, hence max_quoted_size.
// append_quoted resizes to that bound, writes in place, then trims.
#include "recorder/format/sexp_syntax.hpp"

#include <array>
#include <cstdint>

namespace skein::sexp {
namespace {

constexpr char kHex[] = "0123456789abcdef";

}  // namespace

std::size_t utf8_sequence_length(std::string_view s) {
  if (s.empty()) return 0;
  const auto b0 = static_cast<unsigned char>(s[0]);
  if (b0 < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t min = 0;
  std::uint32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) { n = 2; min = 0x80; cp = b0 & 0x1F; }
  else if ((b0 & 0xF0) == 0xE0) { n = 3; min = 0x800; cp = b0 & 0x0F; }
  else if ((b0 & 0xF8) == 0xF0) { n = 4; min = 0x10000; cp = b0 & 0x07; }
  else return 0;
  if (s.size() < n) return 0;
  for (std::size_t i = 1; i < n; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

char* write_quoted(char* out, std::string_view text) {
  *out++ = '"';
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7F && c != '"' && c != '\\') {
      *out++ = c;
      ++i;
      continue;
    }
    switch (c) {
      case '"': *out++ = '\\'; *out++ = '"'; ++i; continue;
      case '\\': *out++ = '\\'; *out++ = '\\'; ++i; continue;
      case '\n': *out++ = '\\'; *out++ = 'n'; ++i; continue;
      case '\t': *out++ = '\\'; *out++ = 't'; ++i; continue;
      case '\r': *out++ = '\\'; *out++ = 'r'; ++i; continue;
      default: break;
    }
    if (u >= 0x80) {
      const std::size_t n = utf8_sequence_length(text.substr(i));
      // C1 controls (U+0080-U+009F: 0xc2 0x80-0x9f) go out as two escapes.
      const bool c1 = n == 2 && u == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0;
      if (n != 0 && !c1) {
        for (std::size_t k = 0; k < n; ++k) *out++ = text[i + k];
        i += n;
        continue;
      }
    }
    *out++ = '\\';
    *out++ = 'x';
    *out++ = kHex[u >> 4];
    *out++ = kHex[u & 0xF];
    ++i;
  }
  *out++ = '"';
  return out;
}

void append_quoted(std::string& out, std::string_view text) {
  const std::size_t old = out.size();
  out.resize(old + max_quoted_size(text.size()));
  char* end = write_quoted(out.data() + old, text);
  out.resize(static_cast<std::size_t>(end - out.data()));
}

}  // namespace skein::sexp
