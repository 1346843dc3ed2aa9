// output_text_checks.hpp — what the tests of hostile trace text assert about
// an output, written apart from the code under test: a strict UTF-8
// decoder (Unicode's table of well-formed byte sequences) and a check that
// names the first byte or character a terminal could take as a command.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace skein::test {

// The length of the well-formed UTF-8 sequence at s[i], 0 when there is none
// (Unicode 15, table 3-7), and its code point in `cp`.
inline std::size_t well_formed_sequence(std::string_view s, std::size_t i, char32_t& cp) {
  const auto at = [&](std::size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0x100u; };
  const unsigned b0 = at(i);
  const auto cont = [](unsigned b, unsigned lo = 0x80, unsigned hi = 0xbf) { return b >= lo && b <= hi; };
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  if (b0 >= 0xc2 && b0 <= 0xdf && cont(at(i + 1))) {
    cp = (b0 & 0x1f) << 6 | (at(i + 1) & 0x3f);
    return 2;
  }
  unsigned lo = 0x80, hi = 0xbf;
  if (b0 == 0xe0) lo = 0xa0;
  if (b0 == 0xed) hi = 0x9f;
  if (b0 >= 0xe0 && b0 <= 0xef && cont(at(i + 1), lo, hi) && cont(at(i + 2))) {
    cp = (b0 & 0x0f) << 12 | (at(i + 1) & 0x3f) << 6 | (at(i + 2) & 0x3f);
    return 3;
  }
  lo = b0 == 0xf0 ? 0x90 : 0x80;
  hi = b0 == 0xf4 ? 0x8f : 0xbf;
  if (b0 >= 0xf0 && b0 <= 0xf4 && cont(at(i + 1), lo, hi) && cont(at(i + 2)) && cont(at(i + 3))) {
    cp = (b0 & 0x07) << 18 | (at(i + 1) & 0x3f) << 12 | (at(i + 2) & 0x3f) << 6 | (at(i + 3) & 0x3f);
    return 4;
  }
  return 0;
}

// The code points of `s`, or nullopt when it is not well-formed UTF-8.
inline std::optional<std::vector<char32_t>> decode_utf8(std::string_view s) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const std::size_t n = well_formed_sequence(s, i, cp);
    if (n == 0) return std::nullopt;
    out.push_back(cp);
    i += n;
  }
  return out;
}

// `s` with each byte that starts no well-formed sequence replaced by U+FFFD.
inline std::string replace_ill_formed_bytes(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const std::size_t n = well_formed_sequence(s, i, cp);
    if (n == 0) {
      out += "\xef\xbf\xbd";
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

// "" when `text` is well-formed UTF-8 holding no C0 control but those in
// `allowed`, no DEL and no C1 control; else what was found first, and where.
inline std::string raw_control_in(std::string_view text, std::string_view allowed = "") {
  char where[64];
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t n = well_formed_sequence(text, i, cp);
    if (n == 0) {
      std::snprintf(where, sizeof where, "byte 0x%02x at %zu is not UTF-8", static_cast<unsigned char>(text[i]), i);
      return where;
    }
    const bool c0 = cp < 0x20 && allowed.find(static_cast<char>(cp)) == std::string_view::npos;
    if (c0 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
      std::snprintf(where, sizeof where, "U+%04X at %zu", static_cast<unsigned>(cp), i);
      return where;
    }
    i += n;
  }
  return "";
}

}  // namespace skein::test
