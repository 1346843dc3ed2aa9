// trace_reader.cpp — finding lines in a byte stream and handing them to
// RecordLineParser; see trace_reader.hpp.
#include "recorder/trace_reader.hpp"

#include <algorithm>
#include <cstring>

#include "recorder/record_line_parser.hpp"

namespace skein {
namespace {

// The buffer starts small (most traces in tests and fuzzing are tiny) and
// doubles while reads fill it, up to kChunkBytes per read.
constexpr std::size_t kFirstBufferBytes = 16 * 1024;
constexpr std::size_t kChunkBytes = 256 * 1024;
constexpr std::size_t kMaxKeptWarnings = 100;
constexpr std::size_t kMaxUnknownHeads = 256;

}  // namespace

struct TraceReader::State {
  std::unique_ptr<ByteSource> source;
  std::string name;
  RecordLineParser parser;

  // buffer[pos, filled) holds bytes not yet consumed; scanned marks how far
  // the search for '\n' has looked, so a long line is not searched twice.
  std::vector<char> buffer = std::vector<char>(kFirstBufferBytes);
  std::size_t pos = 0;
  std::size_t filled = 0;
  std::size_t scanned = 0;
  bool eof = false;
  bool last_read_filled = false;
  bool done = false;
  bool skipping_long_line = false;

  std::uint64_t line = 0;  // the line last handed out
  bool have_header = false;
  TraceHeader header;
  Record record;
  Diagnostic error;
  std::vector<Diagnostic> warnings;
  std::uint64_t warning_count = 0;
  std::vector<UnknownHead> unknown_heads;
  bool truncated = false;

  void warn(std::uint64_t at_line, std::uint32_t column, std::string message) {
    ++warning_count;
    if (warnings.size() < kMaxKeptWarnings)
      warnings.push_back(Diagnostic{Severity::warning, name, at_line, column, std::move(message)});
  }

  Step fail(std::uint64_t at_line, std::uint32_t column, std::string message) {
    error = Diagnostic{Severity::error, name, at_line, column, std::move(message)};
    return Step::error;
  }

  // Reads more input after buffer[filled]; moves unconsumed bytes to the
  // front first. Returns false on a read error (already in `error`).
  bool fill() {
    if (pos > 0) {
      std::memmove(buffer.data(), buffer.data() + pos, filled - pos);
      filled -= pos;
      scanned -= pos;
      pos = 0;
    }
    // Grow when a partial line fills half the buffer (long lines, bounded by
    // kMaxLineBytes) or when reads keep filling it (big files).
    if (buffer.size() - filled < buffer.size() / 2 || (last_read_filled && buffer.size() < kChunkBytes))
      buffer.resize(std::max(buffer.size() * 2, filled + kFirstBufferBytes));
    const std::size_t room = buffer.size() - filled;
    auto got = source->read(std::span<char>(buffer.data() + filled, room));
    if (!got) {
      error = got.error();
      return false;
    }
    if (got.value() == 0) {
      eof = true;
      if (source->cut_short()) {
        truncated = true;
        warn(0, 0, "the compressed stream ends early: the trace was cut short");
      }
    }
    last_read_filled = got.value() == room;
    filled += got.value();
    return true;
  }

  void note_unknown(std::string_view head) {
    for (auto& u : unknown_heads)
      if (u.name == head) {
        ++u.count;
        return;
      }
    if (unknown_heads.size() < kMaxUnknownHeads) {
      unknown_heads.push_back(UnknownHead{std::string(head), 1});
      warn(line, 2,
           "unknown record head '" + std::string(head) +
               "': skipped (later records with this head are skipped and counted silently)");
    } else {
      warn(line, 2, "unknown record head '" + std::string(head) + "': skipped");
    }
  }

  // Handles one complete line. `last_unterminated`: the final line of the
  // input had no newline, so a parse failure there is a truncation.
  Step handle_line(std::string_view text, bool last_unterminated, bool& produced) {
    produced = false;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    if (!have_header) {
      const LineKind kind = parser.parse_header(text, header);
      if (kind == LineKind::blank) return Step::record;  // keep looking
      if (kind == LineKind::error) {
        done = true;
        if (last_unterminated) {
          truncated = true;
          return fail(line, parser.error_column(),
                      "the trace ends inside its header: " + parser.error_message());
        }
        std::string message = parser.error_message();
        if (text.rfind("((time", 0) == 0 || text.rfind("((", 0) == 0)
          message += " (this looks like a 2014 MirageOS trace: 'skein import' reads those)";
        return fail(line, parser.error_column(), std::move(message));
      }
      have_header = true;
      return Step::record;
    }
    switch (parser.parse_record(text, record)) {
      case LineKind::blank: return Step::record;
      case LineKind::record: produced = true; return Step::record;
      case LineKind::unknown_head: note_unknown(parser.unknown_head()); return Step::record;
      case LineKind::header:
        return fail(line, 2, "a second header: a trace has one '(skein-trace ...)' line, the first");
      case LineKind::error:
        if (last_unterminated) {
          truncated = true;
          warn(line, parser.error_column(),
               "the last line is cut short (" + parser.error_message() +
                   "): the trace was truncated; everything before it was read");
          return Step::end;
        }
        return fail(line, parser.error_column(), parser.error_message());
    }
    return Step::record;
  }

  Step next() {
    for (;;) {
      if (done) return Step::end;
      // Look for the end of the current line.
      const char* base = buffer.data();
      const void* nl = std::memchr(base + scanned, '\n', filled - scanned);
      if (nl == nullptr) {
        scanned = filled;
        if (!eof) {
          if (filled - pos > kMaxLineBytes) {
            // Drop the long line's bytes so far; keep skipping to its end.
            if (!skipping_long_line) {
              skipping_long_line = true;
              ++line;
              pos = scanned = filled;
              return fail(line, 0, "line longer than 1 MiB (1048576 bytes)");
            }
            pos = scanned = filled;
          }
          if (!fill()) {
            done = true;
            return Step::error;
          }
          continue;
        }
        // End of input.
        done = true;
        if (pos == filled || skipping_long_line) return finish();
        ++line;
        bool produced = false;
        const Step step = handle_line(std::string_view(base + pos, filled - pos), true, produced);
        pos = filled;
        if (step == Step::error || produced) return step;
        return finish();
      }
      const auto at = static_cast<std::size_t>(static_cast<const char*>(nl) - base);
      std::string_view text(base + pos, at - pos);
      pos = scanned = at + 1;
      if (skipping_long_line) {
        skipping_long_line = false;
        continue;
      }
      ++line;
      bool produced = false;
      const Step step = handle_line(text, false, produced);
      if (step == Step::error || step == Step::end || produced) return step;
    }
  }

  Step finish() {
    if (!have_header && error.message.empty()) {
      return fail(line == 0 ? 1 : line, 0,
                  line == 0 ? "empty input: expected the header '(skein-trace 1 ...)'"
                            : "no header: expected '(skein-trace 1 ...)' before the end");
    }
    return Step::end;
  }
};

TraceReader::TraceReader(std::unique_ptr<ByteSource> source, std::string name)
    : s_(std::make_unique<State>()) {
  s_->source = std::move(source);
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
std::uint64_t TraceReader::line() const { return s_->line; }
const std::string& TraceReader::name() const { return s_->name; }
std::uint64_t TraceReader::bytes_consumed() const { return s_->source->raw_offset(); }

}  // namespace skein
