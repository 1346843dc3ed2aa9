// queue_poll — a worker that polls a plain job queue on its own timer.
//
// The worker is a bind loop, `sleep(1 ms).then(...)`, that looks at a
// std::deque of jobs at every tick. A job is a number and the Resolver of
// the reply promise its client made with skein::task; the worker takes one
// job per tick, computes the answer (the number of Collatz steps from the
// number down to 1) and resolves the reply. Three clients (coroutines) send
// two jobs each. The worker's desk takes one job at a time: a client queues
// for it on a skein::Mutex, prepares its job for 3 ms, pushes it into the
// deque, waits for the reply and hands the desk to the next client. The
// worker knows how many jobs are coming and stops at the tick after it has
// answered the last one. Each tick arms the next one before doing any work,
// so the worker keeps a steady 1 ms beat.
//
// THE FAULT: a client hands its job to the worker by pushing it into the
// deque, which the runtime cannot see, and nothing records the hand-off.
// The worker's tick that finds the job was woken only by its own timer, yet
// it resolves the client's reply. One run has 6 such hand-offs with no
// recorded cause: each of the 6 jobs (3 clients x 2) is pushed into the
// deque with no record, and each is found by a later tick that then resolves
// that client's reply. The count is fixed by the program's logic, not by
// timing: only the client holding the desk pushes, and it pushes 3 ms after
// it took the desk, while the worker's next tick was armed (for 1 ms) before
// the reply that handed the desk over, so the tick before every job's tick
// found the deque empty (an idle tick), and every tick finds at most one
// job.
//
// --fixed: the client records the hand-off where it makes it: right after
// pushing the job it calls skein::notify(worker, Reason::request), naming
// the worker's loop as the thread the job is for (runtime/notify.hpp: a
// request put in a queue the runtime does not own). The worker still polls.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

using namespace std::chrono_literals;

constexpr auto kTick = 1ms;
constexpr auto kPrepare = 3ms;

std::int64_t collatz_steps(std::int64_t n) {
  std::int64_t steps = 0;
  while (n != 1) {
    n = n % 2 == 0 ? n / 2 : 3 * n + 1;
    ++steps;
  }
  return steps;
}

struct Job {
  std::int64_t number;
  skein::Resolver<std::int64_t> reply;
};

class Worker {
 public:
  Worker(std::int64_t expected_jobs, bool fixed) : expected_(expected_jobs), fixed_(fixed) {}

  void start() { loop_ = poll(skein::sleep(kTick)); }
  [[nodiscard]] const skein::Promise<void>& loop() const { return loop_; }

  // Called by a client: queue the job for the worker's next tick.
  void submit(Job job) {
    jobs_.push_back(std::move(job));
    if (fixed_) skein::notify(loop_, skein::trace::Reason::request);
  }

  [[nodiscard]] std::int64_t ticks() const { return ticks_; }
  [[nodiscard]] std::int64_t idle_ticks() const { return idle_ticks_; }
  [[nodiscard]] std::int64_t answered() const { return answered_; }

 private:
  skein::Promise<void> poll(skein::Promise<void> due) {
    return due.then([this] {
      skein::label("worker");
      ++ticks_;
      if (answered_ == expected_) return skein::resolved();  // every job answered: stop
      skein::Promise<void> next_tick = skein::sleep(kTick);  // keep the beat
      if (jobs_.empty()) {
        ++idle_ticks_;
        return poll(next_tick);
      }
      Job job = std::move(jobs_.front());
      jobs_.pop_front();
      ++answered_;
      skein::counter("worker.answered", answered_);
      job.reply.resolve(collatz_steps(job.number));
      return poll(next_tick);
    });
  }

  std::int64_t expected_;
  bool fixed_;
  std::deque<Job> jobs_;
  skein::Promise<void> loop_;
  std::int64_t ticks_ = 0;
  std::int64_t idle_ticks_ = 0;
  std::int64_t answered_ = 0;
};

struct Results {
  std::int64_t right = 0;
  std::int64_t wrong = 0;
};

skein::Promise<void> client(int id, std::vector<std::int64_t> numbers, Worker& worker,
                            skein::Mutex& desk, Results& results) {
  const std::string name = "client " + std::to_string(id);
  skein::label(name);
  for (const std::int64_t number : numbers) {
    co_await desk.lock();
    co_await skein::sleep(kPrepare);  // prepare the job
    auto [reply, resolver] = skein::task<std::int64_t>();
    reply.label("reply");
    worker.submit(Job{number, std::move(resolver)});
    const std::int64_t steps = co_await reply;
    desk.unlock();
    if (steps == collatz_steps(number))
      ++results.right;
    else
      ++results.wrong;
  }
}

constexpr const char* kUsage =
    "Usage: queue_poll [--fixed] [--trace FILE]\n"
    "Three clients hand six jobs to a worker through a plain std::deque that the\n"
    "worker polls every millisecond. The hand-off is not recorded; --fixed records\n"
    "it with skein::notify(worker, request) after each push.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  bool fixed = false;
  skein::samples::SampleCommandLine command_line("queue_poll", kUsage);
  command_line.add_flag("fixed", fixed);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  const std::vector<std::vector<std::int64_t>> work{{27, 97}, {871, 6171}, {77031, 837799}};
  std::int64_t jobs = 0;
  for (const auto& numbers : work) jobs += static_cast<std::int64_t>(numbers.size());

  Worker worker(jobs, fixed);
  worker.start();
  skein::Mutex desk;
  Results results;
  std::vector<skein::Promise<void>> everyone{worker.loop()};
  for (std::size_t c = 0; c < work.size(); ++c)
    everyone.push_back(client(static_cast<int>(c + 1), work[c], worker, desk, results));
  skein::run(skein::join(everyone));

  std::printf("queue_poll%s: %lld jobs answered (%lld right), %lld worker ticks, %lld idle\n",
              fixed ? " --fixed" : "", static_cast<long long>(worker.answered()),
              static_cast<long long>(results.right), static_cast<long long>(worker.ticks()),
              static_cast<long long>(worker.idle_ticks()));
  const bool ok = worker.answered() == jobs && results.right == jobs && results.wrong == 0 &&
                  worker.idle_ticks() >= jobs;  // at least one idle tick before each job
  return ok ? 0 : 1;
}
