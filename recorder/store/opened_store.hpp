// opened_store.hpp — "a trace" wherever the tools take one (`skein info`,
// `skein summary`, the lints and the viewer): a trace database is
// opened as it is; a trace file of any format is opened through a cache
// database made by importing it.
//
// Where the cache lives: `TRACE.skein.db` beside the trace when that
// folder is writable and SQLite can keep a database at that path
// (the same name `skein import TRACE` uses, so an explicit import fills
// the cache), otherwise in $XDG_CACHE_HOME/skein/ (default ~/.cache/skein/)
// as `NAME-HASH.skein.db`, HASH from the trace's absolute path, NAME the
// trace's name (its first 221 bytes when longer, so that the file and its
// journal fit NAME_MAX). "Writable" means that the folder's mode lets this
// user write (for root: that some write bit is set, since a folder nobody
// may write to is meant to stay untouched) and that a file can be created
// there. "SQLite can keep" means that the path, made absolute, and the
// temporary name it is built under are within SQLite's path limit (504
// bytes) and that its name leaves room for `-journal`
// (database_path.hpp): past that, a trace deep in a tree, or with a long
// name, has its cache in the cache folder, not an error.
//
// When it is reused: while it is a valid Skein database (checked as
// untrusted input, like any) whose meta holds the trace's current size,
// modification time and CRC-32 of its first 64 KiB (trace_import.hpp's
// SourceStamp). Anything else, a stale or damaged cache included, is
// replaced by a fresh import (atomically, so readers of the old one are
// not disturbed; its stale journals removed first). The cache is written
// as every output is (output_file.hpp): a device, a FIFO or a symbolic
// link at its path is neither read nor replaced, and the open fails.
#pragma once

#include <optional>
#include <string>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_import.hpp"
#include "recorder/store/trace_store.hpp"

namespace skein {

struct StoreOpenOptions {
  ImportOptions import;   // used when the trace is (re-)imported
  std::string cache_dir;  // instead of the XDG folder (tests); "" for the default
};

struct OpenedStore {
  enum class Failure : std::uint8_t {
    none,
    unreadable,  // missing file, not a database nor a trace, unusable database
    invalid,     // the trace has an error (or, with strict, a warning)
    database,    // the cache cannot be written
  };
  Failure failure = Failure::none;
  Diagnostic error;
  std::optional<TraceStore> store;
  std::string database_path;
  bool imported = false;      // the cache was built by this call
  ImportReport import_report;  // when imported

  [[nodiscard]] bool ok() const { return failure == Failure::none; }
};

[[nodiscard]] OpenedStore open_store(const std::string& path, const StoreOpenOptions& options = {});

// True when the file starts with SQLite's header ("SQLite format 3").
[[nodiscard]] bool is_sqlite_file(const std::string& path);
// Where the cache of `trace_path` goes (the folder is created if needed).
[[nodiscard]] Result<std::string> cache_path_for(const std::string& trace_path,
                                                 const std::string& cache_dir = "");

}  // namespace skein
