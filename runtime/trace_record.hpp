// trace_record.hpp — the runtime's record window: where a buffering sink
// (the recorder's capture) lets the trace hooks store fixed-size binary
// records inline, without a call.
//
// A buffering sink owns some memory (for the capture: chunks of its bounded
// buffer) and opens a window on it: `cursor` is the next free slot, `end`
// one past the last. A hook with a record to make checks, inline, that the
// window has room and that the calling OS thread owns it, stores one
// 32-byte Record at the cursor (raw time-stamp counter ticks and small
// integers) and moves the cursor. Anything else (no room, the wrong thread,
// no buffering sink, a string to intern, a site not yet cached) takes the
// hook's out-of-line path, which calls the Sink (trace_sink.hpp); a
// buffering sink then makes room (a fresh chunk, or counts a drop), claims
// or refuses the thread, and writes the record through the same window. So
// the Sink interface stays the one way records reach other sinks (the
// tests' recording sinks), and the window is only a fast path of one sink.
//
// Invariants:
//   1. Only the owning OS thread moves `cursor` (through the hooks, or the
//      sink on that thread's slow path; the sink also once it is no longer
//      installed), and only within the memory the window was opened on; it
//      publishes each record with a release store of the cursor, so another
//      thread (the capture's crash handler, a ring snapshot) that reads the
//      cursor with acquire sees every record below it whole.
//   2. The records belong to one OS thread at a time, the one whose
//      t_record_owner equals g_record_owner: set_sink() gives them to the
//      thread that installs a sink with a window (the one that starts the
//      capture), and run() to the thread that runs the loop
//      (take_record_window, trace_sink.hpp), each time under a fresh token,
//      so a thread that owned them before, or owned an earlier capture's,
//      never matches again. So the records are the loop thread's: a thread
//      that records first takes nothing over. The window is usable only
//      while its `owner` equals the calling thread's t_record_owner: it is
//      g_record_owner while the installed sink is the window's, kNoOwner
//      otherwise (a sink without a window, one that wraps the capture's, or
//      none), so records never go to a window whose sink is not the one
//      installed; a wrapped capture's sink asks g_record_owner itself.
//   3. The site cache maps a std::source_location (by the address of its
//      static data, which identifies the call site) to the site id the
//      window's sink gave it; the string cache maps the bytes of a label's
//      or counter's text to the string id the sink gave them. The sink
//      clears both whenever it opens a window on a new capture, since ids
//      belong to one capture. Only the window's owner reads or writes them.
//   4. A string cache entry is found by the address of the caller's text
//      but is a hit only if the bytes are equal to the interned copy it
//      points at (the sink's arena, which never moves during a capture):
//      a buffer reused for other text, at the same address, misses.
//
// Time stamps. Reading the time-stamp counter costs ~8-12 ns, more than the
// rest of a record, so not every record reads it: only where time may have
// passed that the records do not show, which is where user code ran or the
// loop blocked. A record reads it
//   - when it is an idle (the loop blocks) or a switch back to the
//     scheduler (a thread's run, and whatever user code it ran, ends);
//   - when it is the first record after an idle (the block is over) or
//     after a switch to a thread (its user code has started);
//   - when a bind or map callback has returned, or a coroutine's body has
//     run to a co_await or its end, since the last record
//     (g_user_code_returned);
//   - when the last kStampEvery - 1 records did not.
// Any other record carries the time of the record before. So times never
// decrease, no record takes its time from before a block, the start or end
// of a run, or a callback's work, and a time is at most kStampEvery - 1
// records early: the runtime's own steps between two pieces of user code,
// a few nanoseconds each. The scheduler's own records (a switch to the next
// thread, a timer's notify) and a notify are not points where time passes
// unseen; stamping them and the record after each, as an earlier rule did,
// read the clock at half of the pause workload's records (W2) and 71% of the
// fiber hand-over's (W5), against a quarter and 29% under this rule: about
// 5 ns a record of W5, half its budget. (Inside a
// fiber or coroutine, the user code between two of its records is not
// seen: the later record may carry the earlier one's time, until the switch
// back out.) The sink converts ticks to nanoseconds later (the capture, in
// its writer thread).
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <source_location>
#include <string_view>

#include "runtime/thread_id.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace skein::trace {

