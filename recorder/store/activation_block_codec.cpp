// activation_block_codec.cpp — varints and zigzag (varint.hpp) as the
// header describes, read through packed_blob_reader.hpp. Arithmetic on the
// differences is done in 64 bits only after a range check, so no input
// overflows a signed value.
#include "recorder/store/activation_block_codec.hpp"

#include <limits>
#include <optional>

#include "recorder/store/packed_blob_reader.hpp"
#include "recorder/store/varint.hpp"

namespace skein {
namespace {

// Where an activation's fault is: "activation_blocks row 3".
struct ActivationRow {
  const ActivationBlockPlace& place;
  std::string_view database;
  [[nodiscard]] std::string describe() const { return "activation_blocks row " + std::to_string(place.block); }
};

// base + delta when it stays within 0..kMaxTime; nullopt otherwise.
// |base| <= kMaxTime < 2^62: checked against the range before adding.
std::optional<TimeNs> time_after(TimeNs base, std::int64_t delta) {
  if ((delta > 0 && delta > kMaxTime - base) || (delta < 0 && delta < -base)) return std::nullopt;
  return base + delta;
}

}  // namespace

void ActivationBlockEncoder::add(std::int64_t event, ThreadId thread, TimeNs start, TimeNs end) {
  // Events are ids from 1 and times 0..kMaxTime (the derivation's), so
  // every difference fits.
  put_varint(bytes_, zigzag(event - previous_event_));
  put_varint(bytes_, zigzag(thread));
  put_varint(bytes_, zigzag(start - previous_start_));
  put_varint(bytes_, zigzag(end - start));
  previous_event_ = event;
  previous_start_ = start;
  ++activations_;
}

std::string ActivationBlockEncoder::take() {
  std::string out = std::move(bytes_);
  bytes_.clear();
  bytes_.reserve(out.size());
  previous_event_ = 0;
  previous_start_ = 0;
  activations_ = 0;
  return out;
}

Status decode_activation_block(std::string_view blob, const ActivationBlockPlace& place,
                               std::vector<StoredActivation>& out) {
  out.clear();
  const ActivationRow row{place, place.database};
  PackedBlobReader<ActivationRow> in(blob, row, "activations");
  if (place.block < 1 || place.first != (place.block - 1) * kActivationBlockSize + 1 || place.last < place.first ||
      place.last - place.first >= kActivationBlockSize)
    return in.fail(0, "its first_activation " + std::to_string(place.first) + " and last_activation " +
                          std::to_string(place.last) + " are not the block's: " +
                          std::to_string((place.block - 1) * kActivationBlockSize + 1) + " and up to " +
                          std::to_string(kActivationBlockSize) + " activations");
  const std::int64_t count = place.last - place.first + 1;
  out.reserve(static_cast<std::size_t>(count));
  std::int64_t event = 0;
  TimeNs start = 0;
  for (std::int64_t k = 0; k < count; ++k) {
    const std::size_t at = in.at();
    if (in.at_end())
      return in.fail(at, "holds " + std::to_string(k) + " activations, and its range " + std::to_string(count));
    std::uint64_t v = 0;
    StoredActivation a;
    a.id = place.first + k;
    if (Status s = in.varint(v); !s.ok()) return s;
    const std::int64_t event_delta = unzigzag(v);
    // event is 0 before the first, >= 1 after: adding a negative delta
    // cannot overflow, and a positive one is checked first.
    if (event_delta > 0 && event_delta > std::numeric_limits<std::int64_t>::max() - event)
      return in.fail(at, "an event id past 2^63");
    a.event = event + event_delta;
    if (a.event < 1) return in.fail(at, "event id " + std::to_string(a.event) + " (ids start at 1)");
    const std::size_t thread_at = in.at();
    if (Status s = in.varint(v); !s.ok()) return s;
    a.thread = unzigzag(v);
    if (!is_valid_thread_id(a.thread))
      return in.fail(thread_at, "thread id " + std::to_string(a.thread) + ", which no record may name");
    const std::size_t start_at = in.at();
    if (Status s = in.varint(v); !s.ok()) return s;
    const auto s_time = time_after(start, unzigzag(v));
    if (!s_time) return in.fail(start_at, "a start outside 0 to " + std::to_string(kMaxTime) + " ns");
    const std::size_t end_at = in.at();
    if (Status s = in.varint(v); !s.ok()) return s;
    const auto e_time = time_after(*s_time, unzigzag(v));
    if (!e_time) return in.fail(end_at, "an end outside 0 to " + std::to_string(kMaxTime) + " ns");
    a.start = start = *s_time;
    a.end = *e_time;
    event = a.event;
    out.push_back(a);
  }
  if (!in.at_end())
    return in.fail(in.at(), std::to_string(blob.size() - in.at()) +
                                (blob.size() - in.at() == 1 ? " byte" : " bytes") + " after its last activation");
  return {};
}

}  // namespace skein
