// line_splitter.hpp — cuts a byte stream into lines with bounded memory: the
// tokenizing step every line-based trace format shares (the Skein reader,
// TraceReader, and the 2014 MirageOS S-expression importer).
//
// Design. The splitter pulls chunks from a ByteSource into one buffer and
// hands out each line as a view into that buffer; it knows nothing of what a
// line means. The buffer starts small (traces in tests and fuzzing are tiny),
// doubles while reads keep filling it, and only grows past a chunk while one
// line is longer than half of it, so memory is bounded by kMaxLineBytes, never
// by the file. A line longer than kMaxLineBytes has its bytes dropped up to
// its newline and is reported once (too_long) when that newline comes. The
// dropping is bounded too: a line with no newline in the kMaxSkippedLineBytes
// past the limit (/dev/zero, a pipe of endless bytes, a gzip bomb of one
// line) is reported then, and ends the input (gave_up()), so no input makes
// the splitter read without end between two events.
//
// Invariants:
//   1. Lines come out in file order, numbered from 1; a too_long line takes a
//      number too, so numbers always match the file's lines.
//   2. text() never contains '\n'; a '\r' just before the newline (CRLF) is
//      removed. It stays valid until the next call to next(), and is at most
//      kMaxLineBytes long (longer lines are too_long, however they arrive).
//   3. Only the last line can be unterminated() (no newline before the end).
//   4. After end, read_error or a too_long that gave_up(), next() gives
//      end forever; every other event consumes input or reports an event
//      that happens once (cut_short), so the caller's loop terminates.
//   5. Between two events the splitter reads at most kMaxLineBytes +
//      kMaxSkippedLineBytes bytes plus one read's worth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/format/byte_source.hpp"
#include "recorder/format/diagnostic.hpp"

namespace skein {

inline constexpr std::size_t kMaxLineBytes = 1024 * 1024;
// How far past kMaxLineBytes a too-long line is dropped while looking for
// its end before the splitter gives up on the input.
inline constexpr std::size_t kMaxSkippedLineBytes = 16 * 1024 * 1024;

class LineSplitter {
 public:
  enum class Event : std::uint8_t {
    line,        // text() holds the next line
    too_long,    // line number line_number() is longer than kMaxLineBytes: skipped
                 // (final when gave_up())
    cut_short,   // the compressed input stops early (once, before the last line)
    read_error,  // read_error() says why; final
    end,         // the end of the input; final
  };

  explicit LineSplitter(std::unique_ptr<ByteSource> source);
  ~LineSplitter();
  LineSplitter(LineSplitter&&) noexcept;
  LineSplitter& operator=(LineSplitter&&) noexcept;

  [[nodiscard]] Event next();

  [[nodiscard]] std::string_view text() const { return text_; }
  // True when the line last returned ended the input without a newline.
  [[nodiscard]] bool unterminated() const { return unterminated_; }
  // The number of the line last returned (or skipped as too long); 0 before
  // the first.
  [[nodiscard]] std::uint64_t line_number() const { return line_; }
  [[nodiscard]] const Diagnostic& read_error() const { return error_; }
  // True after a too_long line whose newline did not come within
  // kMaxSkippedLineBytes past the limit: the input ends there.
  [[nodiscard]] bool gave_up() const { return gave_up_; }
  // What a reader says of the too_long line last returned (at its column
  // kMaxLineBytes + 1), the same for every line-based format.
  [[nodiscard]] std::string too_long_message() const;
  // Bytes consumed from the underlying file (compressed bytes for gzip).
  [[nodiscard]] std::uint64_t bytes_consumed() const;

 private:
  enum class Fill : std::uint8_t { ok, cut_short, error };
  Fill fill();

  std::unique_ptr<ByteSource> source_;
  // buffer_[pos_, filled_) holds bytes not yet handed out; scanned_ marks how
  // far the search for '\n' has looked, so a long line is not searched twice.
  std::vector<char> buffer_;
  std::size_t pos_ = 0;
  std::size_t filled_ = 0;
  std::size_t scanned_ = 0;
  bool eof_ = false;
  bool last_read_filled_ = false;
  bool done_ = false;
  bool skipping_long_line_ = false;
  bool gave_up_ = false;
  std::uint64_t skipped_ = 0;  // bytes of the long line dropped so far
  bool unterminated_ = false;
  std::uint64_t line_ = 0;
  std::string_view text_;
  Diagnostic error_;
};

}  // namespace skein
