// pipeline — producer, transformer and consumer over a Stream and a
// Mailbox, a ledger protected by a Mutex, and a reporter woken through a
// Condition: every wake-up is a notify from the thread that caused it, an
// arrow on the timeline.
//
//   producer ──Stream<int> (capacity 4)──▶ transformer ──Mailbox──▶ consumer
//                                                                      │ Mutex
//                                         reporter ◀──Condition── ledger
//
// The producer pushes 1..--items and closes the stream; it blocks whenever
// the stream is full (the transformer's next() admits it: an arrow). The
// transformer squares each value into the mailbox, whose single slot makes
// it wait for the consumer's take. The consumer adds each square to the
// ledger under the mutex, holds the mutex over a turn of the loop (so the
// reporter, when it wakes, has to wait for it: another arrow), and signals
// the condition every --report-every items and at the end. The reporter
// waits on the condition with the mutex and notes the count each time it
// is woken. Everything is bounded by --items; the program prints the sum
// and the reports, and checks the sum.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

struct Options {
  std::int64_t items = 40;
  std::int64_t report_every = 10;
};

struct Pipeline {
  explicit Pipeline(const Options& o) : options(o) {}
  Options options;
  skein::Stream<std::int64_t> raw{4};
  skein::Mailbox<std::optional<std::int64_t>> squares;
  skein::Mutex ledger_lock;
  skein::Condition<> progress;
  std::int64_t ledger_sum = 0;    // guarded by ledger_lock
  std::int64_t ledger_count = 0;  // guarded by ledger_lock
  std::vector<std::int64_t> reports;
};

skein::Promise<void> producer(Pipeline& p) {
  skein::label("producer");
  for (std::int64_t i = 1; i <= p.options.items; ++i) co_await p.raw.push(i);
  p.raw.close();
}

skein::Promise<void> transformer(Pipeline& p) {
  skein::label("transformer");
  // One more turn than there are items: the last next() sees the close.
  for (std::int64_t turn = 0; turn <= p.options.items; ++turn) {
    const std::optional<std::int64_t> v = co_await p.raw.next();
    if (!v) break;
    co_await p.squares.put(*v * *v);
  }
  co_await p.squares.put(std::nullopt);  // end of data
}

skein::Promise<void> consumer(Pipeline& p) {
  skein::label("consumer");
  for (std::int64_t turn = 0; turn <= p.options.items; ++turn) {
    const std::optional<std::int64_t> square = co_await p.squares.take();
    if (!square) break;
    co_await p.ledger_lock.lock();
    p.ledger_sum += *square;
    ++p.ledger_count;
    if (p.ledger_count % p.options.report_every == 0 || p.ledger_count == p.options.items) p.progress.signal();
    co_await skein::pause();  // hold the ledger over a turn of the loop
    p.ledger_lock.unlock();
  }
}

skein::Promise<void> reporter(Pipeline& p) {
  skein::label("reporter");
  co_await p.ledger_lock.lock();
  for (std::int64_t turn = 0; turn <= p.options.items && p.ledger_count < p.options.items; ++turn) {
    co_await p.progress.wait(&p.ledger_lock);  // releases the ledger while waiting
    p.reports.push_back(p.ledger_count);
  }
  p.ledger_lock.unlock();
}

constexpr const char* kUsage =
    "Usage: pipeline [--items N] [--report-every K] [--trace FILE]\n"
    "A producer streams 1..N (default 40) to a transformer that squares them into\n"
    "a mailbox; a consumer adds them to a mutex-protected ledger and signals a\n"
    "reporter through a condition every K items (default 10) and at the end.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  Options options;
  skein::samples::SampleCommandLine command_line("pipeline", kUsage);
  command_line.add_integer("items", options.items, 1, 1'000'000);
  command_line.add_integer("report-every", options.report_every, 1, 1'000'000);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  Pipeline p(options);
  // The reporter starts first, so that it is waiting when the first signal comes.
  skein::Promise<void> report = reporter(p);
  skein::run(skein::join({producer(p), transformer(p), consumer(p), report}));

  const std::int64_t n = options.items;
  const std::int64_t expected = n * (n + 1) * (2 * n + 1) / 6;
  std::string reports;
  for (std::int64_t r : p.reports) reports += (reports.empty() ? "" : " ") + std::to_string(r);
  std::printf("pipeline: %lld items, sum of squares %lld, reports at %s\n", static_cast<long long>(p.ledger_count),
              static_cast<long long>(p.ledger_sum), reports.c_str());
  const bool right = p.ledger_sum == expected && p.ledger_count == n && !p.reports.empty() && p.reports.back() == n;
  return right ? 0 : 1;
}
