// store_tables.hpp — a trace database's content as one text, for tests that
// compare two databases (the sexp round trip: import, export, import again
// must give the same tables). Every table of SCHEMA.md in key order, as
// store_query.hpp's query() prints it, with two exceptions that
// recorder/export/sexp_export.hpp spells out: the meta rows that describe the file
// read rather than the trace (format, source, its stamp, truncated,
// warnings.source and the total of warnings), and in the warnings table the
// reader's own warnings (kind `source`) and every message (messages name
// lines of the file read; kind and event are kept).
#pragma once

#include <string>

#include "tests/support/store_query.hpp"

namespace skein::test {

inline std::string trace_tables_text(const std::string& db) {
  static const char* const kQueries[] = {
      "SELECT key, typeof(value), value FROM meta WHERE key NOT IN ('format', 'source', 'source_size', "
      "'source_mtime_ns', 'source_head_crc32', 'truncated', 'warnings', 'warnings.source') ORDER BY key",
      "SELECT * FROM heads ORDER BY id",
      "SELECT id, typeof(time), time, head, actor, target, value, typeof(text), hex(text) FROM events ORDER BY id",
      "SELECT id, first_event, last_event, start, end, first_activation, last_activation FROM event_blocks "
      "ORDER BY id",
      "SELECT id, hex(file), line, hex(function) FROM sites ORDER BY id",
      "SELECT id, parent, kind, site, hex(label), created, first_run, resolved, outcome, hex(failure), "
      "merged_into, run_time, implicit, first_event, last_event, first_activation, last_activation "
      "FROM threads ORDER BY id",
      "SELECT * FROM activations ORDER BY id",
      "SELECT name, time, value, event FROM counters ORDER BY name, time, value, event",
      "SELECT kind, event FROM warnings WHERE kind <> 'source' ORDER BY id",
      "SELECT id, start, end FROM thread_spans ORDER BY id",
  };
  std::string out;
  for (const char* sql : kQueries) {
    out += "-- ";
    out += sql;
    out += '\n';
    out += query(db, sql);
  }
  return out;
}

}  // namespace skein::test
