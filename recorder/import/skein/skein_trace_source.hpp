// skein_trace_source.hpp — Skein's own trace format (recorder/format/FORMAT.md)
// behind the TraceSource interface, as open_trace() hands it out when a file
// starts with '(skein-trace' or a ';' comment.
//
// The tokenizing and parsing are TraceReader's (recorder/format/): this is an
// adapter, so the format has one reader whether `skein check` reads it or an
// import does. Each next() copies the reader's record (a few words: its
// strings stay views into the reader's buffer, valid until the next call),
// the header once the reader has it, and the warnings the reader has added
// since the last call, so TraceSource's accessors report exactly what
// TraceReader saw.
#pragma once

#include <memory>
#include <string>

#include "recorder/format/byte_source.hpp"
#include "recorder/import/trace_source.hpp"

namespace skein {

// A TraceSource reading `source` as a Skein trace named `name` in messages.
[[nodiscard]] std::unique_ptr<TraceSource> make_skein_trace_source(std::unique_ptr<ByteSource> source,
                                                                   std::string name);

}  // namespace skein
