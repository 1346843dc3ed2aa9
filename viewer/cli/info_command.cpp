// info_command.cpp — `skein info DB|TRACE`: what a trace database holds:
// the source trace and its format, records per head, threads, time span,
// how the trace ended, and the warnings of its import.
//
// A TRACE (any format) is opened through its cache database, imported
// first when missing or stale (recorder/store/opened_store.hpp). The report goes to
// standard output, the warnings (FILE:LINE:COL) to standard error, the text
// the database holds in both through terminal_text()
// (recorder/export/output_escape.hpp): a database made elsewhere can hold any
// bytes, and none of them may reach the terminal as a command. Counts are
// in columns that widen for a wide name or number rather than touch, and a
// sum of lost records past what a count holds is shown as such. Exit 0
// when the database opens, 1 when the TRACE has errors, 2 on usage errors
// or a file that is neither a trace nor a Skein database.
#include <QCommandLineParser>
#include <algorithm>
#include <limits>
#include <vector>

#include "recorder/store/store_schema.hpp"

#include "viewer/cli/command_line.hpp"
#include "viewer/cli/commands.hpp"
#include "recorder/export/output_escape.hpp"
#include "viewer/analysis/units.hpp"

namespace skein::cli {
namespace {

// The report's counts: a name column and a number column, the numbers
// right-aligned, with the report's other lines kept where they were added.
// Each column is as wide as its widest cell (at least 14 and 12, the
// usual widths) and a name is followed by two spaces at least, so a name
// and a number never run together, whatever their widths.
class CountTable {
 public:
  void add(const std::string& name, int indent, std::string number, std::string note = "") {
    lines_.push_back(Line{std::string(static_cast<std::size_t>(indent), ' ') + name, std::move(number),
                          std::move(note), true});
  }
  void add(const std::string& name, int indent, std::uint64_t n, std::string note = "") {
    add(name, indent, group_thousands(static_cast<std::int64_t>(n)), std::move(note));
  }
  // A line of its own between the rows, as it is ("\n" included).
  void add_line(std::string text) { lines_.push_back(Line{std::move(text), "", "", false}); }

  [[nodiscard]] std::string text() const {
    std::size_t name_width = 14;
    std::size_t number_width = 12;
    for (const Line& l : lines_) {
      if (!l.counted) continue;
      name_width = std::max(name_width, l.name.size() + 2);
      number_width = std::max(number_width, l.number.size());
    }
    std::string out;
    for (const Line& l : lines_) {
      if (!l.counted) {
        out += l.name;
        continue;
      }
      out += l.name + std::string(name_width - l.name.size(), ' ');
      out += std::string(number_width - l.number.size(), ' ') + l.number + l.note + "\n";
    }
    return out;
  }

