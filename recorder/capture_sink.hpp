// capture_sink.hpp — the runtime's trace::Sink as the capture implements it:
// each hook becomes one 32-byte binary record in the CaptureBuffer, stamped
// with raw ticks. No text, no file I/O, no allocation on this path (except
// the first time a string or site is seen, when it is interned).
//
// Runs only on the runtime's OS thread (the runtime is single-threaded): the
// first thread to record owns the capture. A hook called from any other OS
// thread is refused, with one message on stderr, before it touches the
// buffer or the interning tables, so a misused runtime cannot corrupt the
// trace. The writer thread and crash handler read what the owner publishes.
#pragma once

#include <atomic>

#include "recorder/capture_buffer.hpp"
#include "recorder/record.hpp"
#include "recorder/site_table.hpp"
#include "recorder/string_arena.hpp"
#include "recorder/tsc_clock.hpp"
#include "runtime/trace_sink.hpp"

namespace skein::capture {

class CaptureSink final : public trace::Sink {
 public:
  CaptureSink(CaptureBuffer& buffer, StringArena& strings, SiteTable& sites);

  void spawn(ThreadId child, ThreadId parent, trace::Kind kind, const std::source_location& site) override {
    if (!owned()) [[unlikely]] return refuse();
    emit(RecordHead::spawn, static_cast<std::uint8_t>(kind), child, parent, sites_.intern(site));
  }
  void wait(ThreadId waiter, ThreadId input) override {
    if (!owned()) [[unlikely]] return refuse();
    emit(RecordHead::wait, 0, waiter, input, 0);
  }
  void read(ThreadId reader, ThreadId input) override {
    if (!owned()) [[unlikely]] return refuse();
    emit(RecordHead::read, 0, reader, input, 0);
  }
  void notify(ThreadId sender, ThreadId receiver, trace::Reason reason) override {
    if (!owned()) [[unlikely]] return refuse();
    emit(RecordHead::notify, static_cast<std::uint8_t>(reason), sender, receiver, 0);
  }
  void resolve(ThreadId thread, ThreadId by, trace::Outcome outcome, std::string_view message) override {
    if (!owned()) [[unlikely]] return refuse();
    const std::uint32_t text = outcome == trace::Outcome::fail ? strings_.intern(message) : StringArena::kNoString;
    emit(RecordHead::resolve, static_cast<std::uint8_t>(outcome), thread, by, text);
  }
  void merge(ThreadId thread, ThreadId into) override {
    if (!owned()) [[unlikely]] return refuse();
    emit(RecordHead::merge, 0, thread, into, 0);
  }
  void label(ThreadId thread, std::string_view text) override {
    if (!owned()) [[unlikely]] return refuse();
    emit(RecordHead::label, 0, thread, 0, strings_.intern(text));
  }
  void switch_to(ThreadId thread) override {
    if (!owned()) [[unlikely]] return refuse();
    emit(RecordHead::switch_, 0, thread, 0, 0);
  }
  void counter(std::string_view name, std::int64_t value) override {
    if (!owned()) [[unlikely]] return refuse();
    emit(RecordHead::counter, 0, 0, value, strings_.intern(name));
  }
  void idle() override {
    if (!owned()) [[unlikely]] return refuse();
    emit(RecordHead::idle, 0, 0, 0, 0);
  }

  [[nodiscard]] std::uint64_t refused() const noexcept { return refused_.load(std::memory_order_relaxed); }

 private:
  // True on the owning OS thread (claiming ownership on the first call).
  [[nodiscard]] bool owned() noexcept { return t_owner_generation == generation_ || claim(); }
  bool claim() noexcept;
  void refuse() noexcept;

  // Time stamps. Reading the time-stamp counter costs ~12 ns on the machines
  // we measure (AMD EPYC), more than the rest of a record, so not every
  // record reads it. A record reads it when it is a boundary (switch, idle,
  // notify: control changes hands, or the loop has blocked), when the record
  // before was a boundary, when a bind or map callback has returned since the
  // last record (trace::detail::g_user_code_returned), or when the last
  // kStampEvery - 1 records did not. Any other record carries the time of the
  // record before. So times never decrease, no record takes its time from
  // before a block or from before a callback's work, and a time is at most
  // kStampEvery - 1 records early. Those records are the runtime's own steps
  // between two pieces of user code (a few nanoseconds each), so a time is
  // early by well under a microsecond; stamping every record would cost more
  // than the rest of the record together.
  static constexpr std::uint32_t kStampEvery = 8;

  std::uint64_t stamp(RecordHead head) noexcept {
    const bool boundary = head == RecordHead::switch_ || head == RecordHead::idle || head == RecordHead::notify;
    if (!boundary && since_stamp_ < kStampEvery - 1 && !trace::detail::g_user_code_returned) [[likely]] {
      ++since_stamp_;
      return last_ticks_;
    }
    trace::detail::g_user_code_returned = false;
    since_stamp_ = boundary ? kStampEvery : 0;  // after a boundary, stamp again
    last_ticks_ = read_ticks();
    return last_ticks_;
  }

  void emit(RecordHead head, std::uint8_t code, std::int64_t a, std::int64_t b, std::uint32_t ref) noexcept {
    CapturedRecord* r = buffer_.claim();
    if (r == nullptr) [[unlikely]] return;  // dropped and counted by the buffer
    r->ticks = stamp(head);
    r->a = a;
    r->b = b;
    r->ref = ref;
    r->head = static_cast<std::uint8_t>(head);
    r->code = code;
    r->flags = 0;
    buffer_.publish();
  }

  static constinit thread_local std::uint64_t t_owner_generation;
  CaptureBuffer& buffer_;
  StringArena& strings_;
  SiteTable& sites_;
  std::uint64_t generation_;            // unique per capture
  std::uint64_t last_ticks_ = 0;
  std::uint32_t since_stamp_ = kStampEvery;  // records since the last read; >= kStampEvery - 1: read now
  std::atomic<bool> claimed_{false};
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace skein::capture
