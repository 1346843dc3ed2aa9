// synthetic_trace.cpp — the generator: the simulated Lwt-style program that
// synthetic_trace.hpp describes, driven by a seeded random number generator
// over a fixed table of creation sites; and its text, formatted by the
// trace writer's own functions so that it reads back exactly.
#include "samples/synthetic/synthetic_trace.hpp"

#include <algorithm>
#include <array>
#include <random>
#include <string_view>

#include "recorder/format/trace_writer.hpp"

namespace skein::samples {
namespace {

struct Site {
  std::string_view file;
  std::int64_t line;
  std::string_view function;
  std::string_view kind;
};

constexpr std::array<Site, 12> kSites = {{
    {"samples/blockread/blockread.cpp", 41, "blkfront_poll", "task"},
    {"samples/blockread/blockread.cpp", 57, "read_sector", "bind"},
    {"samples/blockread/blockread.cpp", 63, "read_sector", "map"},
    {"samples/blockread/blockread.cpp", 88, "process_data", "bind"},
    {"samples/blockread/blockread.cpp", 95, "process_data", "join"},
    {"runtime/io.cpp", 112, "skein::sleep", "sleep"},
    {"runtime/io.cpp", 140, "skein::tcp_read", "io"},
    {"runtime/sync.cpp", 33, "skein::Mailbox::take", "mailbox"},
    {"samples/echo/echo.cpp", 72, "serve_connection", "async"},
    {"samples/echo/echo.cpp", 80, "serve_connection", "pick"},
    {"samples/echo/echo.cpp", 91, "handle_message", "catch"},
    {"samples/pipeline/pipeline.cpp", 25, "transform", "fiber"},
}};

constexpr std::array<std::string_view, 8> kLabels = {
    "Process data", "B.read", "blkfront.poll", "serve 127.0.0.1:40312",
    "transform", "sleep 10ms", "read header", "consumer"};
constexpr std::array<std::string_view, 4> kCounters = {"blkfront.ring", "queue.depth", "bytes.read",
                                                       "connections"};
constexpr std::array<std::string_view, 4> kReasons = {"timer", "io", "mailbox", "condition"};
constexpr std::array<std::string_view, 3> kFailures = {"Failure \"device busy\"", "Timeout",
                                                       "End_of_file"};

class Simulation {
 public:
  explicit Simulation(const SyntheticOptions& options)
      : options_(options), rng_(options.seed), gap_(1.0 / static_cast<double>(options.mean_gap_ns)) {}

  std::vector<Record> run() {
    out_.reserve(options_.records + 16);
    current_ = kMainThread;
    out_.push_back(LabelRecord{tick(), kMainThread, "main"});
    while (out_.size() < options_.records) step();
    out_.push_back(EndRecord{tick()});
    return std::move(out_);
  }

 private:
  TimeNs tick() {
    now_ += 1 + static_cast<TimeNs>(gap_(rng_));
    return now_;
  }
  std::uint64_t roll(std::uint64_t n) { return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_); }

  struct Pending {
    ThreadId id;
    ThreadId waits_on;  // -2: waits on nothing
  };

  void spawn() {
    const std::size_t site_index = roll(kSites.size());
    if (!site_declared_[site_index]) {
      site_declared_[site_index] = true;
      const Site& s = kSites[site_index];
      out_.push_back(SiteRecord{static_cast<SiteId>(site_index), s.file, s.line, s.function});
    }
    const ThreadId child = next_id_++;
    const std::string_view kind = kSites[site_index].kind;
    out_.push_back(SpawnRecord{tick(), child, current_, kind, static_cast<SiteId>(site_index)});
    if (roll(5) == 0) out_.push_back(LabelRecord{tick(), child, kLabels[roll(kLabels.size())]});
    ThreadId input = -2;
    if ((kind == "bind" || kind == "map" || kind == "catch" || kind == "join" || kind == "pick") &&
        !pending_.empty()) {
      input = pending_[roll(pending_.size())].id;
      out_.push_back(WaitRecord{tick(), child, input});
    }
    pending_.push_back({child, input});
  }

  void resolve() {
    if (pending_.empty()) return spawn();
    const std::size_t i = roll(pending_.size());
    const Pending p = pending_[i];
    pending_[i] = pending_.back();
    pending_.pop_back();
    const std::uint64_t r = roll(100);
    // Most threads settle themselves (a bind's callback returning); the
    // scheduler settles timers and I/O.
    const std::uint64_t who = roll(10);
    const ThreadId by = who < 8 ? p.id : (who == 8 ? kScheduler : current_);
    ResolveRecord rec{tick(), p.id, by, Outcome::ok, std::nullopt};
    if (r < 3) {
      rec.outcome = Outcome::fail;
      rec.message = kFailures[roll(kFailures.size())];
    } else if (r < 4) {
      rec.outcome = Outcome::cancel;
    }
    out_.push_back(rec);
    recent_[recent_count_++ % recent_.size()] = p.id;
    // Threads blocked on it read its outcome, synchronously inside the resolver.
    for (const Pending& waiter : pending_)
      if (waiter.waits_on == p.id && out_.size() < options_.records)
        out_.push_back(ReadRecord{tick(), waiter.id, p.id});
  }

