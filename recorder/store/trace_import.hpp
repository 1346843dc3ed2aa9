// trace_import.hpp — `skein import`: a trace of any format into a trace
// database (SCHEMA.md), atomically.
//
// The pipeline, on two threads:
//
//   parsing thread                          calling thread
//   ----------------                        ---------------
//   TraceSource::next()  (trace_source.hpp)
//   -> TraceEvent, packed into its
//      block (event_block_codec.hpp)
//   -> ModelDerivation::add
//      (each batch carries the event
//       blocks completed, the closed   --queue-->  StoreWriter::add_blocks,
//       activations, and a sorted run               add_activations,
//       of counter rows when one fills:             add_counters
//       counter_runs.hpp)                           (SQLite, one transaction)
//   at the end:
//   ModelDerivation::finish_threads,
//   the last counter run, and the
//   queue closed                    -->  StoreWriter::add_threads,
//   place_threads (the R*Tree packed,           the last counters
//   the rows laid out), meanwhile    -->  StoreWriter::add_placement,
//                                             meta, warnings, stamp, COMMIT,
//                                             OutputFile::commit (rename)
//
// SQLite's inserts and the parsing are each about half of the work, so
// they run on the two cores side by side, to the end; the queue is bounded (a few
// batches), so memory stays flat however fast the parser is.
//
// Atomicity: the database is written to `TARGET.tmp-PID` and renamed over
// TARGET only after COMMIT, the old file's stale journals removed just
// before (output_file.hpp decides, for every output; pending_file.hpp and
// database_replacement.hpp do it). TARGET must be a regular file or
// nothing: a device, a FIFO or a symbolic link there is refused, never
// replaced. TARGET, and its temporary name, must be paths SQLite can keep a
// database at (database_path.hpp): a longer one is refused before anything
// is created. A failure or a cancellation removes the temporary file; TARGET
// is never touched unless the import succeeds. Running out of memory is
// such a failure too (Failure::out_of_memory, "out of memory while
// importing, after N records"), on either thread: std::bad_alloc is caught,
// the parser stopped, the temporary file removed.
//
// Memory is bounded by what the import needs, not by the trace: the queue's
// few batches, SQLite's page cache (128 MiB), a run of counter rows (32
// MiB, counter_runs.hpp), and the derived rows that grow with threads and
// sites (model_derivation.hpp); activations and event blocks are written
// batch by batch, counters run by run.
//
// Errors and warnings. The import stops at the trace's first error
// (FILE:LINE:COL, or FILE: byte N for CTF). Inconsistent records are kept
// and counted as warnings (model_derivation.hpp); with `strict`, any
// warning (the source's too: truncation, unknown heads) fails the import.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/import/trace_source.hpp"
#include "recorder/store/store_schema.hpp"

namespace skein {

struct ImportProgress {
  std::uint64_t bytes_done = 0;   // of the source file (compressed bytes for gzip)
  std::uint64_t bytes_total = 0;  // 0 when unknown (standard input)
  std::uint64_t records = 0;
  double seconds = 0;
  bool finishing = false;  // every record is read; the derived tables are being written
};

struct ImportOptions {
  bool strict = false;
  // Called on the calling thread, about ten times a second at most.
  std::function<void(const ImportProgress&)> progress;
  // Set (by another thread) to stop the import; it then fails.
  const std::atomic<bool>* cancel = nullptr;
  // fsync the database before renaming it into place.
  bool sync = true;
  int page_size = kStorePageSize;
};

// What identifies a source file's content cheaply: size, modification time
// and a CRC-32 of its first 64 KiB. Kept in meta; the cache compares it.
struct SourceStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::uint32_t head_crc32 = 0;
  bool operator==(const SourceStamp&) const = default;
};
[[nodiscard]] Result<SourceStamp> stamp_source(const std::string& path);

struct ImportReport {
  std::string format;  // TraceSource::format_name()
  std::uint64_t records = 0;
  std::uint64_t threads = 0;
  std::uint64_t warning_count = 0;
  std::vector<Diagnostic> warnings;  // the first ones (the source's, then the derivation's)
  bool truncated = false;
  double seconds = 0;
  // Where the time went, from the start: every event written; the derived
  // model ready (sorted, on the parsing thread); the model written; the
  // file committed, closed and renamed.
  double events_written_at = 0;
  double model_ready_at = 0;
  double model_written_at = 0;
};

struct ImportResult {
  enum class Failure : std::uint8_t {
    none,
    unreadable,  // the trace cannot be opened or read
    invalid,     // the trace has an error, its format unknown included (or, with strict, a warning)
    database,    // the database cannot be written
    cancelled,
    out_of_memory,  // an allocation failed, in the parser, the writer or SQLite
  };
  Failure failure = Failure::none;
  Diagnostic error;  // when failure != none
  ImportReport report;

  [[nodiscard]] bool ok() const { return failure == Failure::none; }
};

// Imports `trace_path` ("-": standard input; any format open_trace knows)
// into a new database at `database_path`, replacing it atomically.
[[nodiscard]] ImportResult import_trace(const std::string& trace_path, const std::string& database_path,
                                        const ImportOptions& options = {});

// The same from an open source (tests, memory), with an optional stamp for
// meta.
[[nodiscard]] ImportResult import_source(std::unique_ptr<TraceSource> source,
                                         const std::string& database_path, const ImportOptions& options,
                                         const std::optional<SourceStamp>& stamp = std::nullopt,
                                         std::uint64_t bytes_total = 0);

}  // namespace skein
