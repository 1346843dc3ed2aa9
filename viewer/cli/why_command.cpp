// why_command.cpp — `skein why DB|TRACE (--thread ID [--at TIME|end] |
// --finding N | --event E)`: the chain of recorded causes that led to a
// record, back to its root or to where the trace holds none
// (viewer/analysis/why_answer.hpp, the engine of the viewer's Why? panel).
//
// The question: a thread at a time (a duration with a unit since the
// trace's origin, as the records' times; `end`, the default, is its last
// record), a lint finding by its number (`skein lint`'s #N: the record it
// was found at), or a record by its event id. A thread at a time is asked
// what woke the turn it runs in, when it runs then, or what ended the wait
// it is in, when it waits (why_answer.hpp); --woke and --wait ask one of
// them whatever it does then. The engine reads the causes `skein lint` stores; a database
// without them is linted first (and the results stored, as `skein lint`
// would).
//
// Output: one step a line, from the record back to the root, times in µs
// since the origin; then the root, or "no recorded cause" with the thread
// that acted and the suspect.
//
// A pending-at-end finding asks about its thread at the end, what ended its
// wait: nothing, and, when the trace records it, the lost wake-up that made
// sure of it (a dropped resolver, a signal nobody heard).
//
// Exit status: 0 the chain ends at a root, 1 it ends at a missing cause or
// a lost wake-up
// (or the TRACE has errors), 2 usage error or unreadable input.
#include <QCommandLineParser>
#include <map>

#include "viewer/cli/command_line.hpp"
#include "viewer/cli/commands.hpp"
#include "viewer/cli/stored_lint_results.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "viewer/analysis/units.hpp"
#include "viewer/analysis/why_answer.hpp"