  void switch_thread() {
    if (roll(8) == 0 || pending_.empty()) {
      out_.push_back(IdleRecord{tick()});
      out_.push_back(SwitchRecord{tick(), kScheduler});
      current_ = kScheduler;
      if (!pending_.empty()) {
        const ThreadId woken = pending_[roll(pending_.size())].id;
        out_.push_back(NotifyRecord{tick(), kScheduler, woken, kReasons[roll(2)]});
        out_.push_back(SwitchRecord{tick(), woken});
        current_ = woken;
      }
      return;
    }
    current_ = pending_[roll(pending_.size())].id;
    out_.push_back(SwitchRecord{tick(), current_});
  }

  // The mix follows the 2014 MirageOS traces (reads 44%, creates 22%,
  // resolves 19%, labels 9%, switches 4%, becomes 3%), plus the heads Skein's
  // runtime adds: waits for binds, notifies for wake-ups, counters, idle.
  void step() {
    const std::uint64_t r = roll(1000);
    if (pending_.size() > 2000 && r < 600) return resolve();
    if (r < 190) spawn();
    else if (r < 360) resolve();
    else if (r < 410) switch_thread();
    else if (r < 860) {
      // Reading an outcome: mostly one resolved a moment ago.
      if (recent_count_ == 0) return spawn();
      out_.push_back(ReadRecord{tick(), current_, recent_[roll(std::min(recent_count_, recent_.size()))]});
    } else if (r < 885) {
      if (pending_.empty()) return spawn();
      out_.push_back(NotifyRecord{tick(), current_, pending_[roll(pending_.size())].id,
                                  kReasons[2 + roll(2)]});
    } else if (r < 905) {
      out_.push_back(CounterRecord{tick(), kCounters[roll(kCounters.size())],
                                   static_cast<std::int64_t>(roll(64))});
    } else if (r < 940) {
      if (pending_.empty()) return spawn();
      out_.push_back(LabelRecord{tick(), pending_[roll(pending_.size())].id, kLabels[roll(kLabels.size())]});
    } else if (r < 967) {
      // A bind's callback returned a pending promise: tail-merge into it.
      if (pending_.empty()) return spawn();
      const ThreadId from = pending_[roll(pending_.size())].id;
      const ThreadId into = next_id_++;
      out_.push_back(SpawnRecord{tick(), into, from, "task", std::nullopt});
      out_.push_back(MergeRecord{tick(), from, into});
      pending_.push_back({into, -2});
    } else if (r < 997) {
      if (pending_.empty()) return spawn();
      const Pending& p = pending_[roll(pending_.size())];
      const ThreadId input = pending_[roll(pending_.size())].id;
      if (input != p.id) out_.push_back(WaitRecord{tick(), p.id, input});
    } else {
      out_.push_back(GcRecord{tick(), static_cast<std::int64_t>(1000 + roll(50'000))});
    }
  }

  SyntheticOptions options_;
  std::mt19937_64 rng_;
  std::exponential_distribution<double> gap_;
  std::vector<Record> out_;
  std::vector<Pending> pending_;
  // The last threads to resolve, which reads and waits mostly name.
  std::array<ThreadId, 16> recent_{};
  std::size_t recent_count_ = 0;  // resolves so far; the ring holds the last 16
  std::array<bool, kSites.size()> site_declared_{};
  TimeNs now_ = 0;
  ThreadId current_ = kMainThread;
  ThreadId next_id_ = 1;
};

}  // namespace

TraceHeader synthetic_header(const SyntheticOptions& options) {
  TraceHeader header;
  header.set("process", "synthetic");
  header.set("pid", "4242");
  header.set("origin-unix-ns", "1764409200123456789");
  header.set("seed", std::to_string(options.seed));
  return header;
}

std::vector<Record> synthetic_trace(const SyntheticOptions& options) {
  return Simulation(options).run();
}

std::string synthetic_trace_text(const SyntheticOptions& options) {
  std::string text = format_header(synthetic_header(options)) + "\n";
  for (const Record& r : synthetic_trace(options)) text += format_record(r) + "\n";
  return text;
}

}  // namespace skein::samples
