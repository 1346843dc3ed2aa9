// blockread — the scenario of the 2014 MirageOS trace, on Skein's runtime.
//
// A unikernel reads a block device through a Xen-style split driver. The
// frontend (this program's `B.read`) puts a request on a shared ring and
// returns a task; a simulated backend (the "disk", a fiber on the loop)
// takes requests off the ring one at a time, completes each after a latency
// (a timer), puts the response on the ring and raises an event; the
// frontend's `blkfront.poll` thread waits for that event, takes the
// responses off the ring and resolves each request's task; `Process data`
// (a fiber) keeps a few reads in flight and processes each block as it
// arrives. Counters, recorded whenever the frontend puts a request on the
// ring or takes a response off it: `blkfront.ring` (slots in use: requests
// the backend has not taken yet plus responses the frontend has not taken
// yet) and `blkfront.in-flight` (reads issued and not yet answered).
//
// Every hand-over is recorded, so the trace holds a B.read's whole round
// trip, which `skein why` and the viewer's Why? walk back: the task is
// resolved by the poll thread, which read the event the backend resolved,
// in a turn the backend's latency timer woke; the backend armed that timer
// in the turn in which it took the request, and that turn was woken by the
// frontend's request.
//   - The ring is shared memory the runtime cannot see. Putting a request
//     on it, the frontend tells the backend as Xen's frontend does
//     (RING_PUSH_REQUESTS_AND_CHECK_NOTIFY): only when the backend waits
//     for requests, and then it records notify(frontend -> backend,
//     request) (skein::notify with reason request, runtime/notify.hpp)
//     before it resolves the promise the backend waits on. The backend's
//     next turn is a switch to a thread notified since it last ran, which
//     the causality replay explains by that notify. A busy backend is not
//     told: it finds the next request on the ring when it finishes the one
//     it serves, in the turn its timer woke, so that request's round trip
//     goes back through the earlier requests' timers to the request that
//     last woke the backend.
//   - The event channel back is a promise the backend resolves, so the
//     poll thread's wake-up is explained by that resolve, and each request
//     is a task the poll thread resolves.
//
// --missing-notify plants the bug the trace analysis is for: the backend
// signals completion by setting a plain shared flag, which the poll thread
// polls with pause(). The data still arrives, but no record links the
// backend's completion to the poll thread resolving the reads: the only
// cause the trace gives for those activations is the poll thread's own
// yield, and `skein lint` reports a missing notification at each read the
// poll thread resolves after finding the flag (a hand-off after polling,
// viewer/analysis/LINTS.md). --annotate applies the one-line fix,
// skein::notify(poll thread) where the flag is set, which records
// notify(backend -> poll thread, external) (README.md, "Samples", shows
// both traces and both lints). The request edge is the same in every mode.
//
// The program is bounded: it reads --requests blocks, stops the poll
// thread and the backend, and ends with nothing pending.
#include <cstdint>
#include <cstdio>
#include <deque>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

constexpr std::size_t kSectorBytes = 512;
using Block = std::vector<unsigned char>;

struct Options {
  std::int64_t requests = 32;
  std::int64_t in_flight = 4;     // reads Process data keeps outstanding
  std::int64_t latency_us = 200;  // the simulated disk's service time
  bool missing_notify = false;    // signal completion through a polled flag
  bool annotate = false;          // ... and record it with skein::notify
};

// The shared ring, the backend, and the event channels between it and the
// frontend (requests one way, responses the other).
class BlockDevice {
 public:
  explicit BlockDevice(const Options& options) : options_(options) {}

  // B.read: queue a request on the ring; the promise resolves with the data.
  skein::Promise<Block> read(std::uint64_t sector) {
    auto [block, resolver] = skein::task<Block>();
    block.label("B.read");
    const std::uint64_t id = next_request_++;
    waiting_.emplace(id, std::move(resolver));
    requests_.push_back({id, sector});
    count_ring();
    notify_backend();
    return block;
  }

  // The backend, started once before any read: returns its fiber, which
  // ends after stop().
  skein::Promise<void> start_backend() {
    backend_ = skein::spawn_fiber([this] { serve_requests(); });
    return backend_;
  }

