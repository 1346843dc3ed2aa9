// view_command_line.hpp — skein-view's command line, `skein-view [TRACE|DB]
// [--from T --to T] [--select ID [--why]] [--finding N] [--export-view
// FILE.png|FILE.svg]`: its options, and what they ask for once parsed and
// checked. Apart from main.cpp and any application object, so that the
// commands other tools print for skein-view (`skein lint`'s "open:" lines)
// are tested against the parser skein-view itself uses.
//
// Invariants:
//   - `--` ends the options (QCommandLineParser): `skein-view --finding 1
//     -- -dash.sexp` opens the trace named "-dash.sexp", as does
//     `skein-view ./-dash.sexp --finding 1`, the form `skein lint` prints.
//   - Every value is checked here, and a bad one is a usage error (exit 2)
//     whose message names the option; nothing is opened before that.
//   - Times are record times, as the ruler and every `skein` command read
//     them (recorder/format/FORMAT.md, "Times as Skein shows them").
#pragma once

#include <QCommandLineParser>
#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "recorder/format/record.hpp"

namespace skein {

struct ViewRequest {
  QString trace;  // the first positional argument; empty: open nothing
  std::optional<std::int64_t> from;
  std::optional<std::int64_t> to;
  std::optional<ThreadId> select;
  bool why = false;
  std::optional<std::int64_t> finding;
  QString export_view;  // empty: no export
};

// Adds skein-view's options and positional argument, --help and --version
// among them, to `parser`.
void add_view_options(QCommandLineParser& parser);

// What `parser` (set up by add_view_options, arguments parsed) asks for, or
// the usage error to print after "skein-view: ".
[[nodiscard]] std::variant<ViewRequest, std::string> read_view_request(
    const QCommandLineParser& parser);

}  // namespace skein
