// lint_command.cpp — `skein lint DB|TRACE [--format text|json] [--rules
// a,b] [--block-ms MS] [--no-store]`: runs the lints (viewer/analysis/LINTS.md) over
// a trace database, or a trace of any format through its cache database
// (recorder/store/opened_store.hpp), prints the findings and stores them in the
// database's `anomalies` table (viewer/analysis/anomaly_table.hpp) for the
// viewer.
//
// Every rule runs; --rules chooses which findings are printed (and decide
// the exit status), so a finding's number (#N, its place in the full
// report) is the same whatever is printed, and is the N of
// `skein-view TRACE --finding N` and of `skein why TRACE --finding N`.
//
// Output: text grouped by rule, most severe first (viewer/analysis/lint_text.hpp),
// each finding numbered and followed by the command that opens it in the
// viewer, ready to paste (the path quoted for the shell, and "./" before a
// path that starts with '-'); or with --format json one JSON document:
//   {"counts":{"RULE":N...},"findings":[{"event","from","group","label",
//   "message","number","rule","severity","site","suspect","thread",
//   "time_ns"}...]}
// with thread ids as in the source trace (null where a field does not apply),
// "label" and "site" ({"file","function","line"}) those of the thread the
// finding is about (null when it has none, or is not a thread of the
// trace), laid out as QJsonDocument's Indented format. The trace's text goes
// through recorder/export/output_escape.hpp: terminal_text() in the text,
// the JSON rules in the JSON.
//
// Storing: the findings (`anomalies`, viewer/analysis/anomaly_table.hpp) into
// the cache database of a TRACE (which Skein made, and rebuilds from the
// trace when it changes), or into the DB given; `skein why` and the viewer
// add the replay's verdicts (`transfer_blocks`) when they first need them. A database that cannot be written (a
// read-only file or folder) is linted all the same; a note on stderr says
// the findings were not stored.
//
// Exit status: 0 no findings, 1 findings, 2 usage error or unreadable
// input (and 1 when the TRACE has errors, as for the other commands).
#include <QCommandLineParser>
#include <algorithm>
#include <optional>
#include <unordered_map>
#include <utility>

#include "viewer/cli/command_line.hpp"
#include "viewer/cli/commands.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "viewer/analysis/lint_text.hpp"
#include "recorder/export/output_escape.hpp"
#include "viewer/analysis/units.hpp"

namespace skein::cli {
namespace {

QString rule_list() {
  QStringList names;
  for (const LintRuleId r : all_lint_rules())
    names << QString::fromUtf8(lint_rule_name(r).data(), static_cast<int>(lint_rule_name(r).size()));
  return names.join(QStringLiteral(", "));
}

// What the output says of a thread besides its id, from the threads and
// sites tables: its label and its creation site, each absent when the
// trace has none for it.
struct ThreadFacts {
  std::optional<std::string> label;
  std::optional<StoredSite> site;
};

// The facts of the threads the findings name, looked up as they are
// printed and kept for the next findings that name them; the cache is
// emptied when it reaches kCachedThreads, so printing millions of
// findings holds a bounded number.
class ThreadFactsCache {
 public:
  static constexpr std::size_t kCachedThreads = 1 << 16;
  explicit ThreadFactsCache(TraceStore& store)
      : query_(store.database().prepare(
            "SELECT t.label, s.function, s.file, s.line FROM threads t LEFT JOIN sites s ON s.id = t.site "
            "WHERE t.id = ?1")) {}
  const ThreadFacts& of(ThreadId t) {
    if (const auto it = facts_.find(t); it != facts_.end()) return it->second;
    if (facts_.size() >= kCachedThreads) facts_.clear();
    ThreadFacts& f = facts_[t];
    if (!query_) return f;
    SqliteStatement& q = query_.value();
    q.bind(1, static_cast<std::int64_t>(t));
    auto row = q.step();
    if (row && row.value()) {
      f.label = q.optional_text(0);
      if (!q.is_null(1)) {
        StoredSite site;
        site.function = q.optional_text(1).value_or("");
        site.file = q.optional_text(2).value_or("");
        site.line = q.optional_int64(3).value_or(0);
        f.site = std::move(site);
      }
    }
    q.reset();
    return f;
  }

 private:
  Result<SqliteStatement> query_;
  std::unordered_map<ThreadId, ThreadFacts> facts_;
};

// The JSON report in the layout of QJsonDocument's Indented format (keys in
// byte order, four spaces a level), strings through the JSON rules of
// recorder/export/output_escape.hpp, so that no control character of the
// trace's text reaches the output raw. Written a finding at a time.
class LintJsonWriter {
 public:
  explicit LintJsonWriter(ThreadFactsCache& facts) : facts_(facts) {}

