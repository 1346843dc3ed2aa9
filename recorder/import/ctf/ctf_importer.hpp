// ctf_importer.hpp — reads mirage-profile's CTF binary traces (the MirageOS
// traces of 2014-2015, e.g. mirage-trace-viewer's examples/net.ctf) as a
// stream of Skein Records.
//
// CTF describes its layout in a TSDL metadata file. mirage-profile always
// writes the same one, so the importer does not parse TSDL: the layout below
// is hard-coded from it. All integers are little-endian and byte-aligned
// (`align = 8` in TSDL counts bits); nothing is padded between fields.
//
// A file is a sequence of packets:
//
// | offset | size | field               | meaning                                         |
// | ------ | ---- | ------------------- | ----------------------------------------------- |
// | 0      | 4    | magic               | 0xc1fc1fc1 (bytes c1 1f fc c1)                  |
// | 4      | 16   | uuid                | the trace's; the same in every packet           |
// | 20     | 4    | packet_size         | in bits: the packet, padding included           |
// | 24     | 2    | stream_packet_count | the packet's place in time (see Packet order)   |
// | 26     | 4    | content_size        | in bits: header, context and events             |
// | 30     | ...  | events              | up to content_size; then padding to packet_size |
//
// Each event: an 8-byte timestamp (ns, on the traced machine's clock), a
// 1-byte event id, then (every event but gc) the 8-byte thread the event is
// about, then the event's fields. Strings end with a NUL byte.
//
// | id | name              | fields after the thread      | record                              |
// | -- | ----------------- | ---------------------------- | ----------------------------------- |
// | 0  | creates           | child u64, thread_type u8    | spawn CHILD THREAD KIND (see below) |
// | 1  | read              | source u64                   | read THREAD SOURCE                  |
// | 2  | fulfills          | resolvee u64                 | resolve RESOLVEE THREAD ok          |
// | 3  | fails             | resolvee u64, exn string     | resolve RESOLVEE THREAD fail "EXN"  |
// | 4  | becomes           | sleeper u64                  | merge THREAD SLEEPER                |
// | 5  | label             | label string                 | label THREAD "LABEL"                |
// | 6  | increase          | amount i64, counter string   | counter "COUNTER" TOTAL (see below) |
// | 7  | switch            | -                            | switch THREAD                       |
// | 8  | gc                | duration_ns u64 (no thread)  | gc DURATION                         |
// | 9  | signal            | source u64                   | notify SOURCE THREAD                |
// | 10 | try_read          | source u64                   | read THREAD SOURCE                  |
// | 11 | counter           | value i64, counter string    | counter "COUNTER" VALUE             |
// | 12 | read, no switch   | source u64                   | read THREAD SOURCE                  |
// | 13 | signal, no switch | source u64                   | notify SOURCE THREAD                |
//
// event_name() gives the names above, as babeltrace2 prints them; 12 and 13
// are read_no_switch and signal_no_switch.
//
// Choices the metadata leaves open:
//   - thread_type 0..14 is Wait Task Bind Try Choose Pick Join Map Condition
//     On_success On_failure On_termination On_any Ignore_result Async, and
//     becomes the kind lower-cased (bind, on_success...); another value N
//     becomes `thread-type-N`.
//   - `increase` adds AMOUNT to a running total per counter name (starting
//     at 0) and records the total: a Skein counter record holds a value, not
//     a change. `counter` sets the total to VALUE. The thread of both is
//     dropped (a counter record has none).
//   - `signal`: SOURCE signalled (woke) THREAD, named like `read`'s source.
//   - ids 12 and 13 (later mirage-profile versions, absent from the 2014
//     metadata) have the layout of read and signal and import as they do.
//   - Thread ids are u64 in the file and kept bit for bit as signed 64-bit
//     ids, so 0xffffffffffffffff stays -1, the scheduler.
//   - Times count from the first event read, the first of the earliest
//     packet (header option source-origin-ns); an event earlier than that
//     is imported at 0 with a warning. The header also gets source-uuid
//     from the first packet in the file.
//
// Packet order. mirage-profile writes into a ring of packets (mirage/
// mirage-profile, lib/trace_enabled.ml at commit 519cc95): Control.make cuts
// the trace buffer into 4 packets, stamped with counts 0 to 3, and starts
// writing the first with next_stream_packet_count = 1; Control.next_packet,
// when a packet is full, moves to the next one round the ring ((active + 1)
// mod 4), clears it and stamps it with that count, `count land 0xffff` in
// the u16 stream_packet_count. So once the ring has wrapped, the file's
// first packet is not the trace's (counts 4 5 2 3 in the file hold the
// trace in the order 2 3 4 5), and a ring that did not wrap may end in
// packets never used, header only (net.ctf: counts 0 1 2 3, the last two
// with content_size 30 bytes). The importer reads the packets in the order
// mirage-trace-viewer gives them (talex5/mirage-trace-viewer,
// lib/mtv_ctf_loader.ml, `order_packets`): in file order, the first packet
// whose count is a large jump from the previous one's ((count - previous)
// mod 2^16 > 0x8000) is the earliest, or else the first; counts are rebased
// on it ((count - base) mod 2^16, so the u16 counter wrapping from 0xffff to
// 0 keeps its order) and sorted, packets of equal count in file order.
// Warnings, and the import goes on:
//   - the packets were reordered (the ring wrapped): the trace starts at
//     the packet at byte N, counter C;
//   - a packet's count repeats another's: both are read, in file order;
//   - consecutive counts (in that order) with a gap: the packets between
//     were overwritten or lost, and the warning says how many.
// Packets with no events need no warning.
//
// Two passes (ctf_packet_index.hpp). The input may be a pipe, standard
// input or gzip, and cannot seek, and the order is known only once every
// packet's count is. The first pass reads the stream once: it checks each
// packet header, keeps the packet's offset, sizes and count, and copies its
// events (not its header or padding) to an unnamed temporary file (O_TMPFILE
// in $TMPDIR, or tmpfile()). The second pass reads the packets back from it
// with pread, in counter order, through a window of one chunk plus at most
// one event (whose string is capped at kMaxStringBytes), never a whole
// packet. Memory is bounded by the number of packets (a few words each),
// not by the bytes; time is linear in the input; the disk holds at most the
// events once, and the file is gone when the importer is. The first pass
// runs in the first next(), so bytes_consumed() (progress) is at the end of
// the input from the first record on.
//
// Framing and decoding. The importer frames the packets: it runs the first
// pass, opens each packet in counter order in a window on the spool
// (ctf_packet_window.hpp), and ends it, giving the error of a packet that
// stops partway. CtfEventDecoder (ctf_event_decoder.hpp) decodes the events:
// each event's header and payload, read through the window, become one
// Record by the event's id.
//
// Errors name the byte offset in the (decompressed) stream of the field that
// is wrong: `FILE: byte 1234: unknown event id 14`. They are final: the
// importer does not look for a next packet, and gives no record after one.
// An error in an event stops the import at that event. The first pass stops
// at an error that leaves no next packet to find (a bad header, a read
// error, the input ending); the records of the packets before it come
// first, in counter order, then the error: after every packet's events, or,
// when the input ended (or failed) inside a packet, once that packet's
// complete events are delivered, where it stands in counter order; packets
// later in counter order than a cut packet are not read. A gzip stream that
// stops early is a truncation warning instead, as for the text formats: the
// cut packet's complete events are read in their place and the import goes
// on with the rest.
//
// Invariants:
//   1. Events come out in counter order, and within a packet in file order;
//      every complete event before an error (in that order) or a gzip cut
//      is delivered.
//   2. Every record is a valid Skein record (times >= 0, kinds are symbols,
//      strings within kMaxStringBytes, durations >= 0).
//   3. Each record consumes at least 17 bytes (the smallest event); every
//      other step ends: the importer terminates.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "recorder/format/byte_source.hpp"
#include "recorder/import/trace_source.hpp"

namespace skein {

inline constexpr std::size_t kCtfEventIds = 14;

class CtfImporter final : public TraceSource {
 public:
  CtfImporter(std::unique_ptr<ByteSource> source, std::string name);
  ~CtfImporter() override;

  [[nodiscard]] Step next() override;
  [[nodiscard]] std::uint64_t bytes_consumed() const override;
  [[nodiscard]] Diagnostic record_location() const override;

  // Events read so far, by id (the names babeltrace2 prints: event_name).
  [[nodiscard]] const std::array<std::uint64_t, kCtfEventIds>& event_counts() const;
  [[nodiscard]] static std::string_view event_name(std::size_t id);
  [[nodiscard]] std::uint64_t packet_count() const;

 private:
  struct State;

  // Packet framing: runs the first pass, ends the packet just read (with the
  // error that stopped the scan inside it, if any) and opens the next in
  // counter order; nullopt once a packet is open for the decoder, else the
  // Step next() returns.
  [[nodiscard]] std::optional<Step> frame_next_packet();
  [[nodiscard]] Step fail_at(std::uint64_t offset, const std::string& message);
  [[nodiscard]] Step fail_with(const Diagnostic& error);

  std::unique_ptr<State> s_;
};

}  // namespace skein
