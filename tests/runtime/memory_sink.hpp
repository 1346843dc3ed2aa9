// memory_sink.hpp — a trace sink for tests: keeps every record as a line of
// text ("spawn 3 0 bind", "wait 3 1", "resolve 1 0 ok", "switch -1"), for
// golden tests that compare the exact sequence.
//
// Ids are renumbered in order of first appearance (1, 2, ...; -1 and 0 kept),
// so a golden trace does not depend on how many promises earlier tests made.
// Primitives' numbers (no-waiter, queued) are renumbered apart, written #1,
// #2, ... ("no-waiter 0 #1 condition"), since they are not threads; their
// raw values are kept beside the lines, with failure messages and spawn
// sites.
#pragma once

#include <map>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/trace_sink.hpp"

namespace skein::test {

class MemorySink final : public trace::Sink {
 public:
  std::vector<std::string> lines;
  std::vector<std::string> messages;  // of resolve ... fail, in order
  std::vector<std::source_location> sites;  // of spawn, in order
  std::vector<trace::ObjectId> objects;     // of no-waiter and queued, raw, in order

  void spawn(ThreadId child, ThreadId parent, trace::Kind kind, const std::source_location& site) override {
    sites.push_back(site);
    add("spawn " + id(child) + " " + id(parent) + " " + std::string(trace::kind_name(kind)));
  }
  void wait(ThreadId waiter, ThreadId input) override { add("wait " + id(waiter) + " " + id(input)); }
  void read(ThreadId reader, ThreadId input) override { add("read " + id(reader) + " " + id(input)); }
  void notify(ThreadId sender, ThreadId receiver, trace::Reason reason) override {
    add("notify " + id(sender) + " " + id(receiver) + " " + std::string(trace::reason_name(reason)));
  }
  void resolve(ThreadId thread, ThreadId by, trace::Outcome outcome, std::string_view message) override {
    if (outcome == trace::Outcome::fail) messages.emplace_back(message);
    add("resolve " + id(thread) + " " + id(by) + " " + std::string(trace::outcome_name(outcome)));
  }
  void merge(ThreadId thread, ThreadId into) override { add("merge " + id(thread) + " " + id(into)); }
  void label(ThreadId thread, std::string_view text) override { add("label " + id(thread) + " " + std::string(text)); }
  void switch_to(ThreadId thread) override { add("switch " + id(thread)); }
  void counter(std::string_view name, std::int64_t value) override {
    add("counter " + std::string(name) + " " + std::to_string(value));
  }
  void idle() override { add("idle"); }
  void should_resolve(ThreadId thread) override { add("should-resolve " + id(thread)); }
  void drop(ThreadId thread, ThreadId by) override { add("drop " + id(thread) + " " + id(by)); }
  void no_waiter(ThreadId sender, trace::ObjectId object, trace::Reason reason) override {
    add("no-waiter " + id(sender) + " " + object_name(object) + " " + std::string(trace::reason_name(reason)));
  }
  void queued(ThreadId waiter, trace::ObjectId object) override {
    add("queued " + id(waiter) + " " + object_name(object));
  }

  // The lines from `first` on.
  [[nodiscard]] std::vector<std::string> from(std::size_t first) const {
    return {lines.begin() + static_cast<std::ptrdiff_t>(first), lines.end()};
  }

 private:
  void add(std::string line) { lines.push_back(std::move(line)); }
  std::string id(ThreadId raw) {
    if (raw < 1) return std::to_string(raw);
    auto [it, fresh] = renumber_.try_emplace(raw, static_cast<ThreadId>(renumber_.size() + 1));
    return std::to_string(it->second);
  }
  std::string object_name(trace::ObjectId raw) {
    objects.push_back(raw);
    auto [it, fresh] = renumber_objects_.try_emplace(raw, static_cast<trace::ObjectId>(renumber_objects_.size() + 1));
    return "#" + std::to_string(it->second);
  }
  std::map<ThreadId, ThreadId> renumber_;
  std::map<trace::ObjectId, trace::ObjectId> renumber_objects_;
};

// Installs a sink for the scope of a test.
class ScopedSink {
 public:
  explicit ScopedSink(trace::Sink& sink) : previous_(trace::set_sink(&sink)) {}
  ~ScopedSink() { trace::set_sink(previous_); }
  ScopedSink(const ScopedSink&) = delete;
  ScopedSink& operator=(const ScopedSink&) = delete;

 private:
  trace::Sink* previous_;
};

}  // namespace skein::test
