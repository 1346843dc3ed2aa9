// line_splitter.cpp — finding lines in a byte stream; see line_splitter.hpp.
#include "recorder/format/line_splitter.hpp"

#include <algorithm>
#include <cstring>

namespace skein {
namespace {

// The buffer starts small and doubles while reads fill it, up to kChunkBytes
// per read.
constexpr std::size_t kFirstBufferBytes = 16 * 1024;
constexpr std::size_t kChunkBytes = 256 * 1024;

std::string_view without_cr(std::string_view text) {
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

}  // namespace

LineSplitter::LineSplitter(std::unique_ptr<ByteSource> source)
    : source_(std::move(source)), buffer_(kFirstBufferBytes) {}
LineSplitter::~LineSplitter() = default;
LineSplitter::LineSplitter(LineSplitter&&) noexcept = default;
LineSplitter& LineSplitter::operator=(LineSplitter&&) noexcept = default;

std::uint64_t LineSplitter::bytes_consumed() const { return source_->raw_offset(); }

std::string LineSplitter::too_long_message() const {
  std::string message = "line longer than 1 MiB (" + std::to_string(kMaxLineBytes) + " bytes)";
  if (gave_up_)
    message += ", with no end in the next " + std::to_string(kMaxSkippedLineBytes / (1024 * 1024)) +
               " MiB: the rest of the input is not read";
  return message;
}

// Reads more input after buffer_[filled_]; moves unconsumed bytes to the
// front first.
LineSplitter::Fill LineSplitter::fill() {
  if (pos_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + pos_, filled_ - pos_);
    filled_ -= pos_;
    scanned_ -= pos_;
    pos_ = 0;
  }
  // Grow when a partial line fills half the buffer (long lines, bounded by
  // kMaxLineBytes) or when reads keep filling it (big files).
  if (buffer_.size() - filled_ < buffer_.size() / 2 ||
      (last_read_filled_ && buffer_.size() < kChunkBytes))
    buffer_.resize(std::max(buffer_.size() * 2, filled_ + kFirstBufferBytes));
  const std::size_t room = buffer_.size() - filled_;
  auto got = source_->read(std::span<char>(buffer_.data() + filled_, room));
  if (!got) {
    error_ = got.error();
    return Fill::error;
  }
  last_read_filled_ = got.value() == room;
  filled_ += got.value();
  if (got.value() == 0) {
    eof_ = true;
    if (source_->cut_short()) return Fill::cut_short;
  }
  return Fill::ok;
}

LineSplitter::Event LineSplitter::next() {
  for (;;) {
    if (done_) return Event::end;
    const char* base = buffer_.data();
    const void* nl = std::memchr(base + scanned_, '\n', filled_ - scanned_);
    if (nl == nullptr) {
      scanned_ = filled_;
      if (!eof_) {
        // (+ 1: the line's bytes may end in the CR of a CRLF.)
        if (skipping_long_line_ || filled_ - pos_ > kMaxLineBytes + 1) {
          // Drop the long line's bytes so far; keep skipping to its end,
          // as far as kMaxSkippedLineBytes past the limit (invariant 5).
          if (!skipping_long_line_) {
            skipping_long_line_ = true;
            skipped_ = 0;
            ++line_;
          }
          skipped_ += filled_ - pos_;
          pos_ = scanned_ = filled_;
          if (skipped_ > kMaxLineBytes + kMaxSkippedLineBytes) {
            done_ = gave_up_ = true;
            skipping_long_line_ = false;
            return Event::too_long;
          }
        }
        switch (fill()) {
          case Fill::ok: continue;
          case Fill::cut_short: return Event::cut_short;
          case Fill::error: done_ = true; return Event::read_error;
        }
        continue;
      }
      // End of input: what is left is a last line without a newline.
      done_ = true;
      if (skipping_long_line_) {
        skipping_long_line_ = false;
        unterminated_ = true;
        return Event::too_long;
      }
      if (pos_ == filled_) return Event::end;
      ++line_;
      text_ = without_cr(std::string_view(base + pos_, filled_ - pos_));
      unterminated_ = true;
      pos_ = scanned_ = filled_;
      return text_.size() > kMaxLineBytes ? Event::too_long : Event::line;
    }
    const auto at = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
    const std::string_view text(base + pos_, at - pos_);
    pos_ = scanned_ = at + 1;
    if (skipping_long_line_) {
      skipping_long_line_ = false;
      unterminated_ = false;
      return Event::too_long;  // numbered when its skipping began
    }
    ++line_;
    text_ = without_cr(text);
    unterminated_ = false;
    // A long line can arrive whole when the buffer has grown for an earlier
    // one: it is too long all the same.
    return text_.size() > kMaxLineBytes ? Event::too_long : Event::line;
  }
}

}  // namespace skein