// What a Record is; the values are the recorder's RecordHead
// (recorder/format/record.hpp), which static_asserts that they agree.
enum class RecordCode : std::uint8_t {
  site, spawn, label, switch_, wait, read, notify, resolve, merge, counter, idle, gc, lost, end,
  return_, should_resolve, snapshot, drop, no_waiter, queued
};

// One record as the hooks store it: raw ticks and small integers; strings
// and sites are ids of the sink's tables.
struct Record {
  std::uint64_t ticks;
  std::int64_t a;      // the first thread (or count, duration)
  std::int64_t b;      // the second thread (or value, or an object's number)
  std::uint32_t ref;   // a string id or a site id
  std::uint8_t head;   // RecordCode
  std::uint8_t code;   // kind, reason or outcome
  std::uint16_t flags;
};
static_assert(sizeof(Record) == 32, "a record is 32 bytes");

// The time-stamp counter (CLOCK_MONOTONIC nanoseconds where there is none).
[[nodiscard]] inline std::uint64_t read_ticks() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  return __rdtsc();
#else
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(ts.tv_nsec);
#endif
}

// Asks for exclusive ownership of the line at `p` ahead of the store to it.
// The memory a buffering sink hands out was last read by its consumer on
// another core, or not touched for a while, so a plain store would stall on
// a read-for-ownership miss of ~100 ns a line, more than the whole budget of
// a record; a prefetchw a few lines ahead turns that stall into background
// traffic. A prefetch never faults, so running past the end of the window
// is harmless. (PREFETCHW is a NOP on processors without it.)
inline void prefetch_for_write(const void* p) noexcept {
#if defined(__x86_64__)
  asm volatile("prefetchw %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p, 1, 3);
#endif
}
// Records ahead of the cursor to prefetch: 8 records, four lines.
inline constexpr std::size_t kPrefetchAhead = 8;

inline constexpr std::uint32_t kStampEvery = 8;
inline constexpr std::uint64_t kNoOwner = ~std::uint64_t{0};

struct alignas(64) RecordWindow {
  std::atomic<Record*> cursor{nullptr};  // the next slot; == end: no room
  Record* end = nullptr;
  // See invariant 2. Atomic because every thread that records reads it,
  // the owner's rivals included; relaxed loads, a plain load on x86.
  std::atomic<std::uint64_t> owner{kNoOwner};
  std::uint64_t last_ticks = 0;          // the last stamp read
  std::uint32_t since_stamp = kStampEvery;  // records since; >= kStampEvery - 1: read now
};

namespace detail {

inline RecordWindow g_record_window;
// The token this OS thread was given last (0: none; invariant 2).
inline constinit thread_local std::uint64_t t_record_owner = 0;
// The token of the thread the records belong to (invariant 2; kNoOwner
// until a sink with a window is installed).
inline std::atomic<std::uint64_t> g_record_owner{kNoOwner};
// The last token given (trace_sink.cpp gives them).
inline std::atomic<std::uint64_t> g_record_owner_tokens{0};
// Set when a bind or map callback (user code, of any length) has returned,
// or a coroutine's body has run to a co_await or its end, so the next
// record takes a fresh time stamp. A plain store, no branch;
// the stamping clears it.
inline bool g_user_code_returned = false;

// --- the site cache (invariant 3) ---
inline constexpr std::size_t kSiteCacheSize = 256;
struct SiteCacheEntry {
  const void* key = nullptr;
  std::uint32_t id = 0;
};
inline SiteCacheEntry g_site_cache[kSiteCacheSize];

// The identity of a call site: libstdc++ and libc++ keep a source_location
// as one pointer to static data per call site. Elsewhere (clang 14's,
// cmake/source_location_fallback.hpp) there is no cheap key, and every
// spawn takes the sink's own lookup.
inline constexpr bool kSiteCacheable = sizeof(std::source_location) == sizeof(const void*);
[[nodiscard]] inline const void* site_key(const std::source_location& site) noexcept {
  const void* key = nullptr;
  if constexpr (kSiteCacheable) std::memcpy(&key, &site, sizeof key);
  return key;
}
[[nodiscard]] inline SiteCacheEntry& site_slot(const void* key) noexcept {
  return g_site_cache[(reinterpret_cast<std::uintptr_t>(key) >> 3) & (kSiteCacheSize - 1)];
}

// --- the string cache (invariants 3 and 4) ---
inline constexpr std::size_t kStringCacheSize = 256;
// Longer texts always take the sink's path (comparing them would cost more
// than the lookup saves).
inline constexpr std::size_t kStringCacheMaxBytes = 64;
struct StringCacheEntry {
  const char* key = nullptr;   // the caller's text, where it was last seen
  const char* text = nullptr;  // the interned copy
  std::uint32_t size = 0;
  std::uint32_t id = 0;
};
inline StringCacheEntry g_string_cache[kStringCacheSize];
[[nodiscard]] inline StringCacheEntry& string_slot(const char* key) noexcept {
  // Every bit of the address counts: string literals sit a few bytes apart.
  const auto k = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(key));
  return g_string_cache[(k * 0x9e3779b97f4a7c15ull) >> (64 - std::countr_zero(kStringCacheSize))];
}
// The id of `text`, if the cache holds it; ~0u otherwise.
[[nodiscard]] inline std::uint32_t cached_string(std::string_view text) noexcept {
  const StringCacheEntry& e = string_slot(text.data());
  if (e.key == text.data() && e.size == text.size() && e.key != nullptr &&
      std::memcmp(e.text, text.data(), text.size()) == 0)
    return e.id;
  return ~std::uint32_t{0};
}

// The ticks for a record of `Head` whose first thread is `a`, reading the
// counter only when needed (the rule above).
template <RecordCode Head>
[[nodiscard]] inline std::uint64_t stamp(RecordWindow& w, std::int64_t a) noexcept {
  // A run ends (idle: the loop blocks; a switch back to the scheduler) or
  // starts (a switch to a thread) here.
  const bool ends = Head == RecordCode::idle || (Head == RecordCode::switch_ && a == kScheduler);
  const bool starts = Head == RecordCode::idle || (Head == RecordCode::switch_ && a != kScheduler);
  if (!ends && w.since_stamp < kStampEvery - 1 && !g_user_code_returned) [[likely]] {
    w.since_stamp = starts ? kStampEvery : w.since_stamp + 1;
    return w.last_ticks;
  }
  g_user_code_returned = false;
  w.since_stamp = starts ? kStampEvery : 0;  // kStampEvery: the next record stamps too
  w.last_ticks = read_ticks();
  return w.last_ticks;
}

// Stores one record at `r` (the cursor) and publishes it.
template <RecordCode Head>
[[gnu::always_inline]] inline void write_record_at(RecordWindow& w, Record* r, std::uint8_t code, std::int64_t a,
                                                   std::int64_t b, std::uint32_t ref) noexcept {
  r->ticks = stamp<Head>(w, a);
  r->a = a;
  r->b = b;
  r->ref = ref;
  r->head = static_cast<std::uint8_t>(Head);
  r->code = code;
  r->flags = 0;
  w.cursor.store(r + 1, std::memory_order_release);
  prefetch_for_write(r + 1 + kPrefetchAhead);
}

// Stores one record at the cursor and publishes it. The caller has made
// sure the window has room and is its own (a buffering sink on its slow
// path, after making room).
template <RecordCode Head>
inline void write_record(std::uint8_t code, std::int64_t a, std::int64_t b, std::uint32_t ref) noexcept {
  RecordWindow& w = g_record_window;
  write_record_at<Head>(w, w.cursor.load(std::memory_order_relaxed), code, a, b, ref);
}

// The slot for this thread's next record: the cursor, if this thread owns
// the window and it has room; null otherwise (the caller then takes the
// sink's path).
[[nodiscard, gnu::always_inline]] inline Record* own_slot() noexcept {
  const RecordWindow& w = g_record_window;
  // The owner first: another thread reads nothing the owner writes.
  if (t_record_owner != w.owner.load(std::memory_order_relaxed)) [[unlikely]] return nullptr;
  Record* const r = w.cursor.load(std::memory_order_relaxed);
  if (r == w.end) [[unlikely]] return nullptr;
  return r;
}

// Stores one record if this thread owns the window and it has room; false
// otherwise (the caller then takes the sink's path).
template <RecordCode Head>
[[gnu::always_inline]] inline bool try_append(std::uint8_t code, std::int64_t a, std::int64_t b,
                                              std::uint32_t ref) noexcept {
  Record* const r = own_slot();
  if (r == nullptr) [[unlikely]] return false;
  write_record_at<Head>(g_record_window, r, code, a, b, ref);
  return true;
}

}  // namespace detail
}  // namespace skein::trace
