// scheduler.cpp — the loop behind run(), the paused list, timers, and the
// ready queue of deferred callbacks (scheduler.hpp describes an iteration).
//
// Invariants of the loop:
//   1. inside run() the actor is -1 except while a callback runs, and
//      g_runtime.depth is 0 between events;
//   2. every paused node and every armed timer holds a reference on its
//      node, given back when the loop has dealt with it (settled or found
//      settled already by a cancellation);
//   3. after each event that ran threads' code (a deferred list, a woken
//      pause with waiters, a fired timer with waiters) the loop records
//      switch -1, so the trace shows control coming back to it;
//   4. while threads are paused, an iteration polls I/O if kIoPollPeriod
//      or more has passed since the last poll (PollTimer), so no ready event
//      waits behind more than the iteration in progress and kIoPollPeriod of
//      shorter ones.
#include "runtime/scheduler.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "runtime/cancel_ops.hpp"
#include "runtime/ready_queue.hpp"
#include "runtime/resolver.hpp"
#include "runtime/settle.hpp"
#include "runtime/trace_record.hpp"

namespace skein {

namespace detail {

namespace {

// When a loop that keeps pausing polls I/O next (invariant 4). The test an
// iteration makes is one read of the time-stamp counter and a compare: in
// the pause loop (W2, one pause an iteration) it adds about 40% to a pause,
// where a steady_clock read added 80% and polling at every iteration 70%
// (with no timer armed; an armed one makes a poll cost ~0.1-0.2 us).
// steady_clock is read only at a poll, to learn how many ticks make
// kIoPollPeriod. Until that is measured over kCalibration, one tick is
// taken for a nanosecond: an x86 time-stamp counter runs at the processor's
// nominal rate, above 1 GHz, and elsewhere read_ticks counts nanoseconds,
// so the first polls come early, never late.
class PollTimer {
 public:
  // True, and the next poll scheduled, when a poll is due now.
  [[nodiscard]] bool due() {
    const std::uint64_t now = trace::read_ticks();
    if (now < due_) [[likely]] return false;
    schedule_after(now);
    return true;
  }

 private:
  static constexpr std::chrono::milliseconds kCalibration{1};
  static constexpr double kMaxTicksPerNs = 10.0;

  void schedule_after(std::uint64_t now) {
    const auto time = std::chrono::steady_clock::now();
    if (!started_) {
      started_ = true;
      origin_ticks_ = now;
      origin_time_ = time;
    } else if (time - origin_time_ >= kCalibration && now > origin_ticks_) {
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(time - origin_time_).count();
      // Defensive: no counter runs at 10 GHz, so a wild reading cannot
      // postpone the polls by more than ten periods.
      ticks_per_ns_ = std::min(kMaxTicksPerNs, static_cast<double>(now - origin_ticks_) / static_cast<double>(ns));
    }
    const auto period_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(kIoPollPeriod).count();
    due_ = now + static_cast<std::uint64_t>(static_cast<double>(period_ns) * ticks_per_ns_);
  }

