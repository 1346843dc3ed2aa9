// token_bucket — clients rate-limited by a token bucket. Clean: no planted
// fault.
//
// The bucket is a skein::Semaphore holding at most 2 tokens, full at the
// start. A refill loop (a bind loop on skein::sleep) adds a token every
// millisecond, as a token bucket does: it releases a permit only when fewer
// than 2 are free, so tokens do not pile up while nobody asks. Three clients
// (coroutines) each make 5 requests, acquiring a token before each one; a
// request is a 300 µs call (a sleep). The batch has a quota of 15 requests:
// the bucket starts with 2 tokens and the refill loop issues the other 13,
// then stops. Every wake-up is one the runtime performs: timers, and the
// semaphore handing a released token to the oldest waiting client.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

using namespace std::chrono_literals;

constexpr std::size_t kCapacity = 2;
constexpr int kClients = 3;
constexpr int kRequestsEach = 5;
constexpr int kQuota = kClients * kRequestsEach;

struct Bucket {
  skein::Semaphore tokens{kCapacity};
  int issued = static_cast<int>(kCapacity);  // tokens put in the bucket so far
  int refill_ticks = 0;
  int wasted_ticks = 0;  // ticks that found the bucket full
};

skein::Promise<void> refill(Bucket& b) {
  return skein::sleep(1ms).then([&b] {
    skein::label("refill");
    ++b.refill_ticks;
    if (b.tokens.count() < kCapacity) {
      b.tokens.release();
      ++b.issued;
      skein::counter("bucket.issued", b.issued);
    } else {
      ++b.wasted_ticks;
    }
    if (b.issued == kQuota) return skein::resolved();
    return refill(b);
  });
}

skein::Promise<int> call(int client, int request) {
  return skein::sleep(300us).map([client, request] { return client * 100 + request; });
}

skein::Promise<void> client(Bucket& b, int id, std::vector<int>& answers) {
  const std::string name = "client " + std::to_string(id);
  skein::label(name);
  for (int request = 1; request <= kRequestsEach; ++request) {
    co_await b.tokens.acquire();
    answers.push_back(co_await call(id, request));
  }
}

constexpr const char* kUsage =
    "Usage: token_bucket [--trace FILE]\n"
    "Three clients make five requests each, taking a token from a bucket of two\n"
    "(a skein::Semaphore) before each; a refill loop adds a token every millisecond\n"
    "while the bucket is not full, until the quota of 15 is issued.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  skein::samples::SampleCommandLine command_line("token_bucket", kUsage);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  Bucket b;
  std::vector<std::vector<int>> answers(kClients);
  std::vector<skein::Promise<void>> everyone{refill(b)};
  for (int c = 0; c < kClients; ++c)
    everyone.push_back(client(b, c + 1, answers[static_cast<std::size_t>(c)]));
  skein::run(skein::join(everyone));

  std::printf("token_bucket: %d tokens issued over %d refill ticks (%d found the bucket full)\n",
              b.issued, b.refill_ticks, b.wasted_ticks);
  bool ok = b.issued == kQuota && b.tokens.count() == 0 && b.tokens.waiters() == 0;
  for (int c = 0; c < kClients; ++c) {
    const std::vector<int>& got = answers[static_cast<std::size_t>(c)];
    ok = ok && static_cast<int>(got.size()) == kRequestsEach;
    for (int r = 0; ok && r < kRequestsEach; ++r)
      ok = got[static_cast<std::size_t>(r)] == (c + 1) * 100 + r + 1;
  }
  return ok ? 0 : 1;
}
