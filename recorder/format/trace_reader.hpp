// trace_reader.hpp — a streaming reader of the Skein trace format
// (FORMAT.md), for untrusted input.
//
// Design. A LineSplitter (line_splitter.hpp) cuts the ByteSource's bytes into
// lines, and RecordLineParser parses each line straight into a Record without
// building a syntax tree; string fields point into the splitter's buffer, or
// into a scratch area when they had escapes. Memory is bounded by the longest
// line allowed (kMaxLineBytes), never by the file.
//
// Errors. A malformed line is reported as a Diagnostic naming FILE:LINE:COL
// and the next call to next() goes on with the following line, so a checker
// can list every error; an importer stops at the first. A bad header is
// fatal, a header longer than kMaxLineBytes included, and so is a line
// with no newline in the kMaxSkippedLineBytes past that limit (/dev/zero, a
// pipe of endless bytes: line_splitter.hpp gives up on such input), so a
// checker too stops after bounded work. Warnings, which never stop reading:
//   - an unknown record head: the line is skipped and counted, and one
//     warning is given per head name;
//   - a last line cut mid-record (no newline and not a whole record), or a
//     gzip stream that stops early: a truncation warning; everything before
//     it has been delivered.
// Extra trailing fields in a known record are ignored (later versions may add
// optional trailing fields).
//
// Invariants:
//   1. Records are delivered in file order; a record never spans lines.
//   2. Every complete, well-formed record line before a cut is delivered.
//   3. No input makes the reader recurse, allocate without bound or read out
//      of its buffer (the fuzz target checks this under ASan).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "recorder/format/byte_source.hpp"
#include "recorder/format/diagnostic.hpp"
#include "recorder/format/line_splitter.hpp"
#include "recorder/format/record.hpp"

namespace skein {

struct UnknownHead {
  std::string name;
  std::uint64_t count = 0;
};

class TraceReader {
 public:
  enum class Step { record, end, error };

  // Opens `path` ("-": standard input); gzip is detected from content.
  [[nodiscard]] static Result<TraceReader> open(const std::string& path);
  TraceReader(std::unique_ptr<ByteSource> source, std::string name);
  ~TraceReader();
  TraceReader(TraceReader&&) noexcept;
  TraceReader& operator=(TraceReader&&) noexcept;

  // Reads the next record. After Step::record, record() holds it until the
  // next call; after Step::error, error() says what was wrong, and reading
  // may go on. Step::end is final.
  [[nodiscard]] Step next();

  [[nodiscard]] const Record& record() const;
  [[nodiscard]] const Diagnostic& error() const;
  // The header, once the first call to next() has read it.
  [[nodiscard]] const TraceHeader* header() const;
  // The first warnings (up to 100 are kept; warning_count() counts all).
  [[nodiscard]] const std::vector<Diagnostic>& warnings() const;
  [[nodiscard]] std::uint64_t warning_count() const;
  [[nodiscard]] const std::vector<UnknownHead>& unknown_heads() const;
  // True when the input was cut short (a partial last line, or a gzip stream
  // that stops early).
  [[nodiscard]] bool truncated() const;
  // The line of the record or error last returned.
  [[nodiscard]] std::uint64_t line() const;
  [[nodiscard]] const std::string& name() const;
  // Bytes consumed from the underlying file (compressed bytes for gzip).
  [[nodiscard]] std::uint64_t bytes_consumed() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace skein
