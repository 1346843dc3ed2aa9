// output_file.hpp — where an output named on the command line (`-o`) goes,
// decided in one place for every command: the trace database of `skein
// import` and the cache databases (trace_import.hpp, opened_store.hpp), the
// bytes of `skein export` in every format, and the images of `skein render`
// and of skein-view's --export-view and File ▸ Export View
// (viewer/render/timeline_image.hpp). Whether the output is one of the
// command's inputs is asked before, in one place too (output_not_input.hpp).
//
// The decision, from what lstat(2) finds at the path (output_node.hpp):
//
//   the path names        a stream (export, render)     a database (import, caches)
//   -------------------   ---------------------------   ---------------------------
//   nothing, or a         replaced: written to          replaced likewise, and the
//   regular file          TARGET.tmp-PID beside it,     old file's stale journals
//                         renamed over it once          removed just before the
//                         complete (pending_file.hpp)   rename (database_replacement.hpp)
//   a character or block  written through: that very    refused ("… is a character
//   device, a FIFO        node is opened (O_NOFOLLOW,   device, not a database file")
//                         checked against the lstat),
//                         no temporary, no rename
//   a symbolic link       written through to what it    refused, the link untouched
//                         points to (-o /dev/stdout:
//                         the very descriptor when it
//                         is this process's standard
//                         output); a link to nothing
//                         is refused
//   a folder, a socket    refused                       refused
//   "-"                   standard output               a file named "-"
//
// Invariants:
//   1. No output replaces a node that is not a regular file: a device, a
//      FIFO or a link is opened and written, never unlinked or renamed over
//      (pending_file.hpp, invariant 2, keeps this true at the rename).
//   2. A database is only ever a fresh regular file renamed into place:
//      SQLite needs a file it can lock and seek, and a journal that outlives
//      the file it belonged to would be played into the new one.
//   3. A written-through output is not atomic: a failure midway leaves what
//      was written. A device or a FIFO has no old contents to keep; a file
//      reached through a link is truncated and rewritten, as the shell's `>`
//      does.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "recorder/format/byte_sink.hpp"
#include "recorder/format/diagnostic.hpp"
#include "recorder/output/output_node.hpp"
#include "recorder/output/pending_file.hpp"

namespace skein {

enum class OutputContent : std::uint8_t { stream, database };
enum class OutputWriting : std::uint8_t { replace, write_through };

class OutputFile {
 public:
  // Decides (the table above) and prepares: the temporary file created, or
  // the node opened for writing (a FIFO's open waits for its reader).
  [[nodiscard]] static Result<OutputFile> open_stream(const std::string& target);
  [[nodiscard]] static Result<OutputFile> open_database(const std::string& target);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&& other) noexcept;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  // an uncommitted replacement is discarded; the target stays

  [[nodiscard]] const std::string& target() const { return target_; }
  [[nodiscard]] OutputWriting writing() const { return writing_; }

  // A database: the temporary file, for SQLite to build the database in
  // (an empty regular file; SQLite takes it as an empty database).
  [[nodiscard]] const std::string& database_path() const;
  // A stream: the sink the bytes go to, once. by_name compresses when the
  // target's name (not the temporary file's) ends in ".gz".
  [[nodiscard]] Result<std::unique_ptr<ByteSink>> take_sink(Compression compression = Compression::by_name);

  // Once the writer is done with the output (its sink closed, its database
  // connection closed). A replacement is synced (when `sync`), its stale
  // journals removed (a database), renamed over the target; a written-
  // through output has nothing left to do.
  [[nodiscard]] Status commit(bool sync = true);

 private:
  OutputFile(OutputContent content, OutputWriting writing, std::string target, OutputNode checked);

  OutputContent content_;
  OutputWriting writing_;
  std::string target_;
  OutputNode checked_;                 // what the target was when opened
  std::optional<PendingFile> pending_;  // when replacing
  int fd_ = -1;                        // when writing through, until take_sink()
  bool owns_fd_ = true;                // false for standard output
};

}  // namespace skein
