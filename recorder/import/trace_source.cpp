// trace_source.cpp — format detection: open_trace() reads until the first
// bytes tell the format, then replays them to that format's source (one
// folder each under import/). Invariants: detection never consumes input a
// source will not see again (the bytes read are replayed, so line numbers
// and offsets count from the file's start), and content that fits no format
// is an error from next(), never from opening, as trace_source.hpp states.
#include "recorder/import/trace_source.hpp"

#include <algorithm>
#include <array>

#include "recorder/import/ctf/ctf_importer.hpp"
#include "recorder/import/mirage_sexp/mirage_sexp_importer.hpp"
#include "recorder/import/skein/skein_trace_source.hpp"

namespace skein {
namespace {

// A trace whose content is wrong before its format could be told: its
// compressed data is corrupt, or it is empty, or its first bytes are in no
// format Skein reads. The file was opened and read; what it holds is wrong,
// which is an error in the trace (exit status 1 from every command, as
// `skein check` reports the same input), not an unreadable file (2: the file
// cannot be opened or read at all). So the error comes from next(), like any
// error in a trace's content, and open_trace() succeeds.
class CorruptTraceSource final : public TraceSource {
 public:
  CorruptTraceSource(Diagnostic error, std::uint64_t consumed, std::string name)
      : TraceSource("unknown", std::move(name)), consumed_(consumed) {
    error_ = std::move(error);
  }

  Step next() override {
    if (reported_) return Step::end;
    reported_ = true;
    return Step::error;
  }
  std::uint64_t bytes_consumed() const override { return consumed_; }

 private:
  std::uint64_t consumed_ = 0;
  bool reported_ = false;
};

enum class Format : std::uint8_t { skein, mirage_sexp, mirage_ctf, empty, unknown, undecided };

constexpr std::array<unsigned char, 4> kCtfMagicBytes = {0xc1, 0x1f, 0xfc, 0xc1};
// Enough bytes after the first non-blank one to tell the text formats apart.
constexpr std::size_t kDecideBytes = 16;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// Decides from the first bytes; `at_end`: there are no more.
Format classify(std::string_view head, bool at_end) {
  if (head.size() < kCtfMagicBytes.size() && !at_end &&
      std::equal(head.begin(), head.end(), kCtfMagicBytes.begin(),
                 [](char a, unsigned char b) { return static_cast<unsigned char>(a) == b; }))
    return Format::undecided;
  if (head.size() >= kCtfMagicBytes.size() &&
      std::equal(kCtfMagicBytes.begin(), kCtfMagicBytes.end(), head.begin(),
                 [](unsigned char a, char b) { return a == static_cast<unsigned char>(b); }))
    return Format::mirage_ctf;
  std::size_t i = 0;
  while (i < head.size() && is_blank(head[i])) ++i;
  const std::string_view text = head.substr(i);
  if (text.size() < kDecideBytes && !at_end) return Format::undecided;
  if (text.empty()) return Format::empty;
  if (text[0] == ';' || starts_with(text, "(skein-trace")) return Format::skein;
  if (starts_with(text, "((time ")) return Format::mirage_sexp;
  return Format::unknown;
}

constexpr const char* kExpectedFormats =
    "expected a Skein trace (a first line '(skein-trace ...'), a 2014 MirageOS trace "
    "(lines '((time ...') or a mirage-profile CTF trace (packets starting c1 1f fc c1)";

}  // namespace

TraceSource::TraceSource(std::string_view format_name, std::string name)
    : format_name_(format_name), name_(std::move(name)) {}
TraceSource::~TraceSource() = default;

Diagnostic TraceSource::record_location() const { return Diagnostic{Severity::warning, name_, 0, 0, {}}; }

void TraceSource::warn(std::uint64_t line, std::uint32_t column, std::string message) {
  ++warning_count_;
  if (warnings_.size() < kMaxKeptWarnings)
    warnings_.push_back(Diagnostic{Severity::warning, name_, line, column, std::move(message)});
}

TraceSource::Step TraceSource::fail(std::uint64_t line, std::uint32_t column, std::string message) {
  error_ = Diagnostic{Severity::error, name_, line, column, std::move(message)};
  return Step::error;
}

Result<std::unique_ptr<TraceSource>> open_trace_source(std::unique_ptr<ByteSource> source,
                                                       std::string name) {
  // Read until the format is clear; keep every byte read, to replay it.
  std::string head;
  Format format = Format::undecided;
  bool at_end = false;
  char chunk[4096];
  while (format == Format::undecided) {
    if (head.size() >= kMaxDetectBytes) {
      format = classify(head, true);
      break;
    }
    const std::size_t want = std::min(sizeof chunk, kMaxDetectBytes - head.size());
    auto got = source->read(std::span<char>(chunk, want));
    if (!got && source->corrupt())
      return std::unique_ptr<TraceSource>(
          std::make_unique<CorruptTraceSource>(got.error(), source->raw_offset(), std::move(name)));
    if (!got) return got.error();
    at_end = got.value() == 0;
    head.append(chunk, got.value());
    format = classify(head, at_end);
  }
  auto replayed = replay_input(std::move(head), std::move(source));
  std::unique_ptr<TraceSource> trace;
  switch (format) {
    case Format::skein:
      trace = make_skein_trace_source(std::move(replayed), std::move(name));
      break;
    case Format::mirage_sexp:
      trace = std::make_unique<MirageSexpImporter>(std::move(replayed), std::move(name));
      break;
    case Format::mirage_ctf:
      trace = std::make_unique<CtfImporter>(std::move(replayed), std::move(name));
      break;
    case Format::empty:
      return std::unique_ptr<TraceSource>(std::make_unique<CorruptTraceSource>(
          Diagnostic{Severity::error, name, 1, 0, std::string("empty input: ") + kExpectedFormats}, 0,
          std::move(name)));
    case Format::unknown:
    case Format::undecided:
      // Where the format could not be told: the file's first byte.
      return std::unique_ptr<TraceSource>(std::make_unique<CorruptTraceSource>(
          Diagnostic{Severity::error, name, 1, 1, std::string("unknown trace format: ") + kExpectedFormats}, 0,
          std::move(name)));
  }
  return trace;
}

Result<std::unique_ptr<TraceSource>> open_trace(const std::string& path) {
  auto source = open_input(path);
  if (!source) return source.error();
  return open_trace_source(std::move(source).value(), display_name(path));
}

Result<std::unique_ptr<TraceSource>> open_trace_memory(std::string_view bytes, std::string name) {
  return open_trace_source(memory_input(bytes, name), name);
}

}  // namespace skein
