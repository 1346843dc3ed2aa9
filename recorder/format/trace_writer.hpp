// trace_writer.hpp — writes the Skein trace format (FORMAT.md): a header line,
// then one record a line.
//
// The writer formats into its own 64 KiB buffer and hands full buffers to a
// ByteSink, so a record costs a few integer conversions and a memcpy. Write
// errors (a full disk) are kept and reported once by finish(); records
// written after a failure are dropped.
//
// Invariant: after finish(), every record passed to write() is in the sink
// as exactly one line that TraceReader reads back as an equal record.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "recorder/format/byte_sink.hpp"
#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"

namespace skein {

class TraceWriter {
 public:
  explicit TraceWriter(std::unique_ptr<ByteSink> sink);
  ~TraceWriter();
  TraceWriter(TraceWriter&&) noexcept;
  TraceWriter& operator=(TraceWriter&&) noexcept;

  // Creates `path` ("-": standard output), gzip-compressed when it ends in .gz.
  [[nodiscard]] static Result<TraceWriter> create(const std::string& path,
                                                  Compression compression = Compression::by_name);

  void write_header(const TraceHeader& header);
  void write(const Record& record);
  // The same, without going through the variant (the capture's writer).
  void write(const SiteRecord& r);
  void write(const SpawnRecord& r);
  void write(const LabelRecord& r);
  void write(const SwitchRecord& r);
  void write(const WaitRecord& r);
  void write(const ReadRecord& r);
  void write(const NotifyRecord& r);
  void write(const ResolveRecord& r);
  void write(const MergeRecord& r);
  void write(const CounterRecord& r);
  void write(const IdleRecord& r);
  void write(const GcRecord& r);
  void write(const LostRecord& r);
  void write(const EndRecord& r);
  void write(const ReturnRecord& r);
  void write(const ShouldResolveRecord& r);
  void write(const SnapshotRecord& r);
  void write(const DropRecord& r);
  void write(const NoWaiterRecord& r);
  void write(const QueuedRecord& r);
  // A comment line ("; text"), for hand-made and generated traces.
  void write_comment(std::string_view text);
  // A line written as it is (plus the newline); for text formatted ahead of
  // time. Does not allocate while the line fits the buffer (crash paths).
  void write_line(std::string_view line);
  // Makes the buffer at least `bytes` large now, so later writes of records
  // up to that size never allocate.
  void reserve_buffer(std::size_t bytes);

  // For a formatter of its own (the capture's writer, which formats its
  // binary records straight into the buffer): room for one line of at most
  // `bytes` bytes, then end_line() with one past its last byte, which adds
  // the newline. The line must be one valid record (FORMAT.md).
  [[nodiscard]] char* begin_line(std::size_t bytes) { return reserve(bytes + 1); }
  void end_line(char* end) {
    *end++ = '\n';
    commit(end);
  }
  // Bytes formatted but not yet handed to the sink.
  [[nodiscard]] std::size_t buffered() const { return used_; }

  // Flushes the buffer to the sink without closing it.
  [[nodiscard]] Status flush();
  // Flushes and closes the sink; returns the first error met, if any.
  [[nodiscard]] Status finish();

  [[nodiscard]] std::uint64_t bytes_written() const { return bytes_written_ + used_; }

 private:
  char* reserve(std::size_t n) {
    return capacity_ - used_ >= n ? buffer_.get() + used_ : reserve_slow(n);
  }
  char* reserve_slow(std::size_t n);
  template <class R>
  void write_one(const R& r);
  void commit(char* end) { used_ = static_cast<std::size_t>(end - buffer_.get()); }
  // A larger buffer keeping the bytes used so far.
  void grow(std::size_t bytes);

  std::unique_ptr<ByteSink> sink_;
  // Not zero-filled (new char[], default-initialised): a capture reserves a
  // large buffer at start for its crash path, and only the part written to
  // should ever be faulted in.
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  std::uint64_t bytes_written_ = 0;
  Status status_;
};

// Formats one record as its line, without the newline (tests, messages).
[[nodiscard]] std::string format_record(const Record& record);
[[nodiscard]] std::string format_header(const TraceHeader& header);

}  // namespace skein
