// trace_sink.cpp — the names of the trace's symbols and the sink's switch.
#include "runtime/trace_sink.hpp"

namespace skein::trace {

Sink::~Sink() = default;

Sink* set_sink(Sink* sink) {
  Sink* previous = detail::g_trace_sink;
  detail::g_trace_sink = sink;
  detail::g_record_window.owner = sink != nullptr ? sink->record_owner() : kNoOwner;
  return previous;
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
