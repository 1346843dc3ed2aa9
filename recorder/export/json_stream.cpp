// json_stream.cpp — appends to one string buffer and hands it to the sink
// once it reaches kChunk; after the first write error the buffer is still
// cleared, so later output is dropped. microseconds() splits the magnitude
// in unsigned arithmetic (INT64_MIN included) and writes the fraction as
// exactly three digits, or none when it is zero. finish() closes the sink
// even after an error, and keeps the first error.
#include "recorder/export/json_stream.hpp"

#include <charconv>

namespace skein {

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