  // blkfront.poll, started once: returns the poll thread, which ends after
  // stop().
  skein::Promise<void> start_polling() {
    poll_thread_ = options_.missing_notify ? poll_flag() : poll_event();
    return poll_thread_;
  }

  void stop() {
    stopped_ = true;
    if (event_) {
      skein::Resolver<void> raise = std::move(*event_);
      event_.reset();
      raise.resolve();
    }
    if (backend_event_) {  // the backend waits for requests: let it see stopped_
      skein::Resolver<void> wake = std::move(*backend_event_);
      backend_event_.reset();
      wake.resolve();
    }
  }

 private:
  struct Request {
    std::uint64_t id;
    std::uint64_t sector;
  };

  void count_ring() const {
    skein::counter("blkfront.ring", static_cast<std::int64_t>(requests_.size() + responses_.size()));
    skein::counter("blkfront.in-flight", static_cast<std::int64_t>(waiting_.size()));
  }

  // The event-channel poll: wait for the backend's event, take the
  // responses, resolve each request; repeat until stopped.
  skein::Promise<void> poll_event() {
    if (stopped_) return skein::resolved();
    auto [event, raise] = skein::wait<void>();
    event.label("blkfront.event");
    event_ = std::move(raise);
    return event.then([this] {
      skein::label("blkfront.poll");
      deliver_responses();
      return poll_event();
    });
  }

  // The flag poll (--missing-notify): look at the flag once per turn of
  // the loop. Works, and costs a turn of the loop per poll; the trace sees
  // only the poll thread's own yields.
  skein::Promise<void> poll_flag() {
    if (stopped_) return skein::resolved();
    return skein::pause().then([this] {
      if (event_flag_) {
        event_flag_ = false;
        skein::label("blkfront.poll");
        deliver_responses();
      }
      return poll_flag();
    });
  }

  void deliver_responses() {
    while (!responses_.empty()) {
      auto [id, data] = std::move(responses_.front());
      responses_.pop_front();
      auto found = waiting_.find(id);
      if (found == waiting_.end()) continue;  // defensive: a response to nobody
      skein::Resolver<Block> resolver = std::move(found->second);
      waiting_.erase(found);
      count_ring();
      resolver.resolve(std::move(data));
    }
  }

  // The frontend's side of the request channel: a backend waiting for
  // requests is told, with the record that names this request as the cause
  // of its next turn; a busy one will look at the ring when it is done.
  void notify_backend() {
    if (!backend_event_) return;
    skein::notify(backend_, skein::trace::Reason::request);
    skein::Resolver<void> wake = std::move(*backend_event_);
    backend_event_.reset();
    wake.resolve();
  }

  // The backend's fiber: one request at a time, each completed after the
  // latency. Invariant: backend_event_ is set only while the fiber is
  // blocked for want of a request, so the frontend tells it of the first
  // request that arrives and of no other until it has looked at the ring
  // again.
  void serve_requests() {
    skein::label("backend");
    for (;;) {
      while (requests_.empty() && !stopped_) {
        auto [requested, wake] = skein::wait<void>();
        requested.label("blkback.event");
        backend_event_ = std::move(wake);
        skein::await(requested);
      }
      if (requests_.empty()) return;  // stopped, with nothing left to serve
      const Request request = requests_.front();
      requests_.pop_front();
      skein::Promise<void> timer = skein::sleep(std::chrono::microseconds(options_.latency_us));
      timer.label("blkback.timer");
      skein::await(timer);
      Block data(kSectorBytes);
      for (std::size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<unsigned char>((request.sector + i) % 251);
      responses_.push_back({request.id, std::move(data)});
      raise_event();
    }
  }

  // Tells the frontend that responses are on the ring.
  void raise_event() {
    if (options_.missing_notify) {
      event_flag_ = true;  // a plain shared flag: the runtime cannot see it
      if (options_.annotate) skein::notify(poll_thread_);  // the fix: record whom the flag wakes
      return;
    }
    // The event channel: the poll thread wakes from this resolve.
    if (event_) {
      skein::Resolver<void> raise = std::move(*event_);
      event_.reset();
      raise.resolve();
    }
  }

  Options options_;
  std::deque<Request> requests_;
  std::deque<std::pair<std::uint64_t, Block>> responses_;
  std::unordered_map<std::uint64_t, skein::Resolver<Block>> waiting_;
  std::optional<skein::Resolver<void>> event_;          // the poll thread waits for responses
  std::optional<skein::Resolver<void>> backend_event_;  // the backend waits for requests
  skein::Promise<void> poll_thread_;
  skein::Promise<void> backend_;
  std::uint64_t next_request_ = 0;
  bool event_flag_ = false;
  bool stopped_ = false;
};

// Process data: keep `in_flight` reads outstanding until `requests` blocks
// have been read, summing their bytes.
class ProcessData {
 public:
  ProcessData(BlockDevice& device, const Options& options) : device_(device), options_(options) {}

