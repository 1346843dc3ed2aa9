// trace_source.hpp — the one interface every trace format implements, and
// open_trace(), which picks the format from a file's content.
//
// Where it sits. `skein import` runs:
//
//   bytes (file, stdin or memory; gzip unwrapped by ByteSource)
//     -> open_trace: the format, from the first bytes
//     -> a TraceSource for that format: tokenizing (lines, CTF packets) and
//        parsing into Records
//     -> the store
//
// Every format yields the same Record stream (record.hpp), so nothing after
// this interface knows which format a trace came in.
//
// | format_name() | format                       | implementation                      |
// | ------------- | ---------------------------- | ----------------------------------- |
// | skein         | FORMAT.md                    | TraceReader, behind an adapter      |
// | mirage-sexp   | 2014 MirageOS S-expressions  | MirageSexpImporter                  |
// | mirage-ctf    | mirage-profile's CTF packets | CtfImporter                         |
//
// Detection looks at the decompressed bytes, never at the file name, and
// skips leading blank lines (spaces, tabs, CR, LF):
//   - the bytes c1 1f fc c1 first (the CTF packet magic 0xc1fc1fc1, little
//     endian): mirage-ctf;
//   - '(skein-trace', or ';' (a comment: only the Skein format has them):
//     skein;
//   - '((time ': mirage-sexp;
//   - anything else, or nothing: an error naming the file and the three
//     formats expected.
// Corrupt compressed data is an error in the trace, not in opening it: when
// it comes before the format is known, open_trace() still succeeds and the
// source's first next() returns Step::error with it.
// At most kMaxDetectBytes are looked at; they are replayed to the format's
// reader, so line numbers and byte offsets count from the file's start.
//
// The contract of next(), for every format:
//   1. Step::record: record() holds the next record until the next call; its
//      strings point into the source's buffers (copy them to keep them).
//   2. Step::error: error() names where the input went wrong (FILE:LINE:COL
//      for text formats, `FILE: byte N: ...` for CTF). A caller that goes on
//      gets more records (the line-based formats resume at the next line) or
//      Step::end (CTF errors are final). `skein import` stops at the first.
//   3. Step::end is final; warnings() (the first 100; warning_count() counts
//      all) then says what was odd but not wrong, truncated() whether the
//      input was cut short.
//   4. header() is complete once next() has returned its first record: the
//      Skein header line, or for imported traces the options below.
// Imported traces' header options: `source-format` (mirage-sexp or
// mirage-ctf), `source-origin-ns` (the source clock's reading, in ns, that
// record time 0 stands for: the first record's time) and, for CTF,
// `source-uuid`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/format/byte_source.hpp"
#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"

namespace skein {

inline constexpr std::size_t kMaxDetectBytes = 64 * 1024;

class TraceSource {
 public:
  enum class Step : std::uint8_t { record, end, error };

  virtual ~TraceSource();
  TraceSource(const TraceSource&) = delete;
  TraceSource& operator=(const TraceSource&) = delete;

  [[nodiscard]] virtual Step next() = 0;
  // Bytes consumed from the underlying file so far (compressed bytes for
  // gzip), for progress reports.
  [[nodiscard]] virtual std::uint64_t bytes_consumed() const = 0;

  [[nodiscard]] const Record& record() const { return record_; }
  [[nodiscard]] const Diagnostic& error() const { return error_; }
  [[nodiscard]] const std::vector<Diagnostic>& warnings() const { return warnings_; }
  [[nodiscard]] std::uint64_t warning_count() const { return warning_count_; }
  [[nodiscard]] const TraceHeader& header() const { return header_; }
  [[nodiscard]] bool truncated() const { return truncated_; }
  // "skein", "mirage-sexp" or "mirage-ctf".
  [[nodiscard]] std::string_view format_name() const { return format_name_; }
  // The name used in diagnostics: the path, "<stdin>" or a memory name.
  [[nodiscard]] const std::string& name() const { return name_; }
  // Where the record last returned starts, for messages about it that
  // come later than parsing (the store's warnings): the file and line for
  // the text formats, or line 0 and a message "byte N: " for CTF, so that
  // appending to the message gives a Diagnostic like the source's own.
  [[nodiscard]] virtual Diagnostic record_location() const;

 protected:
  TraceSource(std::string_view format_name, std::string name);

  static constexpr std::size_t kMaxKeptWarnings = 100;
  // Keeps the first kMaxKeptWarnings warnings and counts all.
  void warn(std::uint64_t line, std::uint32_t column, std::string message);
  // Sets error_ and returns Step::error.
  Step fail(std::uint64_t line, std::uint32_t column, std::string message);

  Record record_;
  Diagnostic error_;
  std::vector<Diagnostic> warnings_;
  std::uint64_t warning_count_ = 0;
  TraceHeader header_;
  bool truncated_ = false;

 private:
  std::string_view format_name_;
  std::string name_;
};

// Opens `path` ("-": standard input) and picks the format from its content.
[[nodiscard]] Result<std::unique_ptr<TraceSource>> open_trace(const std::string& path);
// The same over bytes held by the caller (they must outlive the source).
[[nodiscard]] Result<std::unique_ptr<TraceSource>> open_trace_memory(std::string_view bytes,
                                                                     std::string name = "<memory>");
// The same over any byte source (already unwrapped from gzip, or not: gzip is
// unwrapped only by open_input and memory_input).
[[nodiscard]] Result<std::unique_ptr<TraceSource>> open_trace_source(
    std::unique_ptr<ByteSource> source, std::string name);

}  // namespace skein
