// capture_writer.cpp — see capture_writer.hpp.
#include "recorder/capture_writer.hpp"

#include <cstring>

#include "runtime/trace_sink.hpp"

namespace skein::capture {

CapturedRecordWriter::CapturedRecordWriter(const StringArena& strings, const SiteTable& sites,
                                           std::size_t site_capacity)
    : strings_(strings), sites_(sites), site_written_(new std::uint8_t[site_capacity]()),
      site_capacity_(site_capacity) {}

void CapturedRecordWriter::reset_sites() noexcept { std::memset(site_written_.get(), 0, site_capacity_); }

void CapturedRecordWriter::write(TraceWriter& out, const CapturedRecord& c) noexcept {
  const TimeNs t = time_of(c);
  switch (static_cast<RecordHead>(c.head)) {
    case RecordHead::spawn: {
      std::optional<SiteId> site;
      if (c.ref < site_capacity_ && c.ref < sites_.size()) {
        if (site_written_[c.ref] == 0) {
          const SiteEntry& e = sites_.entry(c.ref);
          out.write(SiteRecord{c.ref, strings_.get(e.file), e.line, strings_.get(e.function)});
          site_written_[c.ref] = 1;
        }
        site = c.ref;
      }
      out.write(SpawnRecord{t, c.a, c.b, trace::kind_name(static_cast<trace::Kind>(c.code)), site});
      return;
    }
    case RecordHead::label: out.write(LabelRecord{t, c.a, strings_.get(c.ref)}); return;
    case RecordHead::switch_: out.write(SwitchRecord{t, c.a}); return;
    case RecordHead::wait: out.write(WaitRecord{t, c.a, c.b}); return;
    case RecordHead::read: out.write(ReadRecord{t, c.a, c.b}); return;
    case RecordHead::notify:
      out.write(NotifyRecord{t, c.a, c.b, trace::reason_name(static_cast<trace::Reason>(c.code))});
      return;
    case RecordHead::resolve: {
      const auto outcome = static_cast<Outcome>(c.code);
      std::optional<std::string_view> message;
      if (outcome == Outcome::fail) message = strings_.get(c.ref);
      out.write(ResolveRecord{t, c.a, c.b, outcome, message});
      return;
    }
    case RecordHead::merge: out.write(MergeRecord{t, c.a, c.b}); return;
    case RecordHead::counter: out.write(CounterRecord{t, strings_.get(c.ref), c.b}); return;
    case RecordHead::idle: out.write(IdleRecord{t}); return;
    case RecordHead::lost: out.write(LostRecord{t, c.a}); return;
    case RecordHead::gc: out.write(GcRecord{t, c.a}); return;
    case RecordHead::end: out.write(EndRecord{t}); return;
    case RecordHead::site: return;  // sites travel in the site table, not as records
  }
}

}  // namespace skein::capture
