// transfer_block_codec.cpp — the encoding the header describes. Differences
// are computed in unsigned 64 bits, so that they wrap rather than overflow
// whatever a database holds; the decoder reads through
// packed_blob_reader.hpp, which checks that the bytes it needs are there.
#include "viewer/analysis/transfer_block_codec.hpp"

#include <tuple>

#include "recorder/store/events_table.hpp"
#include "recorder/store/packed_blob_reader.hpp"
#include "recorder/store/varint.hpp"

namespace skein {
namespace {

constexpr std::uint8_t kKindBits = 0x03;
constexpr std::uint8_t kHasFrom = 1u << 2;
constexpr std::uint8_t kHasInput = 1u << 3;
constexpr std::uint8_t kHasCauseEvent = 1u << 4;
constexpr std::uint8_t kHasSuspect = 1u << 5;
constexpr std::uint8_t kNewGroup = 1u << 6;
constexpr std::uint8_t kReservedBit = 1u << 7;

std::int64_t minus(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
}
std::int64_t plus(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

// Where a verdict's fault is: "transfer_blocks row (grp 5, first_event 20)".
struct VerdictRow {
  const TransferBlockPlace& place;
  std::string_view database;
  [[nodiscard]] std::string describe() const {
    return "transfer_blocks row (grp " + std::to_string(place.grp) + ", first_event " +
           std::to_string(place.first_event) + ")";
  }
};

class VerdictReader : public PackedBlobReader<VerdictRow> {
 public:
  VerdictReader(std::string_view blob, const VerdictRow& row) : PackedBlobReader(blob, row, "verdicts") {}

  // A thread id given as a difference from `base`; never the reserved id.
  Status thread(std::int64_t base, const char* what, ThreadId& out) {
    const std::size_t start = at();
    std::uint64_t v = 0;
    if (Status s = varint(v); !s.ok()) return s;
    out = plus(base, unzigzag(v));
    if (out == kNoThread) return fail(start, std::string(what) + " is the reserved thread id");
    return {};
  }
};

}  // namespace

bool transfer_key_less(const StoredTransfer& a, const StoredTransfer& b) {
  return std::tie(a.grp, a.event, a.kind) < std::tie(b.grp, b.event, b.kind);
}

void TransferBlockEncoder::add(const StoredTransfer& t) {
  if (verdicts_ == 0) {
    first_ = t;
    previous_ = t;
  }
  const bool new_group = t.grp != previous_.grp;
  std::uint8_t head = static_cast<std::uint8_t>(t.kind) & kKindBits;
  if (t.from != kNoThread) head |= kHasFrom;
  if (t.input != kNoThread) head |= kHasInput;
  if (t.cause_event != 0) head |= kHasCauseEvent;
  if (t.suspect != kNoThread) head |= kHasSuspect;
  if (new_group) head |= kNewGroup;
  bytes_.push_back(static_cast<char>(head));
  bytes_.push_back(static_cast<char>(static_cast<std::uint8_t>(t.cause)));
  if (new_group) {
    put_varint(bytes_, static_cast<std::uint64_t>(minus(t.grp, previous_.grp)));
    put_varint(bytes_, static_cast<std::uint64_t>(t.event));
  } else {
    put_varint(bytes_, static_cast<std::uint64_t>(minus(t.event, previous_.event)));
  }
  put_varint(bytes_, zigzag(minus(t.thread, t.grp)));
  if (t.from != kNoThread) put_varint(bytes_, zigzag(minus(t.from, t.thread)));
  if (t.input != kNoThread) put_varint(bytes_, zigzag(minus(t.input, t.thread)));
  if (t.cause_event != 0) put_varint(bytes_, zigzag(minus(t.event, t.cause_event)));
  if (t.suspect != kNoThread) put_varint(bytes_, zigzag(minus(t.suspect, t.thread)));
  previous_ = t;
  ++verdicts_;
}

std::string TransferBlockEncoder::take() {
  std::string out;
  out.swap(bytes_);
  verdicts_ = 0;
  return out;
}

Status decode_transfer_block(std::string_view blob, const TransferBlockPlace& place,
                             std::vector<StoredTransfer>& out) {
  out.clear();
  const VerdictRow row{place, place.database};
  VerdictReader in(blob, row);
  if (in.at_end()) return in.fail(0, "a block without verdicts");
  StoredTransfer previous;
  previous.grp = place.grp;
  previous.event = place.first_event;
  while (!in.at_end()) {
    const std::size_t start = in.at();
    std::uint8_t head = 0;
    std::uint8_t cause = 0;
    if (Status s = in.byte(head); !s.ok()) return s;
    if ((head & kReservedBit) != 0) return in.fail(start, "a flag bit the encoding never sets");
    if ((head & kKindBits) > 2) return in.fail(start, "a kind of 3");
    if (Status s = in.byte(cause); !s.ok()) return s;
    if (cause >= kControlCauseCount) return in.fail(start + 1, "a cause past " + std::to_string(kControlCauseCount - 1));
    StoredTransfer t;
    t.kind = static_cast<TransferKind>(head & kKindBits);
    t.cause = static_cast<ControlCause>(cause);
    const std::size_t key_at = in.at();
    std::uint64_t v = 0;
    if ((head & kNewGroup) != 0) {
      if (out.empty()) return in.fail(start, "the first verdict is not of the row's group");
      if (Status s = in.varint(v); !s.ok()) return s;
      if (v == 0) return in.fail(key_at, "a new group equal to the one before");
      t.grp = plus(previous.grp, static_cast<std::int64_t>(v));
      if (t.grp <= previous.grp) return in.fail(key_at, "groups out of order");
      if (Status s = in.varint(v); !s.ok()) return s;
      t.event = static_cast<std::int64_t>(v);
    } else {
      if (Status s = in.varint(v); !s.ok()) return s;
      t.grp = previous.grp;
      t.event = plus(previous.event, static_cast<std::int64_t>(v));
      if (out.empty() && v != 0) return in.fail(key_at, "the first verdict is not at the row's first_event");
      if (t.event < previous.event) return in.fail(key_at, "records out of order");
    }
    if (t.event < 1) return in.fail(key_at, "an event id below 1");
    if (!out.empty() && !transfer_key_less(previous, t)) return in.fail(start, "a verdict out of order");
    if (Status s = in.thread(t.grp, "the thread", t.thread); !s.ok()) return s;
    if ((head & kHasFrom) != 0)
      if (Status s = in.thread(t.thread, "from_thread", t.from); !s.ok()) return s;
    if ((head & kHasInput) != 0)
      if (Status s = in.thread(t.thread, "the input", t.input); !s.ok()) return s;
    if ((head & kHasCauseEvent) != 0) {
      const std::size_t at = in.at();
      if (Status s = in.varint(v); !s.ok()) return s;
      t.cause_event = minus(t.event, unzigzag(v));
      if (t.cause_event < 1) return in.fail(at, "a cause_event below 1");
    }
    if ((head & kHasSuspect) != 0)
      if (Status s = in.thread(t.thread, "the suspect", t.suspect); !s.ok()) return s;
    out.push_back(t);
    previous = t;
  }
  return {};
}

}  // namespace skein
