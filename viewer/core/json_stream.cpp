// json_stream.cpp — see json_stream.hpp.
#include "viewer/core/json_stream.hpp"

#include <charconv>

namespace skein {
namespace {

// The length of the valid UTF-8 sequence starting at s[i], or 0 when the
// bytes there are not one (overlong forms, surrogates and values past
// U+10FFFF included).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the range of the second byte
  if (b0 >= 0xc2 && b0 <= 0xdf) n = 2;
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    if (b0 == 0xe0) lo = 0xa0;
    if (b0 == 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    if (b0 == 0xf0) lo = 0x90;
    if (b0 == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  return n;
}

}  // namespace

void append_json_string_contents(std::string& out, std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::size_t i = 0;
  while (i < bytes.size()) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
      out += static_cast<char>(c);
      ++i;
    } else if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 15];
      ++i;
    } else if (const std::size_t n = utf8_sequence_length(bytes, i); n > 0) {
      out.append(bytes.substr(i, n));
      i += n;
    } else {
      out += "\xef\xbf\xbd";  // U+FFFD for one byte that is not UTF-8
      ++i;
    }
  }
}

JsonStream::JsonStream(std::unique_ptr<ByteSink> sink) : sink_(std::move(sink)) {
  buffer_.reserve(kChunk + 4096);
}

void JsonStream::string(std::string_view bytes) {
  buffer_ += '"';
  append_json_string_contents(buffer_, bytes);
  buffer_ += '"';
  maybe_flush();
}

void JsonStream::integer(std::int64_t value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  buffer_.append(digits, end);
  maybe_flush();
}

void JsonStream::microseconds(std::int64_t ns) {
  // Split in unsigned arithmetic so that INT64_MIN has a magnitude too.
  const bool negative = ns < 0;
  const std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  const std::uint64_t whole = magnitude / 1000;
  const auto fraction = static_cast<unsigned>(magnitude % 1000);
  char digits[32];
  char* p = digits;
  if (negative) *p++ = '-';
  p = std::to_chars(p, digits + sizeof digits, whole).ptr;
  if (fraction != 0) {
    *p++ = '.';
    *p++ = static_cast<char>('0' + fraction / 100);
    *p++ = static_cast<char>('0' + fraction / 10 % 10);
    *p++ = static_cast<char>('0' + fraction % 10);
  }
  buffer_.append(digits, p);
  maybe_flush();
}

void JsonStream::flush() {
  if (!buffer_.empty() && status_.ok() && sink_ != nullptr) status_ = sink_->write(buffer_);
  buffer_.clear();
}

Status JsonStream::finish() {
  flush();
  if (sink_ == nullptr) return status_;
  Status closed = sink_->close();
  sink_.reset();
  if (status_.ok() && !closed.ok()) status_ = closed;
  return status_;
}

}  // namespace skein