  void begin(const LintReport& report, std::string& out) {
    std::vector<LintRuleId> rules = report.rules;
    std::sort(rules.begin(), rules.end(),
              [](LintRuleId a, LintRuleId b) { return lint_rule_name(a) < lint_rule_name(b); });
    out += "{\n    \"counts\": {\n";
    for (std::size_t i = 0; i < rules.size(); ++i) {
      out += "        ";
      string(out, lint_rule_name(rules[i]));
      out += ": ";
      out += std::to_string(report.counts[static_cast<std::size_t>(rules[i])]);
      out += i + 1 < rules.size() ? ",\n" : "\n";
    }
    out += "    },\n    \"findings\": [\n";
  }

  void add(const LintFinding& f, std::string& out) {
    const ThreadFacts& thread = facts_.of(f.thread);
    const auto field = [&](std::string_view key) {
      out += "            \"";
      out += key;
      out += "\": ";
    };
    const auto optional = [&](const auto& v) {
      if (v) out += std::to_string(static_cast<std::int64_t>(*v));
      else out += "null";
    };
    if (any_) out += ",\n";
    any_ = true;
    out += "        {\n";
    field("event");
    optional(f.event);
    out += ",\n";
    field("from");
    optional(f.from);
    out += ",\n";
    field("group");
    if (f.group.empty()) out += "null";
    else string(out, f.group);
    out += ",\n";
    field("label");
    if (thread.label) string(out, *thread.label);
    else out += "null";
    out += ",\n";
    field("message");
    string(out, f.message);
    out += ",\n";
    field("number");
    out += std::to_string(f.number);
    out += ",\n";
    field("rule");
    string(out, lint_rule_name(f.rule));
    out += ",\n";
    field("severity");
    string(out, lint_severity_name(f.severity));
    out += ",\n";
    field("site");
    if (thread.site) {
      out += "{\n                \"file\": ";
      string(out, thread.site->file);
      out += ",\n                \"function\": ";
      string(out, thread.site->function);
      out += ",\n                \"line\": ";
      out += std::to_string(thread.site->line);
      out += "\n            }";
    } else {
      out += "null";
    }
    out += ",\n";
    field("suspect");
    optional(f.suspect);
    out += ",\n";
    field("thread");
    out += std::to_string(static_cast<std::int64_t>(f.thread));
    out += ",\n";
    field("time_ns");
    out += std::to_string(static_cast<std::int64_t>(f.time));
    out += "\n        }";
  }

  void finish(std::string& out) const { out += any_ ? "\n    ]\n}\n" : "    ]\n}\n"; }

 private:
  static void string(std::string& out, std::string_view s) {
    out += '"';
    append_json_string_contents(out, s);
    out += '"';
  }

