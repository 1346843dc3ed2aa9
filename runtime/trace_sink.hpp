// trace_sink.hpp — the interface through which the runtime reports what it
// does; the recorder implements it (the runtime never depends on recorder/).
//
// Every hook names threads by ThreadId (thread_id.hpp). A plain sink takes
// its own timestamps. A buffering sink (the recorder's capture) also opens a
// record window (trace_record.hpp): while it has room, the hooks store
// fixed-size records there inline, stamped with the time-stamp counter, and
// call the sink only for what the window cannot take. With no sink set, a
// hook costs one predictable branch on a global pointer; built with
// SKEIN_TRACE_HOOKS=0 the hooks compile to nothing.
//
// What the runtime reports (OVERVIEW.md, section 7, has the rule a trace
// analysis checks: every passage of control between threads is explained):
//   spawn      every creation, with its kind and the creating call's site;
//   wait       a waiter attaching to a pending promise;
//   read       a thread consuming another's outcome;
//   notify     a wake-up: from the loop (-1) for pause (yield), sleep
//              (timer) and I/O (io); from the waking thread for the sync
//              primitives (mutex, condition, mailbox, stream, semaphore);
//              from the current thread, reason external or request, for
//              skein::notify (notify.hpp: communication the runtime cannot
//              see);
//   resolve    every settlement, `by` the actor at the time;
//   merge      a tail-merge: `thread` now behaves as `into`;
//   switch_to  the scheduler handing control to a thread (-1: back to it);
//   should_resolve
//              the program expects a thread to settle (should_resolve.hpp):
//              still pending at the end, it is an error even in a snapshot;
//   drop       a pending thread's last means of being settled is gone, `by`
//              the actor: its last Resolver ended (resolver.hpp), or the
//              primitive it waited in died with it queued (wait_queue.hpp);
//   no_waiter  a signal, release, put or push found no thread waiting on
//              the primitive `object` (condition.hpp, semaphore.hpp,
//              mailbox.hpp, stream.hpp; a Mutex's unlock records none);
//   queued     a blocking call's thread joined the wait queue of `object`,
//              once that primitive has a number (its first no_waiter);
//   label, counter, idle (the loop is about to block).
//
// Objects. A primitive that records a no_waiter gets a number then, its
// ObjectId, kept for its life: counted up from 1 by a process-wide counter
// of its own (trace_hooks.hpp), apart from thread ids, so an object is
// never taken for a thread.
#pragma once

#include <cstdint>
#include <source_location>
#include <string_view>

#include "runtime/thread_id.hpp"
#include "runtime/trace_record.hpp"

#ifndef SKEIN_TRACE_HOOKS
#define SKEIN_TRACE_HOOKS 1
#endif

namespace skein::trace {

inline constexpr bool kTraceHooks = SKEIN_TRACE_HOOKS != 0;

// How a thread came to be. The names are the format's symbols.
enum class Kind : std::uint8_t {
  task, wait, bind, map, catch_, finalize, join, all, choose, pick, async,
  fiber, coroutine, sleep, pause, io, mutex, condition, mailbox, stream, semaphore
};
// Why a thread was woken. A reason's code is the byte the capture's binary
// records carry (trace_record.hpp): a new reason goes at the end, so the
// codes in use keep their values.
enum class Reason : std::uint8_t {
  timer, io, yield, condition, mailbox, mutex, stream, semaphore, external, request
};
enum class Outcome : std::uint8_t { ok, fail, cancel };

// A synchronisation primitive's number in the trace (no_waiter, queued):
// 1 and up; kNoObject until its first no_waiter (see Objects above).
using ObjectId = std::int64_t;
inline constexpr ObjectId kNoObject = 0;

[[nodiscard]] std::string_view kind_name(Kind kind);
[[nodiscard]] std::string_view reason_name(Reason reason);
[[nodiscard]] std::string_view outcome_name(Outcome outcome);

class Sink {
 public:
  virtual ~Sink();
  virtual void spawn(ThreadId child, ThreadId parent, Kind kind, const std::source_location& site) = 0;
  virtual void wait(ThreadId waiter, ThreadId input) = 0;
  virtual void read(ThreadId reader, ThreadId input) = 0;
  virtual void notify(ThreadId sender, ThreadId receiver, Reason reason) = 0;
  // `message` is the failure's what() (empty for ok and cancel).
  virtual void resolve(ThreadId thread, ThreadId by, Outcome outcome, std::string_view message) = 0;
  virtual void merge(ThreadId thread, ThreadId into) = 0;
  virtual void label(ThreadId thread, std::string_view text) = 0;
  virtual void switch_to(ThreadId thread) = 0;
  virtual void counter(std::string_view name, std::int64_t value) = 0;
  virtual void idle() = 0;
  virtual void should_resolve(ThreadId thread) = 0;
  // `thread`, pending, can never be settled now; `by` let go of the last
  // means to settle it.
  virtual void drop(ThreadId thread, ThreadId by) = 0;
  // `sender` signalled primitive `object` and no thread was waiting;
  // `reason` says which primitive (condition, semaphore, mailbox, stream).
  virtual void no_waiter(ThreadId sender, ObjectId object, Reason reason) = 0;
  // `waiter`, a blocking call's thread, joined primitive `object`'s queue.
  virtual void queued(ThreadId waiter, ObjectId object) = 0;

  // A buffering sink: it opens a record window (trace_record.hpp), which
  // set_sink() gives to the installing thread.
  [[nodiscard]] bool has_record_window() const noexcept { return has_record_window_; }

 protected:
  bool has_record_window_ = false;  // set by a buffering sink's constructor
};

namespace detail {
inline Sink* g_trace_sink = nullptr;  // read by every hook; see trace_hooks.hpp
}  // namespace detail

// Installs `sink` (nullptr: tracing off) and returns the previous one; the
// record window goes with it, to the calling OS thread if the sink has one
// (trace_record.hpp, invariant 2). The sink must outlive its installation.
// Not thread-safe, like the runtime. Async-signal-safe (the capture's crash
// path uninstalls its sink with it).
Sink* set_sink(Sink* sink);
// The records (and the record window, if open to the installed sink) pass
// to the calling OS thread. run() calls it as the loop starts: the thread
// that runs the loop owns the records, whichever thread started the capture
// or recorded first (trace_record.hpp, invariant 2). Not thread-safe, like
// the runtime (run() admits one OS thread at a time).
void take_record_window() noexcept;
[[nodiscard]] inline Sink* sink() { return detail::g_trace_sink; }

}  // namespace skein::trace
