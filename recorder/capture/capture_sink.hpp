// capture_sink.hpp — the runtime's trace::Sink as the capture implements it:
// each hook becomes one 32-byte binary record in the CaptureBuffer, stamped
// with raw ticks. No text, no file I/O, no allocation on this path (except
// the first time a string or site is seen, when it is interned).
//
// It is a buffering sink (runtime/trace_record.hpp): the buffer opens the
// runtime's record window on its current chunk, and most records never reach
// these methods: the hooks store them in the window inline. The methods run
// for what the window cannot take: a record from a thread that does not
// own the window (refused), a full chunk (make_room), records with strings,
// a spawn whose site the runtime's site cache does not know yet (interned
// here, then cached), and records made by calling the sink directly. They
// write through the same window, with the same stamping.
//
// Runs only on the runtime's OS thread (the runtime is single-threaded): the
// capture belongs to the thread that runs the loop, and until a loop runs,
// to the thread that started it (for SKEIN_TRACE, the main thread, whose
// static initialisation starts it): the record window's owner
// (runtime/trace_record.hpp, invariant 2). A thread that records first
// takes nothing over. A hook called from any other OS thread fails the
// window's owner check and is refused here, before it touches the buffer or
// the interning tables, so a misused runtime can neither corrupt the trace
// nor displace the program's own records; refusals are counted, and the
// first refused thread is named (its OS thread id and name) in the line
// the capture prints at stop (refusal_line()). The writer thread and crash
// handler read what the owner publishes.
//
// The owner check is the one the hooks make inline: this thread's token
// against the owner's, two loads and a compare.
#pragma once

#include <atomic>
#include <string>

#include "recorder/capture/capture_buffer.hpp"
#include "recorder/format/record.hpp"
#include "recorder/capture/site_table.hpp"
#include "recorder/capture/string_arena.hpp"
#include "recorder/capture/tsc_clock.hpp"
#include "runtime/trace_sink.hpp"

namespace skein::capture {

class CaptureSink final : public trace::Sink {
 public:
  CaptureSink(CaptureBuffer& buffer, StringArena& strings, SiteTable& sites);

  void spawn(ThreadId child, ThreadId parent, trace::Kind kind, const std::source_location& site) override {
    if (!owned()) [[unlikely]] return refuse();
    const std::uint32_t id = sites_.intern(site);
    if constexpr (trace::detail::kSiteCacheable) {
      // The next spawn from this site takes the hook's inline path.
      if (const void* key = trace::detail::site_key(site); key != nullptr)
        trace::detail::site_slot(key) = trace::detail::SiteCacheEntry{key, id};
    }
    emit<RecordCode::spawn>(static_cast<std::uint8_t>(kind), child, parent, id);
  }
  void wait(ThreadId waiter, ThreadId input) override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::wait>(0, waiter, input, 0);
  }
  void read(ThreadId reader, ThreadId input) override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::read>(0, reader, input, 0);
  }
  void notify(ThreadId sender, ThreadId receiver, trace::Reason reason) override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::notify>(static_cast<std::uint8_t>(reason), sender, receiver, 0);
  }
  void resolve(ThreadId thread, ThreadId by, trace::Outcome outcome, std::string_view message) override {
    if (!owned()) [[unlikely]] return refuse();
    const std::uint32_t text = outcome == trace::Outcome::fail ? strings_.intern(message) : StringArena::kNoString;
    emit<RecordCode::resolve>(static_cast<std::uint8_t>(outcome), thread, by, text);
  }
  void merge(ThreadId thread, ThreadId into) override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::merge>(0, thread, into, 0);
  }
  void label(ThreadId thread, std::string_view text) override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::label>(0, thread, 0, intern_cached(text));
  }
  void switch_to(ThreadId thread) override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::switch_>(0, thread, 0, 0);
  }
  void counter(std::string_view name, std::int64_t value) override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::counter>(0, 0, value, intern_cached(name));
  }
  void idle() override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::idle>(0, 0, 0, 0);
  }
  void should_resolve(ThreadId thread) override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::should_resolve>(0, thread, 0, 0);
  }
  void drop(ThreadId thread, ThreadId by) override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::drop>(0, thread, by, 0);
  }
  void no_waiter(ThreadId sender, trace::ObjectId object, trace::Reason reason) override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::no_waiter>(static_cast<std::uint8_t>(reason), sender, object, 0);
  }
  void queued(ThreadId waiter, trace::ObjectId object) override {
    if (!owned()) [[unlikely]] return refuse();
    emit<RecordCode::queued>(0, waiter, object, 0);
  }

  [[nodiscard]] std::uint64_t refused() const noexcept { return refused_.load(std::memory_order_relaxed); }
  // What stop() says of the refused records, or "" if there were none: how
  // many, from how many OS threads, the first one named. Once every other
  // thread has stopped recording.
  [[nodiscard]] std::string refusal_line() const;

 private:
  using RecordCode = trace::RecordCode;

  // True on the OS thread the records belong to, whether this sink is the
  // installed one or another sink that wraps it forwards to it (invariant
  // 2 of runtime/trace_record.hpp).
  [[nodiscard]] static bool owned() noexcept {
    return trace::detail::t_record_owner == trace::detail::g_record_owner.load(std::memory_order_relaxed);
  }
  // Interns a label's or counter's text and lets the runtime's string cache
  // know it, so the next record with the same text at the same address
  // takes the hook's inline path (runtime/trace_record.hpp, invariant 4).
  std::uint32_t intern_cached(std::string_view text) {
    const std::uint32_t id = strings_.intern(text);
    if (id != StringArena::kOverflowId && text.size() <= trace::detail::kStringCacheMaxBytes && text.data() != nullptr)
      trace::detail::string_slot(text.data()) = trace::detail::StringCacheEntry{
          text.data(), strings_.get(id).data(), static_cast<std::uint32_t>(text.size()), id};
    return id;
  }
  void refuse() noexcept;

  // Time stamps: the window's (runtime/trace_record.hpp, which explains
  // which records read the time-stamp counter).
  template <RecordCode Head>
  void emit(std::uint8_t code, std::int64_t a, std::int64_t b, std::uint32_t ref) noexcept {
    if (!buffer_.make_room()) [[unlikely]] return;  // dropped and counted by the buffer
    trace::detail::write_record<Head>(code, a, b, ref);
  }

  CaptureBuffer& buffer_;
  StringArena& strings_;
  SiteTable& sites_;
  std::uint64_t generation_;  // unique per capture: whose refusals a thread's were counted for
  std::atomic<std::uint64_t> refused_{0};
  std::atomic<std::uint64_t> refused_threads_{0};
  // The first refused thread, written once by that thread (kNaming), then
  // read (kNamed).
  static constexpr int kUnnamed = 0, kNaming = 1, kNamed = 2;
  std::atomic<int> first_refused_state_{kUnnamed};
  long first_refused_tid_ = 0;
  char first_refused_name_[16] = {};  // pthread_getname_np's, "" if it gave none
};

}  // namespace skein::capture
