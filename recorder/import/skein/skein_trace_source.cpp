// skein_trace_source.cpp — TraceReader adapted to TraceSource. Invariant:
// the adapter adds nothing of its own to the stream: every record, error,
// warning and the truncation flag come from the reader, in its order, so a
// Skein trace imports exactly as `skein check` reads it.
#include "recorder/import/skein/skein_trace_source.hpp"

#include <utility>

#include "recorder/format/trace_reader.hpp"

namespace skein {
namespace {

class SkeinTraceSource final : public TraceSource {
 public:
  SkeinTraceSource(std::unique_ptr<ByteSource> source, std::string name)
      : TraceSource("skein", name), reader_(std::move(source), std::move(name)) {}

  Step next() override {
    const TraceReader::Step step = reader_.next();
    if (!have_header_) {
      if (const TraceHeader* h = reader_.header()) {
        header_ = *h;
        have_header_ = true;
      }
    }
    if (reader_.warning_count() != warning_count_) {
      const auto& all = reader_.warnings();
      warnings_.insert(warnings_.end(),
                       all.begin() + static_cast<std::ptrdiff_t>(warnings_.size()), all.end());
      warning_count_ = reader_.warning_count();
    }
    truncated_ = reader_.truncated();
    switch (step) {
      case TraceReader::Step::record: record_ = reader_.record(); return Step::record;
      case TraceReader::Step::error: error_ = reader_.error(); return Step::error;
      case TraceReader::Step::end: break;
    }
    return Step::end;
  }

  std::uint64_t bytes_consumed() const override { return reader_.bytes_consumed(); }
  Diagnostic record_location() const override {
    return Diagnostic{Severity::warning, name(), reader_.line(), 0, {}};
  }

 private:
  TraceReader reader_;
  bool have_header_ = false;
};

}  // namespace

std::unique_ptr<TraceSource> make_skein_trace_source(std::unique_ptr<ByteSource> source, std::string name) {
  return std::make_unique<SkeinTraceSource>(std::move(source), std::move(name));
}

}  // namespace skein