  // The Process data fiber: it issues the first reads itself, so every
  // B.read is created by a thread labelled "Process data" (this fiber or a
  // worker's continuation), and stops the device once all are read.
  skein::Promise<void> run() {
    return skein::spawn_fiber([this] {
      skein::label("Process data");
      std::vector<skein::Promise<void>> workers;
      for (std::int64_t i = 0; i < options_.in_flight; ++i) workers.push_back(worker());
      skein::await(skein::join(workers));
      device_.stop();
    });
  }

  std::uint64_t checksum() const { return checksum_; }
  std::int64_t blocks() const { return blocks_; }

 private:
  skein::Promise<void> worker() {
    if (issued_ >= options_.requests) return skein::resolved();
    const std::uint64_t sector = static_cast<std::uint64_t>(issued_++) * 8;
    return device_.read(sector).then([this](const Block& data) {
      skein::label("Process data");
      for (unsigned char byte : data) checksum_ += byte;
      ++blocks_;
      return worker();
    });
  }

  BlockDevice& device_;
  Options options_;
  std::int64_t issued_ = 0;
  std::int64_t blocks_ = 0;
  std::uint64_t checksum_ = 0;
};

constexpr const char* kUsage =
    "Usage: blockread [--requests N] [--in-flight K] [--latency-us U]\n"
    "                 [--missing-notify [--annotate]] [--trace FILE]\n"
    "Reads N blocks (default 32) from a simulated Xen block device, K at a time\n"
    "(default 4), each served by the backend after U microseconds (default 200).\n"
    "--missing-notify  the backend signals completion through a plain shared flag\n"
    "                  that the frontend polls with pause(): no recorded cause\n"
    "--annotate        with --missing-notify: the fix, skein::notify(poll thread)\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  Options options;
  skein::samples::SampleCommandLine command_line("blockread", kUsage);
  command_line.add_integer("requests", options.requests, 1, 1'000'000);
  command_line.add_integer("in-flight", options.in_flight, 1, 1024);
  command_line.add_integer("latency-us", options.latency_us, 0, 1'000'000);
  command_line.add_flag("missing-notify", options.missing_notify);
  command_line.add_flag("annotate", options.annotate);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;
  if (options.annotate && !options.missing_notify) {
    std::fprintf(stderr, "blockread: --annotate goes with --missing-notify\n%s", kUsage);
    return 2;
  }

  BlockDevice device(options);
  ProcessData process(device, options);
  skein::Promise<void> backend = device.start_backend();
  skein::Promise<void> polling = device.start_polling();
  skein::run(skein::join({process.run(), polling, backend}));

  std::uint64_t expected = 0;
  for (std::int64_t r = 0; r < options.requests; ++r)
    for (std::size_t i = 0; i < kSectorBytes; ++i) expected += (static_cast<std::uint64_t>(r) * 8 + i) % 251;
  std::printf("read %lld blocks of %zu bytes, checksum %llu\n", static_cast<long long>(process.blocks()),
              kSectorBytes, static_cast<unsigned long long>(process.checksum()));
  if (process.blocks() != options.requests || process.checksum() != expected) {
    std::fprintf(stderr, "blockread: wrong data (expected checksum %llu)\n", static_cast<unsigned long long>(expected));
    return 1;
  }
  return 0;
}
