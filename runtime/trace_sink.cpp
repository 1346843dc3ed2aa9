// trace_sink.cpp — the names of the trace's symbols, the sink's switch, and
// who owns the record window.
#include "runtime/trace_sink.hpp"

namespace skein::trace {

Sink::~Sink() = default;

namespace {

// The records, under a token no thread has held, to this thread; and the
// window with them if it is open to the installed sink.
void give_records_here(bool window_open) noexcept {
  const std::uint64_t token = detail::g_record_owner_tokens.fetch_add(1, std::memory_order_relaxed) + 1;
  detail::t_record_owner = token;
  detail::g_record_owner.store(token, std::memory_order_release);
  if (window_open) detail::g_record_window.owner.store(token, std::memory_order_release);
}

}  // namespace

Sink* set_sink(Sink* sink) {
  Sink* previous = detail::g_trace_sink;
  detail::g_trace_sink = sink;
  if (sink != nullptr && sink->has_record_window()) give_records_here(true);
  else detail::g_record_window.owner.store(kNoOwner, std::memory_order_release);
  return previous;
}

void take_record_window() noexcept {
  const std::uint64_t owner = detail::g_record_owner.load(std::memory_order_relaxed);
  if (owner == kNoOwner || owner == detail::t_record_owner) return;  // no capture yet, or this thread's already
  give_records_here(detail::g_record_window.owner.load(std::memory_order_relaxed) != kNoOwner);
}

std::string_view kind_name(Kind kind) {
  switch (kind) {
    case Kind::task: return "task";
    case Kind::wait: return "wait";
    case Kind::bind: return "bind";
    case Kind::map: return "map";
    case Kind::catch_: return "catch";
    case Kind::finalize: return "finalize";
    case Kind::join: return "join";
    case Kind::all: return "all";
    case Kind::choose: return "choose";
    case Kind::pick: return "pick";
    case Kind::async: return "async";
    case Kind::fiber: return "fiber";
    case Kind::coroutine: return "coroutine";
    case Kind::sleep: return "sleep";
    case Kind::pause: return "pause";
    case Kind::io: return "io";
    case Kind::mutex: return "mutex";
    case Kind::condition: return "condition";
    case Kind::mailbox: return "mailbox";
    case Kind::stream: return "stream";
    case Kind::semaphore: return "semaphore";
  }
  return "unknown";
}

std::string_view reason_name(Reason reason) {
  switch (reason) {
    case Reason::timer: return "timer";
    case Reason::io: return "io";
    case Reason::yield: return "yield";
    case Reason::condition: return "condition";
    case Reason::mailbox: return "mailbox";
    case Reason::mutex: return "mutex";
    case Reason::stream: return "stream";
    case Reason::semaphore: return "semaphore";
    case Reason::external: return "external";
    case Reason::request: return "request";
  }
  return "unknown";
}

std::string_view outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::ok: return "ok";
    case Outcome::fail: return "fail";
    case Outcome::cancel: return "cancel";
  }
  return "unknown";
}

}  // namespace skein::trace
