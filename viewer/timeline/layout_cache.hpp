// layout_cache.hpp — the thread layout (thread_layout.hpp), kept in the
// trace database so that opening a trace computes none: the import writes
// it; for a database made without it (an older Skein's), the first opening
// computes it and writes it here.
//
// The table is `layout_v2(thread INTEGER PRIMARY KEY, row INTEGER NOT NULL)`
// (recorder/store/SCHEMA.md, "Tables the viewer adds"): the `_v2` is the layout
// algorithm's version; a change to the algorithm renames the table, so an
// old cache is ignored rather than misread (version 2 puts the prominent
// chains, labelled and long-lived, first). A trace database never changes
// after its import (a re-import replaces the whole file), so a complete
// table is a valid cache: complete means exactly one row per thread.
//
// Reading goes through the store's read-only, defensive connection. Writing
// is one write of the database's owner (trace_database.hpp), which writes
// the whole table in one transaction, into the very file the layout was
// computed from; a database in a read-only place just stays without cache.
// The table's definition is recorder/store/derived_tables.hpp's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_database.hpp"
#include "recorder/store/trace_store.hpp"
#include "recorder/store/thread_layout.hpp"

namespace skein {

// The cached rows as (thread id, row), sorted by thread id; nullopt when
// there is no complete cache of `thread_count` rows.
[[nodiscard]] std::optional<std::vector<std::pair<ThreadId, std::int32_t>>> read_layout_cache(
    TraceStore& store, std::size_t thread_count);

// Writes (replaces) the cache; `rows` as read_layout_cache returns them.
[[nodiscard]] Status write_layout_cache(TraceDatabase& database,
                                        const std::vector<std::pair<ThreadId, std::int32_t>>& rows);

}  // namespace skein