  ThreadFactsCache& facts_;
  bool any_ = false;
};

// The trace as skein-view's argument in an "open:" line, a command that
// works when pasted: a path that starts with '-' gets "./" (skein-view
// would read it as options), and the word is quoted for the shell as
// needed (recorder/export/output_escape.hpp: no control byte reaches the
// terminal).
std::string viewer_path_argument(const std::string& path) {
  return shell_word(path.starts_with('-') ? "./" + path : path);
}

}  // namespace

int run_lint(const QStringList& args) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Diagnose a trace: missing notifications, lost wake-ups, unread failures, blocked loops.\n"
                     "Rules (viewer/analysis/LINTS.md): ") +
      rule_list() +
      QStringLiteral(".\nFindings are printed grouped by rule, most severe first, and stored in the database's\n"
                     "'anomalies' table (a TRACE's cache database) for the viewer.\n"
                     "A TRACE file (any format) is imported first into its cache database.\n"
                     "Exit status: 0 no findings, 1 findings (or errors in the TRACE), 2 usage error or\n"
                     "unreadable file."));
  parser.addPositionalArgument(QStringLiteral("DB|TRACE"),
                               QStringLiteral("A trace database, or a trace to open through its cache."));
  const QCommandLineOption format(QStringLiteral("format"), QStringLiteral("Output: text (default) or json."),
                                  QStringLiteral("text|json"), QStringLiteral("text"));
  const QCommandLineOption rules(QStringLiteral("rules"),
                                 QStringLiteral("Print only these rules' findings (comma-separated): ") + rule_list() +
                                     QStringLiteral(". Every rule runs, so numbers do not change."),
                                 QStringLiteral("a,b"));
  const QCommandLineOption block_ms(
      QStringLiteral("block-ms"),
      QStringLiteral("blocking-activation: report activations longer than MS milliseconds (default 10)."),
      QStringLiteral("MS"), QStringLiteral("10"));
  const QCommandLineOption no_store(QStringLiteral("no-store"),
                                    QStringLiteral("Do not store the findings in the database."));
  parser.addOption(format);
  parser.addOption(rules);
  parser.addOption(block_ms);
  parser.addOption(no_store);
  int exit_code = kExitOk;
  if (!parse_command_line(parser, args, QStringLiteral("lint"), exit_code)) return exit_code;
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 1)
    return usage_error(QStringLiteral("lint"),
                       positional.isEmpty()
                           ? QStringLiteral("missing DB|TRACE")
                           : QStringLiteral("expected one DB|TRACE, got %1").arg(positional.size()));
  const QString output = parser.value(format);
  if (output != QLatin1String("text") && output != QLatin1String("json"))
    return usage_error(QStringLiteral("lint"), QStringLiteral("--format takes text or json, not '%1'").arg(output));
  LintOptions options;
  std::vector<LintRuleId> shown;  // empty: every rule's findings
  if (parser.isSet(rules)) {
    for (const QString& name : parser.value(rules).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
      const auto rule = lint_rule_from_name(name.trimmed().toStdString());
      if (!rule)
        return usage_error(QStringLiteral("lint"),
                           QStringLiteral("unknown rule '%1'; the rules are %2").arg(name, rule_list()));
      shown.push_back(*rule);
    }
    if (shown.empty()) return usage_error(QStringLiteral("lint"), QStringLiteral("--rules names no rule"));
  }
  // The causes `skein why` and the viewer walk are stored by them, when
  // they first need them: the lint alone stays a single pass.
  {
    const auto ns = parse_milliseconds_ns(parser.value(block_ms).toStdString(), 1e9);
    if (!ns)
      return usage_error(QStringLiteral("lint"),
                         QStringLiteral("--block-ms needs a number of milliseconds from 0 to 1e9, not '%1'")
                             .arg(parser.value(block_ms)));
    options.settings.block_threshold_ns = *ns;
  }

  const std::string path = positional.first().toStdString();
  auto opened = open_store_or_report(path, exit_code);
  if (!opened) return exit_code;
  TraceStore& store = *opened->store;
  // The findings stay in their spools (lint_run.hpp): printed and stored
  // as they are read back, a trace with millions of them is linted in
  // bounded memory.
  options.findings_in_memory = false;
  auto report = lint_store(store, options);
  if (!report) {
    print_err(report.error().to_string() + "\n");
    return kExitUsage;
  }
  // What is printed: the chosen rules' findings, numbered as in the full
  // report, written out as they are read back, a megabyte at a time.
  LintReport printed;
  printed.rules = shown.empty() ? report.value().rules : shown;
  std::sort(printed.rules.begin(), printed.rules.end());
  printed.rules.erase(std::unique(printed.rules.begin(), printed.rules.end()), printed.rules.end());
  for (const LintRuleId r : printed.rules)
    printed.counts[static_cast<std::size_t>(r)] = report.value().counts[static_cast<std::size_t>(r)];
  const auto is_printed = [&](LintRuleId r) {
    return std::find(printed.rules.begin(), printed.rules.end(), r) != printed.rules.end();
  };
  constexpr std::size_t kOutputChunk = std::size_t{1} << 20;
  std::string out;
  std::uint64_t printed_findings = 0;
  Status read;
  // The facts' statement is done with before the connection closes.
  {
    ThreadFactsCache facts(store);
    const auto write_printed = [&](auto& writer) {
      return for_each_finding(report.value(), [&](const LintFinding& f) {
        if (!is_printed(f.rule)) return true;
        ++printed_findings;
        writer.add(f, out);
        if (out.size() >= kOutputChunk) print_out(std::exchange(out, std::string()));
        return true;
      });
    };
    if (output == QLatin1String("json")) {
      LintJsonWriter writer(facts);
      writer.begin(printed, out);
      read = write_printed(writer);
      if (read.ok()) writer.finish(out);
    } else {
      const std::string quoted = viewer_path_argument(path);
      LintTextWriter writer(
          printed,
          [&](ThreadId t) { return facts.of(t).label.value_or(std::string()); },
          [&](std::uint32_t n) { return "skein-view " + quoted + " --finding " + std::to_string(n); });
      read = write_printed(writer);
      if (read.ok()) writer.finish(out);
    }
  }
  print_out(out);
  if (!read.ok()) {
    print_err(read.error().to_string() + "\n");
    return kExitUsage;
  }
  if (!parser.isSet(no_store)) {
    // A TRACE's database is its cache, which the trace rebuilds.
    const WriteDurability durability =
        opened->database_path != path ? WriteDurability::rebuildable : WriteDurability::durable;
    const std::shared_ptr<TraceDatabase> owner = opened->store->owner();
    opened.reset();  // close the read-only connection before writing
    if (Status s = store_lint_report(*owner, report.value(), durability); !s.ok())
      print_err("skein lint: note: the findings were not stored: " + s.error().to_string() + "\n");
  }
  return printed_findings == 0 ? kExitOk : kExitProblems;
}

}  // namespace skein::cli
