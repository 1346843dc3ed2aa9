// sexp_export.hpp — `skein export --format sexp`: a trace database back into
// Skein's own format (FORMAT.md), whatever format it was imported from.
//
// The store keeps every record (SCHEMA.md, "Records"), and the sites
// table the file, line and function of every `site` record, so the trace is
// re-created record by record, in event-id order: the header from meta's
// `header.KEY` rows (every option, `header.version` being the format's
// version, not an option), then one line per event.
//
// The round trip this guarantees: importing the export gives the same
// events, sites, threads, activations, counters, event_blocks, heads and
// thread_spans, the same derivation warnings (kind and event; their
// messages name the new file's lines), and the same meta but for the rows
// that describe the file rather than the trace: `format` (now `skein`; an
// imported trace's original format stays in `header.source-format`),
// `source`, the source stamp, `truncated`, `warnings.source` and the total
// `warnings` (the reader's own warnings, such as truncation, belong to the
// file that was read, and the export is a whole, clean file).
//
// A database made elsewhere is untrusted: a row that is not a record the
// format can carry (a NULL time, an outcome other than 0 to 2, a kind that
// is not a symbol, a site record without its sites row...) stops the export
// with `DB: event N: what is wrong`, rather than writing a trace that would
// not read back. The output is streamed: memory does not grow with the trace.
#pragma once

#include <cstdint>
#include <memory>

#include "recorder/format/byte_sink.hpp"
#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_store.hpp"

namespace skein {

// Writes the trace held by `store` to `sink` and closes it; the count of
// records written (the header not counted).
[[nodiscard]] Result<std::uint64_t> export_sexp(TraceStore& store, std::unique_ptr<ByteSink> sink);

}  // namespace skein
