// blockread — the scenario of the 2014 MirageOS trace, on Skein's runtime.
//
// A unikernel reads a block device through a Xen-style split driver. The
// frontend (this program's `B.read`) puts a request on a shared ring and
// returns a task; a simulated backend (the "disk", driven by timers on the
// engine) completes requests after a latency, puts the responses on the ring
// and raises an event; the frontend's `blkfront.poll` thread waits for that
// event, takes the responses off the ring and resolves each request's task;
// `Process data` issues the reads, a few at a time, and processes each block
// as it arrives. The ring occupancy is the counter `blkfront.ring`.
//
// Every hand-over is a promise: the event channel is a promise the backend
// resolves (so the poll thread's wake-up is explained by that resolve), and
// each request is a task the poll thread resolves. The program is bounded:
// it reads --requests blocks and stops.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "recorder/trace_capture.hpp"
#include "runtime/runtime.hpp"

namespace {

using namespace std::chrono_literals;

constexpr std::size_t kSectorBytes = 512;
using Block = std::vector<unsigned char>;

struct Options {
  int requests = 32;
  int in_flight = 4;         // reads Process data keeps outstanding
  int latency_us = 200;      // the simulated disk's service time
};

// The shared ring and the event channel between frontend and backend.
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
    skein::counter("blkfront.ring", static_cast<std::int64_t>(requests_.size() + responses_.size()));
    kick_backend();
    return block;
  }

  // blkfront.poll: wait for the event, take the responses, resolve each
  // request; repeat until stopped.
  skein::Promise<void> poll() {
    if (stopped_) return skein::resolved();
    auto [event, raise] = skein::wait<void>();
    event.label("blkfront.event");
    event_ = std::move(raise);
    return event.then([this] {
      skein::label("blkfront.poll");
      while (!responses_.empty()) {
        auto [id, data] = std::move(responses_.front());
        responses_.pop_front();
        skein::counter("blkfront.ring", static_cast<std::int64_t>(requests_.size() + responses_.size()));
        auto found = waiting_.find(id);
        if (found == waiting_.end()) continue;  // defensive: a response to nobody
        skein::Resolver<Block> resolver = std::move(found->second);
        waiting_.erase(found);
        resolver.resolve(std::move(data));
      }
      return poll();
    });
  }

  void stop() {
    stopped_ = true;
    if (event_) event_->resolve();
    event_.reset();
  }

 private:
  struct Request {
    std::uint64_t id;
    std::uint64_t sector;
  };

  // The backend serves one request at a time: a timer per request.
  void kick_backend() {
    if (backend_busy_ || requests_.empty()) return;
    backend_busy_ = true;
    const Request request = requests_.front();
    requests_.pop_front();
    skein::async([this, request] {
      return skein::sleep(std::chrono::microseconds(options_.latency_us)).then([this, request] {
        skein::label("backend");
        Block data(kSectorBytes);
        for (std::size_t i = 0; i < data.size(); ++i)
          data[i] = static_cast<unsigned char>((request.sector + i) % 251);
        responses_.push_back({request.id, std::move(data)});
        backend_busy_ = false;
        // Raise the event channel: the poll thread wakes from this resolve.
        if (event_) {
          skein::Resolver<void> raise = std::move(*event_);
          event_.reset();
          raise.resolve();
        }
        kick_backend();
        return skein::resolved();
      });
    });
  }

  Options options_;
  std::deque<Request> requests_;
  std::deque<std::pair<std::uint64_t, Block>> responses_;
  std::unordered_map<std::uint64_t, skein::Resolver<Block>> waiting_;
  std::optional<skein::Resolver<void>> event_;
  std::uint64_t next_request_ = 0;
  bool backend_busy_ = false;
  bool stopped_ = false;
};

// Process data: keep `in_flight` reads outstanding until `requests` blocks
// have been read, summing their bytes.
class ProcessData {
 public:
  ProcessData(BlockDevice& device, const Options& options) : device_(device), options_(options) {}

  skein::Promise<void> run() {
    std::vector<skein::Promise<void>> workers;
    for (int i = 0; i < options_.in_flight; ++i) workers.push_back(worker());
    return skein::join(std::move(workers)).then([this] {
      skein::label("Process data");
      device_.stop();
      return skein::resolved();
    });
  }

  std::uint64_t checksum() const { return checksum_; }
  int blocks() const { return blocks_; }

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
  int issued_ = 0;
  int blocks_ = 0;
  std::uint64_t checksum_ = 0;
};

constexpr const char* kUsage =
    "Usage: blockread [--requests N] [--in-flight K] [--latency-us U] [--trace FILE]\n"
    "Reads N blocks (default 32) from a simulated Xen block device, K at a time\n"
    "(default 4), each served by the backend after U microseconds (default 200).\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

bool parse_int(const char* text, int& out, int min, int max) {
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min || v > max) return false;
  out = static_cast<int>(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  const char* trace_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg == "--requests" && has_value && parse_int(argv[i + 1], options.requests, 1, 1'000'000)) ++i;
    else if (arg == "--in-flight" && has_value && parse_int(argv[i + 1], options.in_flight, 1, 1024)) ++i;
    else if (arg == "--latency-us" && has_value && parse_int(argv[i + 1], options.latency_us, 0, 1'000'000)) ++i;
    else if (arg == "--trace" && has_value) trace_path = argv[++i];
    else {
      std::fprintf(stderr, "blockread: bad argument '%s'\n%s", arg.c_str(), kUsage);
      return 2;
    }
  }
  if (trace_path != nullptr) {
    if (skein::trace::capturing()) (void)skein::trace::stop();  // --trace wins over SKEIN_TRACE
    const skein::Status started = skein::trace::start(trace_path);
    if (!started.ok()) {
      std::fprintf(stderr, "blockread: %s\n", started.error().to_string().c_str());
      return 2;
    }
  }
  BlockDevice device(options);
  ProcessData process(device, options);
  skein::async([&device] { return device.poll(); });
  skein::run(process.run());
  std::uint64_t expected = 0;
  for (int r = 0; r < options.requests; ++r)
    for (std::size_t i = 0; i < kSectorBytes; ++i)
      expected += (static_cast<std::uint64_t>(r) * 8 + i) % 251;
  std::printf("read %d blocks of %zu bytes, checksum %llu\n", process.blocks(), kSectorBytes,
              static_cast<unsigned long long>(process.checksum()));
  if (process.blocks() != options.requests || process.checksum() != expected) {
    std::fprintf(stderr, "blockread: wrong data (expected checksum %llu)\n", static_cast<unsigned long long>(expected));
    return 1;
  }
  return 0;
}