  std::uint64_t due_ = 0;           // ticks from which the next poll is due
  bool started_ = false;            // the first poll has set the origin
  std::uint64_t origin_ticks_ = 0;  // the first poll: the base of ticks_per_ns_
  std::chrono::steady_clock::time_point origin_time_{};
  double ticks_per_ns_ = 1.0;
};

struct Scheduler {
  ReadyQueue ready;
  std::vector<Node*> paused;  // referenced; woken at the next iteration
  std::vector<Node*> waking;  // the batch being woken (kept for its capacity)
  PollTimer poll;             // when a loop that keeps pausing polls I/O
};
Scheduler g_scheduler;

std::atomic<std::thread::id> g_runner{};

// Claims the scheduler for this OS thread for the duration of one run().
class RunGuard {
 public:
  RunGuard() {
    std::thread::id expected{};
    const std::thread::id me = std::this_thread::get_id();
    if (!g_runner.compare_exchange_strong(expected, me)) {
      if (expected == me)
        throw std::logic_error(
            "skein::run: nested call; run is already running on this thread (inside a callback, "
            "compose promises with bind instead of running the loop again)");
      throw std::logic_error(
          "skein::run: the scheduler is already running on another OS thread; the runtime is "
          "single-threaded and has one scheduler per process");
    }
    // The thread that runs the loop is the one whose records a capture
    // takes (trace_record.hpp, invariant 2).
    if constexpr (trace::kTraceHooks) trace::take_record_window();
  }
  ~RunGuard() { g_runner.store(std::thread::id{}); }
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;
};

// Settles a promise the loop woke (pause, timer) and tells the trace why.
void wake(Node* node, trace::Reason reason) {
  NodeT<void>* root = underlying(static_cast<NodeT<void>*>(node));
  if (root->state != NodeState::pending) return;  // cancelled meanwhile
  trace_notify(trace::kScheduler, root, reason);
  const bool runs_code = root->last != nullptr;
  fulfill(root);
  if (runs_code) trace_switch(trace::kScheduler);
}

void run_ready_queue() {
  Scheduler& s = g_scheduler;
  while (!s.ready.empty()) {
    ReadyEntry entry = s.ready.pop();
    g_runtime.depth = 1;
    run_waiters(entry.settled, entry.last, WaitEvent::fire_deferred);
    g_runtime.depth = 0;
    trace_switch(trace::kScheduler);
    release(entry.settled);
  }
}

void wake_paused() {
  Scheduler& s = g_scheduler;
  s.waking.swap(s.paused);
  for (Node* node : s.waking) {
    wake(node, trace::Reason::yield);
    release(node);
  }
  s.waking.clear();
}

boost::asio::io_context& context() {
  static auto* io = new boost::asio::io_context(1);  // never destroyed: handlers may outlive main
  return *io;
}

// Runs ready I/O handlers and expired timers; blocks first when asked.
// Returns false when blocking was asked and there was nothing to wait for.
bool service_io(bool block) {
  boost::asio::io_context& io = context();
  if (io.stopped()) io.restart();
  if (!block) {
    io.poll();
    return true;
  }
  trace_idle();
  const std::size_t handled = io.run_one();
  if (handled == 0) io.restart();
  return handled != 0;
}

// --- pause and sleep nodes ------------------------------------------------------

inline constexpr NodeOps pause_ops{&destroy_as<NodeT<void>>, &cancel_by_settling, trace::Kind::pause};

struct SleepNode final : NodeT<void> {
  explicit SleepNode(const NodeOps* node_ops) : NodeT<void>(node_ops, next_thread_id()), timer(context()) {}
  boost::asio::steady_timer timer;

  static void cancel(Node* self, Node* root, CancelWork&) {
    settle_canceled(root);
    static_cast<SleepNode*>(self)->timer.cancel();
  }
};
inline constexpr NodeOps sleep_ops{&destroy_as<SleepNode>, &SleepNode::cancel, trace::Kind::sleep};

}  // namespace

void defer_waiters(Node* settled, Waiter* last) {
  add_ref(settled);
  g_scheduler.ready.push({settled, last});
}

std::size_t ready_queue_size() noexcept { return g_scheduler.ready.size(); }
std::size_t paused_count() noexcept { return g_scheduler.paused.size(); }

void run_until_settled(Node* node) {
  RunGuard guard;
  Scheduler& s = g_scheduler;
  struct Hold {  // the loop keeps `node` alive whatever its callbacks drop
    Node* held;
    ~Hold() { release(held); }
  } hold{node};
  add_ref(node);
  struct ActorRestore {
    ThreadId caller = g_runtime.actor;
    int depth = g_runtime.depth;
    ~ActorRestore() {
      g_runtime.actor = caller;
      g_runtime.depth = depth;
    }
  } restore;
  if (underlying(node)->state == NodeState::pending) trace_wait(restore.caller, underlying(node));
  g_runtime.actor = trace::kScheduler;
  g_runtime.depth = 0;
  trace_switch(trace::kScheduler);
  for (;;) {
    run_ready_queue();
    if (underlying(node)->state != NodeState::pending) break;
    if (s.paused.empty()) {
      if (!service_io(true))
        throw std::logic_error(
            "skein::run: deadlock: the promise is pending and nothing is left that could settle it "
            "(no paused promise, no deferred callback, no timer or I/O)");
    } else if (s.poll.due()) {
      service_io(false);
    }
    wake_paused();
  }
  trace_switch(restore.caller);
}

}  // namespace detail

boost::asio::io_context& io_context() { return detail::context(); }

Promise<void> pause(std::source_location site) {
  auto* node = detail::make_node<detail::NodeT<void>>(&detail::pause_ops, detail::next_thread_id());
  detail::trace_spawn(node, site);
  detail::add_ref(node);
  detail::g_scheduler.paused.push_back(node);
  return Promise<void>::adopt(node);
}

Promise<void> sleep(std::chrono::nanoseconds duration, std::source_location site) {
  auto* node = detail::make_node<detail::SleepNode>(&detail::sleep_ops);
  detail::trace_spawn(node, site);
  node->timer.expires_after(duration);
  detail::add_ref(node);  // the timer's handler owns one
  node->timer.async_wait([node](const boost::system::error_code& ec) {
    if (!ec) {
      const ThreadId saved = detail::g_runtime.actor;
      detail::g_runtime.actor = trace::kScheduler;
      detail::wake(node, trace::Reason::timer);
      detail::g_runtime.actor = saved;
    }
    detail::release(node);
  });
  return Promise<void>::adopt(node);
}

}  // namespace skein
