// event_block_codec.cpp — varints and zigzag (varint.hpp) as the header describes,
// read through packed_blob_reader.hpp. The
// decoder keeps one position into the blob and checks, before each read,
// that the bytes it needs are there; arithmetic on times is done in
// unsigned 64 bits and range-checked, so no input overflows a signed value.
#include "recorder/store/event_block_codec.hpp"

#include <limits>

#include "recorder/store/store_schema.hpp"
#include "recorder/store/packed_blob_reader.hpp"
#include "recorder/store/varint.hpp"

namespace skein {
namespace {

constexpr std::uint8_t kHasTime = 1u << 5;
constexpr std::uint8_t kHasActor = 1u << 6;
constexpr std::uint8_t kHasTarget = 1u << 7;
constexpr std::uint8_t kHeadBits = 0x1f;
constexpr std::uint8_t kHasValue = 1u << 0;
constexpr std::uint8_t kHasText = 1u << 1;

// Where a record's fault is: "event_blocks row 3".
struct EventRow {
  const EventBlockPlace& place;
  std::string_view database;
  [[nodiscard]] std::string describe() const { return "event_blocks row " + std::to_string(place.block); }
};

}  // namespace

void EventBlockEncoder::add(const TraceEvent& e) {
  std::uint8_t first = static_cast<std::uint8_t>(e.head) & kHeadBits;
  if (e.has_time) first |= kHasTime;
  if (e.actor != kNoThread) first |= kHasActor;
  if (e.target != kNoThread) first |= kHasTarget;
  std::uint8_t second = 0;
  if (e.has_value) second |= kHasValue;
  if (e.has_text) second |= kHasText;
  bytes_.push_back(static_cast<char>(first));
  bytes_.push_back(static_cast<char>(second));
  if (e.has_time) {
    // Both times are 0..kMaxTime (the reader checked them), so the
    // difference fits.
    put_varint(bytes_, zigzag(e.time - previous_time_));
    previous_time_ = e.time;
  }
  if (e.actor != kNoThread) put_varint(bytes_, zigzag(e.actor));
  if (e.target != kNoThread) put_varint(bytes_, zigzag(e.target));
  if (e.has_value) put_varint(bytes_, zigzag(e.value));
  if (e.has_text) {
    put_varint(bytes_, e.text.size());
    bytes_.append(e.text);
  }
  ++records_;
}

std::string EventBlockEncoder::take() {
  std::string out = std::move(bytes_);
  bytes_.clear();
  bytes_.reserve(out.size());
  previous_time_ = 0;
  records_ = 0;
  return out;
}

Status decode_event_block(std::string_view blob, const EventBlockPlace& place, std::vector<TraceEvent>& out) {
  out.clear();
  const EventRow row{place, place.database};
  PackedBlobReader<EventRow> in(blob, row, "records");
  const std::int64_t count = place.last_event - place.first_event + 1;
  if (place.first_event < 1 || count < 1 || count > kEventBlockSize)
    return in.fail(0, "its first_event " + std::to_string(place.first_event) + " and last_event " +
                          std::to_string(place.last_event) + " are not a block of 1 to " +
                          std::to_string(kEventBlockSize) + " records");
  out.reserve(static_cast<std::size_t>(count));
  TimeNs time = 0;
  for (std::int64_t k = 0; k < count; ++k) {
    const std::size_t start = in.at();
    if (in.at_end())
      return in.fail(start, "holds " + std::to_string(k) + " records, and its range " +
                                std::to_string(count));
    TraceEvent e;
    e.id = place.first_event + k;
    std::uint8_t first = 0, second = 0;
    if (Status s = in.byte(first); !s.ok()) return s;
    if (Status s = in.byte(second); !s.ok()) return s;
    const std::uint8_t head = first & kHeadBits;
    if (head >= kRecordHeadCount) return in.fail(start, "record head " + std::to_string(head) + " (heads are 0 to 19)");
    if ((second & ~(kHasValue | kHasText)) != 0) return in.fail(start + 1, "flag bits the encoding never sets");
    e.head = static_cast<RecordHead>(head);
    std::uint64_t v = 0;
    if ((first & kHasTime) != 0) {
      if (Status s = in.varint(v); !s.ok()) return s;
      const std::int64_t delta = unzigzag(v);
      // |time| <= kMaxTime < 2^62 and |delta| < 2^63: the sum fits in 64
      // bits signed only when checked against the range first.
      if ((delta > 0 && delta > kMaxTime - time) || (delta < 0 && delta < -time))
        return in.fail(start, "a time outside 0 to " + std::to_string(kMaxTime) + " ns");
      time += delta;
      e.has_time = true;
      e.time = time;
    }
    const auto thread = [&](ThreadId& into) -> Status {
      const std::size_t at = in.at();
      if (Status s = in.varint(v); !s.ok()) return s;
      into = unzigzag(v);
      if (into == kNoThread) return in.fail(at, "thread id " + std::to_string(into) + ", which no record may name");
      return {};
    };
    if ((first & kHasActor) != 0)
      if (Status s = thread(e.actor); !s.ok()) return s;
    if ((first & kHasTarget) != 0)
      if (Status s = thread(e.target); !s.ok()) return s;
    if ((second & kHasValue) != 0) {
      const std::size_t at = in.at();
      if (Status s = in.varint(v); !s.ok()) return s;
      e.has_value = true;
      e.value = unzigzag(v);
      if (e.head == RecordHead::gc && !is_valid_time(e.value))
        return in.fail(at, "gc duration " + std::to_string(e.value) + " (gc durations are 0 to " +
                               std::to_string(kMaxTime) + " ns)");
    }
    if ((second & kHasText) != 0) {
      if (Status s = in.text(e.text); !s.ok()) return s;
      e.has_text = true;
    }
    out.push_back(e);
  }
  if (!in.at_end())
    return in.fail(in.at(), std::to_string(blob.size() - in.at()) +
                                (blob.size() - in.at() == 1 ? " byte" : " bytes") + " after its last record");
  return {};
}

}  // namespace skein