 private:
  struct Line {
    std::string name;  // or the whole line, when not counted
    std::string number;
    std::string note;
    bool counted = true;
  };
  std::vector<Line> lines_;
};

}  // namespace

int run_info(const QStringList& args) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "Describe a trace database: the trace it was imported from and its format, records per\n"
      "head, threads, time span, and the warnings of the import (on standard error).\n"
      "A TRACE file (any format) is imported first into its cache database, TRACE.skein.db\n"
      "beside it or in $XDG_CACHE_HOME/skein, and the cache is reused while TRACE is unchanged.\n"
      "Exit status: 0 success, 1 errors in the TRACE, 2 usage error or unreadable file."));
  parser.addPositionalArgument(QStringLiteral("DB|TRACE"),
                               QStringLiteral("A trace database, or a trace to open through its cache."));
  const QCommandLineOption max_warnings(QStringLiteral("max-warnings"),
                                        QStringLiteral("Print at most N warnings (default 20)."),
                                        QStringLiteral("N"), QStringLiteral("20"));
  parser.addOption(max_warnings);
  int exit_code = kExitOk;
  if (!parse_command_line(parser, args, QStringLiteral("info"), exit_code)) return exit_code;
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 1)
    return usage_error(QStringLiteral("info"),
                       positional.isEmpty()
                           ? QStringLiteral("missing DB|TRACE")
                           : QStringLiteral("expected one DB|TRACE, got %1").arg(positional.size()));
  bool number_ok = false;
  const int limit = parser.value(max_warnings).toInt(&number_ok);
  if (!number_ok || limit < 0)
    return usage_error(QStringLiteral("info"), QStringLiteral("--max-warnings needs a number >= 0"));

  const std::string path = positional.first().toStdString();
  auto opened = open_store_or_report(path, exit_code);
  if (!opened) return exit_code;
  TraceStore& store = *opened->store;

  auto counts = store.record_counts();
  auto threads = store.thread_counts();
  auto warnings = store.warnings();
  if (!counts || !threads || !warnings) {
    print_err((!counts ? counts.error() : !threads ? threads.error() : warnings.error()).to_string() + "\n");
    return kExitUsage;
  }

  std::string out = path + ": Skein trace database, schema " + std::to_string(kStoreSchemaVersion) + "\n";
  const auto text = [&](std::string_view key) { return terminal_text(store.meta_text(key).value_or("?")); };
  out += "  trace        " + text("source") + " (" + text("format") + ")\n";
  if (opened->database_path != path)
    out += "  database     " + opened->database_path + (opened->imported ? " (imported now)" : " (cached)") +
           "\n";
  if (const auto process = store.meta_text("header.process")) {
    out += "  process      \"" + terminal_text(*process) + "\"";
    if (const auto pid = store.meta_text("header.pid")) out += ", pid " + terminal_text(*pid);
    out += "\n";
  }
  CountTable table;
  table.add("records", 2, static_cast<std::uint64_t>(store.meta_int("records").value_or(0)));
  for (const HeadCount& c : counts.value())
    if (c.records > 0) table.add(terminal_text(c.head), 4, c.records);
  const ThreadCounts& t = threads.value();
  table.add("threads", 2, t.total,
            "  (" + group_thousands(static_cast<std::int64_t>(t.implicit)) + " implicit, " +
                group_thousands(static_cast<std::int64_t>(t.failed)) + " failed, " +
                group_thousands(static_cast<std::int64_t>(t.pending)) + " pending at the end)");
  const auto first = store.meta_int("first_time");
  const auto end = store.meta_int("end_time");
  if (first && end)
    table.add_line("  time span    " + format_duration_ns(*first) + " to " + format_duration_ns(*end) + " (" +
                   format_duration_ns(*end - *first) + ")\n");
  else
    table.add_line("  time span    none (no timed records)\n");
  table.add_line(std::string("  end          ") +
                 (store.meta_int("ended").value_or(0) != 0
                      ? "clean: (end) record present\n"
                      : (store.meta_int("truncated").value_or(0) != 0 ? "none: the trace was cut short\n"
                                                                       : "none: no (end) record\n")));
  if (const auto lost = store.meta_int("lost_records"); lost && *lost > 0) {
    // A sum held at INT64_MAX says so (SCHEMA.md, lost_records_saturated);
    // a database made before that key was kept may hold one unmarked.
    const auto saturated = store.meta_int("lost_records_saturated");
    if (saturated.value_or(0) != 0)
      table.add("lost records", 2, "more than " + group_thousands(*lost),
                "  (saturated: the (lost COUNT) records add up past the largest count a database holds)");
    else if (!saturated && *lost == std::numeric_limits<std::int64_t>::max())
      table.add("lost records", 2, "at least " + group_thousands(*lost),
                "  (the largest count a database holds: the (lost COUNT) records may add up past it)");
    else
      table.add("lost records", 2, static_cast<std::uint64_t>(*lost));
  }
  table.add("warnings", 2, static_cast<std::uint64_t>(store.meta_int("warnings").value_or(0)));
  out += table.text();

  std::string diagnostics;
  const auto& w = warnings.value();
  for (std::size_t i = 0; i < std::min(w.size(), static_cast<std::size_t>(limit)); ++i)
    diagnostics += terminal_text(w[i].message) + "\n";
  const auto total = static_cast<std::uint64_t>(store.meta_int("warnings").value_or(0));
  const std::size_t shown = std::min(w.size(), static_cast<std::size_t>(limit));
  if (total > shown)
    diagnostics +=
        "... and " + counted(total - shown, "more warning", "more warnings") + "\n";
  print_err(diagnostics);
  print_out(out);
  return kExitOk;
}

}  // namespace skein::cli
