// ctf_importer.cpp — the packet framing of mirage-profile's CTF traces: the
// first pass (ctf_packet_index.hpp), then each packet in counter order opened
// in a window on the index's spool (ctf_packet_window.hpp), its events given
// to the decoder (ctf_event_decoder.hpp) up to the packet's end, and the
// error of a packet that stops partway delivered there; see ctf_importer.hpp
// for the layout, the order and the mapping.
//
// Invariants:
//   1. next() alternates two steps: frame_next_packet() until a packet is
//      open, then the decoder's events of that packet until its end.
//   2. Errors are final: every path to Step::error sets Phase::done.
#include "recorder/import/ctf/ctf_importer.hpp"

#include "recorder/import/ctf/ctf_event_decoder.hpp"
#include "recorder/import/ctf/ctf_packet_index.hpp"
#include "recorder/import/ctf/ctf_packet_window.hpp"

#include <optional>
#include <vector>

namespace skein {

struct CtfImporter::State {
  State(std::unique_ptr<ByteSource> input, const std::string& name, TraceHeader& header,
        CtfWarn warn_of)
      : source(std::move(input)),
        index(name),
        in(index),
        warn(std::move(warn_of)),
        decoder(header, warn) {}

  // index: the first pass is still to run; next_packet: between packets;
  // events: inside packet `order[next_in_order - 1]`; packet_end: its events
  // are all read.
  enum class Phase : std::uint8_t { index, next_packet, events, packet_end, done };

  std::unique_ptr<ByteSource> source;
  CtfPacketIndex index;
  CtfPacketWindow in;
  CtfWarn warn;  // a warning's message, `byte N: ...`, to TraceSource::warn
  CtfEventDecoder decoder;
  Phase phase = Phase::index;
  std::vector<std::size_t> order;  // indices into index.packets(), by counter
  std::size_t next_in_order = 0;
  std::size_t packet_at = 0;          // the packet being read, as an index into index.packets()
  const CtfPacket* packet = nullptr;  // index.packets()[packet_at]
};

CtfImporter::CtfImporter(std::unique_ptr<ByteSource> source, std::string name)
    : TraceSource("mirage-ctf", std::move(name)),
      s_(std::make_unique<State>(std::move(source), this->name(), header_,
                                 [this](std::string message) { warn(0, 0, std::move(message)); })) {
  header_.set("source-format", "mirage-ctf");
  // Lwt's main loop runs as thread 0 (lwt_switch.hpp).
  header_.set("scheduler-thread", "0");
}
CtfImporter::~CtfImporter() = default;

std::uint64_t CtfImporter::bytes_consumed() const { return s_->source->raw_offset(); }
const std::array<std::uint64_t, kCtfEventIds>& CtfImporter::event_counts() const {
  return s_->decoder.counts();
}
std::string_view CtfImporter::event_name(std::size_t id) { return ctf_event_name(id); }
std::uint64_t CtfImporter::packet_count() const { return s_->index.packets().size(); }
Diagnostic CtfImporter::record_location() const {
  return Diagnostic{Severity::warning, name(), 0, 0,
                    "byte " + std::to_string(s_->decoder.record_offset()) + ": "};
}

// Errors are final, and name a byte of the stream.
TraceSource::Step CtfImporter::fail_at(std::uint64_t offset, const std::string& message) {
  s_->phase = State::Phase::done;
  return fail(0, 0, "byte " + std::to_string(offset) + ": " + message);
}
TraceSource::Step CtfImporter::fail_with(const Diagnostic& error) {
  s_->phase = State::Phase::done;
  error_ = error;
  return Step::error;
}

std::optional<TraceSource::Step> CtfImporter::frame_next_packet() {
  State& s = *s_;
  for (;;) {
    switch (s.phase) {
      case State::Phase::events:
        return std::nullopt;

      case State::Phase::done:
        return Step::end;

      case State::Phase::index: {
        const Status scanned = s.index.scan(*s.source, s.warn);
        if (!scanned) return fail_with(scanned.error());
        truncated_ = s.index.cut_short();
        if (!s.index.first_uuid().empty()) header_.set("source-uuid", s.index.first_uuid());
        s.order = ctf_counter_order(s.index.packets(), s.warn);
        s.phase = State::Phase::next_packet;
        break;
      }

      case State::Phase::packet_end:
        // The packet's events are all read (or, in the packet the input ended
        // inside, all that were complete): the error that stopped the scan
        // there comes now; else the next packet.
        if (s.index.partial_packet() == s.packet_at && s.index.stop_error())
          return fail_with(*s.index.stop_error());
        s.phase = State::Phase::next_packet;
        break;

      case State::Phase::next_packet:
        if (s.next_in_order == s.order.size()) {
          // An error between packets (a malformed header, the input ending
          // inside one, a read error there) stopped the scan after the last
          // packet in file order: it comes after every packet.
          if (s.index.stop_error() && !s.index.partial_packet())
            return fail_with(*s.index.stop_error());
          s.phase = State::Phase::done;
          return Step::end;
        }
        s.packet_at = s.order[s.next_in_order++];
        s.packet = &s.index.packets()[s.packet_at];
        s.in.open(*s.packet);
        s.phase = State::Phase::events;
        break;
    }
  }
}

TraceSource::Step CtfImporter::next() {
  State& s = *s_;
  for (;;) {
    if (const std::optional<Step> framed = frame_next_packet()) return *framed;
    switch (s.decoder.decode(s.in, s.packet->content_end(), record_)) {
      case CtfEventDecoder::Decoded::record:
        return Step::record;
      case CtfEventDecoder::Decoded::packet_end:
        s.phase = State::Phase::packet_end;
        break;
      case CtfEventDecoder::Decoded::malformed:
        return fail_at(s.decoder.error().offset, s.decoder.error().message);
      case CtfEventDecoder::Decoded::read_failed:
        return fail_with(s.in.read_error());
    }
  }
}

}  // namespace skein
