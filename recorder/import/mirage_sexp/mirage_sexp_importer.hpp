// mirage_sexp_importer.hpp — reads the 2014 MirageOS S-expression traces
// (mirage-trace-viewer's examples) as a stream of Skein Records.
//
// The format: one sexplib record a line, fields in either order,
//
//   ((time 1413637708.834171)(op(Creates 0 4 Bind)))
//   ((time 8249.521319)(op(Creates 0 1)))            ; the older variant, no types
//   ((time 1413637708.834148)(op(Label 0"create XenStore")))
//   ((time 1413637708.838657)(op(Resolves 80 80("Xs_protocol.Enoent(\"read\")"))))
//
// in sexplib's machine style: no space where a parenthesis or a quote ends
// an atom, CRLF line ends in the real files. Strings are sexplib's quoted
// atoms with OCaml escapes (\\ \" \' \n \t \b \r \<space> \DDD \xHH \oOOO; an
// unknown escape keeps its backslash, as sexplib does); a label or a failure
// message may also be a bare atom (`(Label 3 after-chn-1)`).
//
// Mapping (FORMAT.md, "Importing the 2014 MirageOS formats"):
//
// | op                           | record                                     |
// | ---------------------------- | ------------------------------------------ |
// | Creates PARENT CHILD [TYPE]  | spawn CHILD PARENT KIND: TYPE lower-cased (Bind -> bind); no TYPE: task |
// | Reads READER INPUT           | read READER INPUT                          |
// | Resolves BY THREAD OPT       | resolve THREAD BY ok, OPT `()`, `None` or absent |
// | Resolves BY THREAD (MSG)     | resolve THREAD BY fail "MSG"; also `(Some MSG)`, or MSG bare |
// | Becomes A B                  | merge A B (A, still pending, now behaves as B) |
// | Label THREAD TEXT            | label THREAD "TEXT"                        |
// | Switch THREAD                | switch THREAD (-1: the process sleeps)     |
// | Gc SECONDS                   | gc DURATION (ns)                           |
// | Resolves 0 0 (), the last    | snapshot: mirage-profile's mark of when the log was taken |
//
// An old trace without types gives every thread the kind `task`, the most
// general one (a promise settled by whoever holds its resolver): the
// trace does not say more. Unknown types are kept, lower-cased, when they
// make a valid symbol. Thread ids are kept exactly (-1 stays the scheduler).
//
// Times. The decimal text of a time is converted exactly into integer ns
// (never through a double, which cannot hold ns at 1.4e9 s); digits below
// the ns are dropped. Record times count from the first record's time
// (header option source-origin-ns); a record earlier than the first is
// imported at time 0 with a warning.
//
// Errors and warnings, as TraceReader's: FILE:LINE:COL and a message such
// as "expected an integer thread id after 'Creates'"; after a bad line,
// next() goes on with the following one. An unknown op is an error (the
// 2014 format is closed: an op we do not know means a file we do not
// understand). A last line cut mid-record (no newline and not a whole
// record) is a truncation warning; a gzip stream that stops early too.
//
// Invariants:
//   1. Records come in file order, one per non-blank line, never allocating
//      on the common path (strings are views into the line; escaped ones go
//      to a scratch area, kinds to a small buffer).
//   2. Every record delivered is a valid Skein record (record.hpp's
//      invariants): times >= 0, kinds are symbols, strings within
//      kMaxStringBytes, durations >= 0.
//   3. Memory is bounded by kMaxLineBytes (the LineSplitter), never by the file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "recorder/format/byte_source.hpp"
#include "recorder/import/trace_source.hpp"

namespace skein {

class MirageSexpImporter final : public TraceSource {
 public:
  MirageSexpImporter(std::unique_ptr<ByteSource> source, std::string name);
  ~MirageSexpImporter() override;

  [[nodiscard]] Step next() override;
  [[nodiscard]] std::uint64_t bytes_consumed() const override;
  [[nodiscard]] Diagnostic record_location() const override;
  // The line of the record or error last returned.
  [[nodiscard]] std::uint64_t line() const;

 private:
  [[nodiscard]] Step read_record();
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace skein
