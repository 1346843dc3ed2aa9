// trace_reader.cpp — lines from LineSplitter handed to RecordLineParser; see
// trace_reader.hpp.
#include "recorder/format/trace_reader.hpp"

#include "recorder/format/record_line_parser.hpp"

namespace skein {
namespace {

constexpr std::size_t kMaxKeptWarnings = 100;
constexpr std::size_t kMaxUnknownHeads = 256;

}  // namespace

struct TraceReader::State {
  explicit State(std::unique_ptr<ByteSource> source) : lines(std::move(source)) {}

  LineSplitter lines;
  std::string name;
  RecordLineParser parser;
  bool done = false;

  bool have_header = false;
  bool saw_text = false;  // a line before the header held more than blanks
  TraceHeader header;
  Record record;
  Diagnostic error;
  std::vector<Diagnostic> warnings;
  std::uint64_t warning_count = 0;
  std::vector<UnknownHead> unknown_heads;
  bool truncated = false;

  std::uint64_t line() const { return lines.line_number(); }

  void warn(std::uint64_t at_line, std::uint32_t column, std::string message) {
    ++warning_count;
    if (warnings.size() < kMaxKeptWarnings)
      warnings.push_back(Diagnostic{Severity::warning, name, at_line, column, std::move(message)});
  }

  Step fail(std::uint64_t at_line, std::uint32_t column, std::string message) {
    error = Diagnostic{Severity::error, name, at_line, column, std::move(message)};
    return Step::error;
  }

  void note_unknown(std::string_view head) {
    for (auto& u : unknown_heads)
      if (u.name == head) {
        ++u.count;
        return;
      }
    if (unknown_heads.size() < kMaxUnknownHeads) {
      unknown_heads.push_back(UnknownHead{std::string(head), 1});
      warn(line(), 2,
           "unknown record head '" + std::string(head) +
               "': skipped (later records with this head are skipped and counted silently)");
    } else {
      warn(line(), 2, "unknown record head '" + std::string(head) + "': skipped");
    }
  }

  // Handles one complete line (CR already removed). `last_unterminated`: the
  // final line of the input had no newline, so a parse failure there is a
  // truncation.
  Step handle_line(std::string_view text, bool last_unterminated, bool& produced) {
    produced = false;
    if (!have_header) {
      if (text.find_first_not_of(" \t") != std::string_view::npos) saw_text = true;
      const LineKind kind = parser.parse_header(text, header);
      if (kind == LineKind::blank) return Step::record;  // keep looking
      if (kind == LineKind::error) {
        done = true;
        if (last_unterminated) {
          truncated = true;
          return fail(line(), parser.error_column(),
                      "the trace ends inside its header: " + parser.error_message());
        }
        std::string message = parser.error_message();
        if (text.rfind("((time", 0) == 0 || text.rfind("((", 0) == 0)
          message += " (this looks like a 2014 MirageOS trace: 'skein import' reads those)";
        return fail(line(), parser.error_column(), std::move(message));
      }
      have_header = true;
      return Step::record;
    }
    switch (parser.parse_record(text, record)) {
      case LineKind::blank: return Step::record;
      case LineKind::record: produced = true; return Step::record;
      case LineKind::unknown_head: note_unknown(parser.unknown_head()); return Step::record;
      case LineKind::header:
        return fail(line(), 2, "a second header: a trace has one '(skein-trace ...)' line, the first");
      case LineKind::error:
        if (last_unterminated) {
          truncated = true;
          warn(line(), parser.error_column(),
               "the last line is cut short (" + parser.error_message() +
                   "): the trace was truncated; everything before it was read");
          return Step::end;
        }
        return fail(line(), parser.error_column(), parser.error_message());
    }
    return Step::record;
  }

  Step next() {
    for (;;) {
      if (done) return Step::end;
      switch (lines.next()) {
        case LineSplitter::Event::line: {
          bool produced = false;
          const Step step = handle_line(lines.text(), lines.unterminated(), produced);
          if (step == Step::error || step == Step::end || produced) return step;
          continue;
        }
        case LineSplitter::Event::too_long:
          // A bad header is fatal; so is a line that never ends (the
          // splitter gave up on the input).
          if (!have_header || lines.gave_up()) done = true;
          // The column of the first byte past the limit, like any other error's.
          return fail(line(), static_cast<std::uint32_t>(kMaxLineBytes + 1), lines.too_long_message());
        case LineSplitter::Event::cut_short:
          truncated = true;
          warn(0, 0, "the compressed stream ends early: the trace was cut short");
          continue;
        case LineSplitter::Event::read_error:
          done = true;
          error = lines.read_error();
          return Step::error;
        case LineSplitter::Event::end:
          done = true;
          return finish();
      }
    }
  }

  Step finish() {
    if (!have_header && error.message.empty()) {
      // Nothing but blanks is empty, at line 1, as open_trace() says of it.
      return fail(saw_text ? line() : 1, 0,
                  saw_text ? "no header: expected '(skein-trace 1 ...)' before the end"
                           : "empty input: expected the header '(skein-trace 1 ...)'");
    }
    return Step::end;
  }
};

TraceReader::TraceReader(std::unique_ptr<ByteSource> source, std::string name)
    : s_(std::make_unique<State>(std::move(source))) {
  s_->name = std::move(name);
}
TraceReader::~TraceReader() = default;
TraceReader::TraceReader(TraceReader&&) noexcept = default;
TraceReader& TraceReader::operator=(TraceReader&&) noexcept = default;

Result<TraceReader> TraceReader::open(const std::string& path) {
  auto source = open_input(path);
  if (!source) return source.error();
  return TraceReader(std::move(source).value(), display_name(path));
}

TraceReader::Step TraceReader::next() { return s_->next(); }
const Record& TraceReader::record() const { return s_->record; }
const Diagnostic& TraceReader::error() const { return s_->error; }
const TraceHeader* TraceReader::header() const { return s_->have_header ? &s_->header : nullptr; }
const std::vector<Diagnostic>& TraceReader::warnings() const { return s_->warnings; }
std::uint64_t TraceReader::warning_count() const { return s_->warning_count; }
const std::vector<UnknownHead>& TraceReader::unknown_heads() const { return s_->unknown_heads; }
bool TraceReader::truncated() const { return s_->truncated; }
std::uint64_t TraceReader::line() const { return s_->line(); }
const std::string& TraceReader::name() const { return s_->name; }
std::uint64_t TraceReader::bytes_consumed() const { return s_->lines.bytes_consumed(); }

}  // namespace skein