namespace skein::cli {
namespace {

// The finding's record: anomalies.id is its number (anomaly_table.hpp).
std::optional<std::int64_t> finding_event(TraceStore& store, std::int64_t number, std::optional<ThreadId>& thread,
                                          std::string& rule) {
  auto q = store.database().prepare("SELECT event, thread, rule FROM anomalies WHERE id = ?1");
  if (!q) return std::nullopt;
  q.value().bind(1, number);
  auto row = q.value().step();
  if (!row || !row.value()) return std::nullopt;
  thread = q.value().int64(1);
  rule = std::string(q.value().text(2));
  return q.value().optional_int64(0);
}

}  // namespace

int run_why(const QStringList& args) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Why did a thread act? The chain of recorded causes back to its root (a timer, I/O, the\n"
                     "program's start), or to the place where the trace holds no cause: a missing notification.\n"
                     "Ask about a thread at a time, a lint finding (skein lint's #N), or a record (event id).\n"
                     "A thread at a time is asked what woke the turn it runs in then, or, when it waits then,\n"
                     "what ended the wait (--woke and --wait ask one of them).\n"
                     "Times are since the trace's origin, as in its records.\n"
                     "Exit status: 0 a root, 1 no recorded cause, 2 usage error or unreadable file."));
  parser.addPositionalArgument(QStringLiteral("DB|TRACE"),
                               QStringLiteral("A trace database, or a trace to open through its cache."));
  const QCommandLineOption thread(QStringLiteral("thread"), QStringLiteral("The thread to ask about."),
                                  QStringLiteral("ID"));
  const QCommandLineOption at(QStringLiteral("at"),
                              QStringLiteral("With --thread: its last record at or before TIME (125ms, 300us, 42ns) "
                                             "since the origin, or end (the default)."),
                              QStringLiteral("TIME|end"), QStringLiteral("end"));
  const QCommandLineOption finding(QStringLiteral("finding"),
                                   QStringLiteral("The lint finding numbered N (skein lint prints #N)."),
                                   QStringLiteral("N"));
  const QCommandLineOption event(QStringLiteral("event"), QStringLiteral("The record with this event id."),
                                 QStringLiteral("E"));
  const QCommandLineOption woke(QStringLiteral("woke"),
                                QStringLiteral("With --thread: ask what woke the turn it runs in at TIME (or its "
                                               "last turn before)."));
  const QCommandLineOption wait(QStringLiteral("wait"),
                                QStringLiteral("With --thread: ask what ended the wait it is in at TIME (its next "
                                               "turn, or its resolve)."));
  parser.addOption(thread);
  parser.addOption(at);
  parser.addOption(woke);
  parser.addOption(wait);
  parser.addOption(finding);
  parser.addOption(event);
  int exit_code = kExitOk;
  if (!parse_command_line(parser, args, QStringLiteral("why"), exit_code)) return exit_code;
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 1)
    return usage_error(QStringLiteral("why"), positional.isEmpty()
                                                  ? QStringLiteral("missing DB|TRACE")
                                                  : QStringLiteral("expected one DB|TRACE, got %1").arg(positional.size()));
  const int asked = int(parser.isSet(thread)) + int(parser.isSet(finding)) + int(parser.isSet(event));
  if (asked != 1)
    return usage_error(QStringLiteral("why"), QStringLiteral("ask one question: --thread ID, --finding N or --event E"));
  if (parser.isSet(at) && !parser.isSet(thread))
    return usage_error(QStringLiteral("why"), QStringLiteral("--at goes with --thread"));
  if ((parser.isSet(woke) || parser.isSet(wait)) && !parser.isSet(thread))
    return usage_error(QStringLiteral("why"), QStringLiteral("--woke and --wait go with --thread"));
  if (parser.isSet(woke) && parser.isSet(wait))
    return usage_error(QStringLiteral("why"), QStringLiteral("ask one of --woke and --wait"));
  const auto integer = [&](const QCommandLineOption& o, std::int64_t& out, std::int64_t min) {
    bool ok = false;
    out = parser.value(o).toLongLong(&ok);
    return ok && out >= min;
  };
  WhyQuestion question;
  std::int64_t number = 0;
  if (parser.isSet(thread)) {
    std::int64_t id = 0;
    if (!integer(thread, id, kScheduler))
      return usage_error(QStringLiteral("why"), QStringLiteral("--thread takes a thread id (an integer)"));
    question.thread = id;
    if (parser.isSet(woke)) question.ask = WhyAsk::woke;
    if (parser.isSet(wait)) question.ask = WhyAsk::ended_wait;
    const QString when = parser.value(at);
    if (when != QLatin1String("end")) {
      const auto ns = parse_duration_ns(when.toStdString());
      if (!ns || *ns < 0)
        return usage_error(QStringLiteral("why"),
                           QStringLiteral("--at takes a time with a unit (125ms, 300us, 42ns) or end, not '%1'").arg(when));
      question.at = *ns;
    }
  } else if (parser.isSet(finding)) {
    if (!integer(finding, number, 1))
      return usage_error(QStringLiteral("why"), QStringLiteral("--finding takes a finding's number (1, 2, ...)"));
  } else {
    std::int64_t id = 0;
    if (!integer(event, id, 1))
      return usage_error(QStringLiteral("why"), QStringLiteral("--event takes an event id (1, 2, ...)"));
    question.event = id;
  }

  const std::string path = positional.first().toStdString();
  auto opened = open_store_or_report(path, exit_code);
  if (!opened) return exit_code;
  // The engine reads the causes the lints store: lint first when missing.
  if (!ensure_lint_results(opened, path, LintNeeds::findings_and_causes, "why", exit_code)) return exit_code;
  TraceStore& store = *opened->store;
  if (parser.isSet(finding)) {
    std::optional<ThreadId> finding_thread;
    std::string rule;
    const auto at_event = finding_event(store, number, finding_thread, rule);
    if (!finding_thread)
      return usage_error(QStringLiteral("why"), QStringLiteral("no finding #%1 (skein lint numbers them)").arg(number));
    if (rule == "pending-at-end") {
      // A promise pending at the end: what ended its wait (nothing), and
      // what made sure nothing would, when the trace records it.
      question.thread = *finding_thread;
      question.ask = WhyAsk::ended_wait;
    } else if (at_event) {
      question.event = *at_event;
    } else {
      question.thread = *finding_thread;
    }
  }
  auto engine = WhyEngine::open(store);
  if (!engine) {
    print_err(engine.error().to_string() + "\n");
    return kExitUsage;
  }
  auto answer = engine.value().answer(question);
  if (!answer) {
    // A fault in the database names it ("DB: damaged ..."); a question
    // the trace cannot answer is the command's own word.
    const Diagnostic& e = answer.error();
    print_err((e.file.empty() ? "skein why: " + e.message : e.to_string()) + "\n");
    return kExitUsage;
  }
  std::map<ThreadId, std::string> labels;
  auto label_q = store.database().prepare("SELECT label FROM threads WHERE id = ?1");
  const auto label_of = [&](ThreadId t) -> std::string {
    if (!label_q) return {};
    if (const auto it = labels.find(t); it != labels.end()) return it->second;
    label_q.value().bind(1, static_cast<std::int64_t>(t));
    auto row = label_q.value().step();
    std::string label = row && row.value() && !label_q.value().is_null(0) ? std::string(label_q.value().text(0)) : "";
    label_q.value().reset();
    return labels[t] = label;
  };
  print_out(render_why_text(answer.value(), label_of));
  const WhyEnd end = answer.value().end;
  return end == WhyEnd::no_recorded_cause || end == WhyEnd::lost_wake_up ? kExitProblems : kExitOk;
}

}  // namespace skein::cli
