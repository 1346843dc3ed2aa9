// cooperative_trace.hpp — generates traces that are complete by the
// missing-notification rule, for its mutation test: a small simulation of
// a cooperative program, recording every cause the way Skein's runtime
// does (tests/runtime/*golden_test.cpp), so that removing one causal record
// must make a transfer of control unexplained.
//
// The program: the main thread spawns fibers; the loop (-1) fires timers
// and I/O (notify, then resolve of the leaf promise) and switches to
// fibers that are ready. A resolve runs the callbacks of the binds waiting
// on the resolved thread, inside the resolver (read, then the bind
// resolves itself, and so on down the chain). A running fiber spawns
// leaves and binds, resolves `wait` promises others wait on, notifies
// another fiber (a mailbox hand-over), starts async threads (which run at
// once), and blocks: on a new leaf, on a pause (a yield from the loop), or
// finishes. Deterministic for a seed.
//
// Polling, as the rule reads it (viewer/analysis/LINTS.md): a fiber woken by its
// pause right after a turn that was woken the same way and handed nothing
// off (no resolve of a thread it did not create, no notify) is polling; an
// honest poller finds only what the trace records, and nothing here sets a
// condition for it, so it hands nothing off. (A fiber told by an `external`
// notify would have two causes for its switch, its pause and the notify,
// and removing one would leave the other: the mutation test could not see
// it. tests/viewer/analysis/lint_mutation_test.cpp removes such a notify from a
// poll loop written as blockread's is.)
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace skein::test {

class CooperativeTrace {
 public:
  explicit CooperativeTrace(std::uint64_t seed) : rng_(seed) {}

  std::string generate(int loop_turns) {
    out_ = "(skein-trace 1 (process \"cooperative\"))\n";
    for (int i = 0; i < 4; ++i) spawn_fiber(0);
    emit("(spawn " + now() + " " + std::to_string(next_id_) + " 0 sleep)");
    leaves_.push_back({next_id_++, "sleep"});
    for (int turn = 0; turn < loop_turns; ++turn) loop_turn();
    emit("(end " + now() + ")");
    return out_;
  }

 private:
  struct Leaf {
    std::int64_t id;
    std::string kind;  // sleep, io: the loop resolves it; wait: a fiber does
    std::int64_t creator = -1;
  };
  struct Fiber {
    std::int64_t id;
    std::int64_t blocked_on = -2;  // -2: not blocked on a thread
    bool ready = false;            // its input resolved, or it was notified
    bool notified_wake = false;
    bool done = false;
    bool waiting_notify = false;
    std::int64_t last_input = -1;  // what it reads first when switched to again
    bool paused = false;           // blocked on a pause: its next turn is woken by its own yield
    bool idle_poll = false;        // its last turn was woken by its yield alone and handed nothing off
  };

  std::string now() {
    time_ += 100 + static_cast<std::int64_t>(roll(900));
    return std::to_string(time_);
  }
  std::uint64_t roll(std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_); }
  void emit(const std::string& line) { out_ += line + "\n"; }
  std::string id(std::int64_t t) { return std::to_string(t); }

  void spawn_fiber(std::int64_t parent) {
    const std::int64_t f = next_id_++;
    emit("(spawn " + now() + " " + id(f) + " " + id(parent) + " fiber)");
    fibers_.push_back({f});
    fibers_.back().ready = true;  // a new fiber is switched to when the loop gets to it
  }

  // A new leaf promise, spawned by `by`, with binds waiting on it sometimes.
  std::int64_t spawn_leaf(std::int64_t by, const std::string& kind) {
    const std::int64_t l = next_id_++;
    emit("(spawn " + now() + " " + id(l) + " " + id(by) + " " + kind + ")");
    leaves_.push_back({l, kind, by});
    const int binds = static_cast<int>(roll(3));
    std::int64_t input = l;
    for (int i = 0; i < binds; ++i) {
      const std::int64_t b = next_id_++;
      emit("(spawn " + now() + " " + id(b) + " " + id(by) + " bind)");
      emit("(wait " + now() + " " + id(b) + " " + id(input) + ")");
      waiters_[input].push_back(b);
      if (roll(2) == 0) input = b;  // a chain: the next bind waits on this one
    }
    return l;
  }

  // `by` settles `t`; the callbacks of its waiters run inside, in order.
  void resolve(std::int64_t t, std::int64_t by) {
    const bool fail = roll(20) == 0;
    emit("(resolve " + now() + " " + id(t) + " " + id(by) + (fail ? " fail \"E\")" : " ok)"));
    for (Fiber& f : fibers_)
      if (f.blocked_on == t) {
        f.blocked_on = -2;
        f.ready = true;
      }
    const auto it = waiters_.find(t);
    if (it == waiters_.end()) return;
    const std::vector<std::int64_t> waiters = it->second;
    waiters_.erase(it);
    for (const std::int64_t w : waiters) {
      emit("(read " + now() + " " + id(w) + " " + id(t) + ")");
      if (roll(4) == 0) emit("(counter " + now() + " \"work\" " + std::to_string(roll(100)) + ")");
      resolve(w, w);
    }
  }

  void loop_turn() {
    emit("(switch " + now() + " -1)");
    const std::uint64_t r = roll(10);
    if (r < 4) {
      // A timer or I/O completes.
      std::vector<std::size_t> loop_leaves;
      for (std::size_t i = 0; i < leaves_.size(); ++i)
        if (leaves_[i].kind != "wait") loop_leaves.push_back(i);
      if (!loop_leaves.empty()) {
        const std::size_t i = loop_leaves[roll(loop_leaves.size())];
        const Leaf leaf = leaves_[i];
        leaves_.erase(leaves_.begin() + static_cast<std::ptrdiff_t>(i));
        if (roll(2) == 0) emit("(idle " + now() + ")");
        const std::string reason = leaf.kind == "sleep" ? "timer" : leaf.kind == "pause" ? "yield" : "io";
        emit("(notify " + now() + " -1 " + id(leaf.id) + " " + reason + ")");
        resolve(leaf.id, -1);
        return;
      }
    }
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < fibers_.size(); ++i)
      if (fibers_[i].ready && !fibers_[i].done) ready.push_back(i);
    if (ready.empty()) {
      if (fibers_.size() < 40 && roll(3) == 0) {
        // An external event starts a new fiber from the loop.
        const std::int64_t f = next_id_++;
        emit("(spawn " + now() + " " + id(f) + " -1 fiber)");
        fibers_.push_back({f});
        fibers_.back().ready = true;
      }
      return;
    }
    run_fiber(ready[roll(ready.size())]);
  }

  void run_fiber(std::size_t index) {
    const std::int64_t f = fibers_[index].id;
    fibers_[index].ready = false;
    const bool by_yield = fibers_[index].paused;
    const bool polling = by_yield && fibers_[index].idle_poll;
    fibers_[index].paused = false;
    bool handed_off = false;
    emit("(switch " + now() + " " + id(f) + ")");
    if (fibers_[index].last_input >= 0) {
      emit("(read " + now() + " " + id(f) + " " + id(fibers_[index].last_input) + ")");
      fibers_[index].last_input = -1;
    }
    const int actions = 1 + static_cast<int>(roll(4));
    for (int a = 0; a < actions; ++a) {
      const std::uint64_t r = roll(10);
      if (polling && r >= 3 && r < 8) continue;  // it found nothing to hand off
      if (r < 3) {
        spawn_leaf(f, roll(2) == 0 ? "wait" : (roll(2) == 0 ? "io" : "sleep"));
      } else if (r < 6) {
        // Settle a `wait` promise: its callbacks run inside this fiber.
        std::vector<std::size_t> waits;
        for (std::size_t i = 0; i < leaves_.size(); ++i)
          if (leaves_[i].kind == "wait") waits.push_back(i);
        if (waits.empty()) continue;
        const std::size_t i = waits[roll(waits.size())];
        const std::int64_t l = leaves_[i].id;
        handed_off = handed_off || leaves_[i].creator != f;
        leaves_.erase(leaves_.begin() + static_cast<std::ptrdiff_t>(i));
        resolve(l, f);
      } else if (r < 8) {
        // Hand a message to a fiber blocked on its mailbox.
        for (Fiber& g : fibers_)
          if (g.waiting_notify && g.id != f) {
            emit("(notify " + now() + " " + id(f) + " " + id(g.id) + " mailbox)");
            g.waiting_notify = false;
            g.ready = true;
            handed_off = true;
            break;
          }
      } else {
        // An async thread runs at once, then control comes back.
        const std::int64_t t = next_id_++;
        emit("(spawn " + now() + " " + id(t) + " " + id(f) + " async)");
        if (roll(2) == 0) spawn_leaf(t, "wait");
        emit("(resolve " + now() + " " + id(t) + " " + id(t) + " ok)");
        emit("(label " + now() + " " + id(f) + " \"back\")");
        emit("(counter " + now() + " \"async\" " + std::to_string(roll(100)) + ")");
      }
    }
    // Block, yield, wait for a message, or finish. The first record after
    // control comes back is the fiber's own (it returns from the stack).
    const std::uint64_t r = roll(10);
    Fiber& me = fibers_[index];
    me.idle_poll = by_yield && !handed_off;
    if (r < 4) {
      const std::int64_t l = next_id_++;
      const std::string kind = roll(2) == 0 ? "io" : "wait";
      emit("(spawn " + now() + " " + id(l) + " " + id(f) + " " + kind + ")");
      leaves_.push_back({l, kind, f});
      emit("(wait " + now() + " " + id(f) + " " + id(l) + ")");
      me.blocked_on = l;
      me.last_input = l;
    } else if (r < 6) {
      const std::int64_t p = next_id_++;
      emit("(spawn " + now() + " " + id(p) + " " + id(f) + " pause)");
      emit("(wait " + now() + " " + id(f) + " " + id(p) + ")");
      leaves_.push_back({p, "pause", f});
      me.blocked_on = p;
      me.last_input = p;
      me.paused = true;
    } else if (r < 8) {
      me.waiting_notify = true;
      emit("(label " + now() + " " + id(f) + " \"take\")");
    } else {
      emit("(resolve " + now() + " " + id(f) + " " + id(f) + " ok)");
      me.done = true;
    }
  }

  std::mt19937_64 rng_;
  std::string out_;
  std::int64_t time_ = 0;
  std::int64_t next_id_ = 1;
  std::vector<Leaf> leaves_;
  std::vector<Fiber> fibers_;
  std::map<std::int64_t, std::vector<std::int64_t>> waiters_;
};

}  // namespace skein::test
