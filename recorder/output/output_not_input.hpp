// output_not_input.hpp — the one check that an output (`-o`, skein-view's
// --export-view and File ▸ Export View) is none of the files its command
// reads: the trace, and the database read for it (a trace's cache). Every
// command that writes asks it before it opens its output, so that `skein
// import t.sexp -o t.sexp` is refused instead of replacing the trace with
// its own database.
//
// Invariants:
//   1. Files are compared by identity, st_dev and st_ino of what the path
//      names with symbolic links followed (stat(2)), never by their names:
//      `./t.sexp`, a hard link and a link to the trace are the trace.
//   2. Only a regular file is an input that an output could destroy; a
//      device, a FIFO or a terminal shared by both sides is not refused.
//   3. "-" is standard input on the input side (fstat of descriptor 0) and,
//      for a stream, standard output on the output side (descriptor 1); a
//      database's "-" is a file of that name (output_file.hpp).
//   4. A path that does not exist, or cannot be looked at, is no input's:
//      the command's own open reports what is wrong with it.
//   5. Refused means untouched: the check runs before the output is
//      opened, and its error is the command's whole answer (exit status 2).
#pragma once

#include <string>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/output/output_file.hpp"

namespace skein {

// "OUTPUT: is the input INPUT itself (the same file); choose another
// output" when `output` names one of `inputs`, else success.
[[nodiscard]] Status check_output_is_not_an_input(const std::string& output, OutputContent content,
                                                  const std::vector<std::string>& inputs);

}  // namespace skein
