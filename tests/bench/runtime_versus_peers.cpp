// runtime_versus_peers.cpp — the runtime benchmark table of `make bench`:
// Skein's runtime against OCaml Lwt 5 (W1-W4) and Boost.Fiber (W5), side by
// side in one run.
//
// Each side is a separate program with one interface (`--workload W --n N
// --repeat 1`, printing "W1 skein 12.34"), so every program runs in its own
// process with its own warm-up, and no side's allocator or caches favour the
// other. Rounds interleave the sides (Skein W1, Lwt W1, Skein W2, ...), so a
// burst of load on this shared machine hits both; each figure is the median
// over the rounds, and the ratio is Skein's median over the peer's.
//
// Targets (Skein / peer, tracing off): W1 <= 0.5, W2 <= 0.2, W3 <= 0.3,
// W4 <= 0.5, W5 <= 0.5. Exit 1 when a target is missed or a program fails.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "runtime_bench_paths.hpp"
#include "runtime/promise_node.hpp"
#include "tests/bench/bench_report.hpp"
#include "tests/support/subprocess.hpp"

namespace {

struct Workload {
  const char* id;
  const char* name;
  const char* unit;
  const char* skein;  // program path, empty when not built
  const char* peer;
  const char* peer_name;
  double target;      // Skein / peer must be at most this
};

// Runs one program once and returns its ns/op, or a negative number.
double measure(const std::string& program, const char* workload, long long n) {
  if (program.empty()) return -1;
  const auto r = skein::test::run_process({program, "--workload", workload, "--n", std::to_string(n), "--repeat", "1"});
  if (r.exit_code != 0) {
    std::fprintf(stderr, "%s --workload %s failed (exit %d): %s\n", program.c_str(), workload, r.exit_code,
                 r.err.c_str());
    return -1;
  }
  std::istringstream in(r.out);
  std::string w, side;
  double ns = -1;
  in >> w >> side >> ns;
  return ns;
}

}  // namespace

int main(int argc, char** argv) {
  long long n = 1'000'000;
  int rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--n") n = std::atoll(argv[i + 1]);
    else if (flag == "--rounds") rounds = std::atoi(argv[i + 1]);
  }
  const Workload workloads[] = {
      {"W1", "resolve-bind", "ns/iteration", SKEIN_CORE_BENCH, SKEIN_LWT_BENCH, "Lwt 5", 0.5},
      {"W2", "pause-loop", "ns/pause", SKEIN_CORE_BENCH, SKEIN_LWT_BENCH, "Lwt 5", 0.2},
      {"W3", "fan-out-join", "ns/promise", SKEIN_CORE_BENCH, SKEIN_LWT_BENCH, "Lwt 5", 0.3},
      {"W4", "ping-pong", "ns/round trip", SKEIN_SYNC_BENCH, SKEIN_LWT_BENCH, "Lwt 5", 0.5},
      {"W5", "fiber hand-over", "ns/hand-over", SKEIN_FIBER_BENCH, SKEIN_BOOST_FIBER_BENCH, "Boost.Fiber", 0.5},
  };
  std::map<std::string, std::vector<double>> skein_ns, peer_ns;
  bool failed = false;
  for (int round = 0; round < rounds; ++round) {
    for (const auto& w : workloads) {
      const double s = measure(w.skein, w.id, n);
      const double p = measure(w.peer, w.id, n);
      if (s >= 0) skein_ns[w.id].push_back(s);
      if (p >= 0) peer_ns[w.id].push_back(p);
      if ((w.skein[0] != '\0' && s < 0) || (w.peer[0] != '\0' && p < 0)) failed = true;
    }
  }

  std::printf("\nruntime versus peers: N = %lld, median of %d interleaved rounds, tracing off\n", n, rounds);
  std::printf("  %-3s %-16s %-14s %10s %10s %-12s %7s %7s\n", "", "workload", "unit", "Skein", "peer", "(peer)",
              "ratio", "target");
  bool all_met = true;
  for (const auto& w : workloads) {
    const auto& s = skein_ns[w.id];
    const auto& p = peer_ns[w.id];
    if (s.empty() || p.empty()) {
      std::printf("  %-3s %-16s %-14s %10s %10s %-12s %7s  <= %.1f  NOT MEASURED (%s)\n", w.id, w.name, w.unit, "-", "-",
                  w.peer_name, "-", w.target, s.empty() ? "Skein side not built" : "peer not built");
      all_met = false;
      continue;
    }
    const double ms = skein::bench::median(s), mp = skein::bench::median(p);
    const double ratio = ms / mp;
    const bool met = ratio <= w.target;
    all_met = all_met && met;
    std::printf("  %-3s %-16s %-14s %10.1f %10.1f %-12s %7.2f  <= %.1f  %s\n", w.id, w.name, w.unit, ms, mp, w.peer_name,
                ratio, w.target, met ? "ok" : "MISSED");
  }
  const std::size_t pending_bytes = sizeof(skein::detail::NodeT<void>);
  std::printf("  memory: a pending Promise<void> is %zu bytes (target <= 96)  %s\n", pending_bytes,
              pending_bytes <= 96 ? "ok" : "MISSED");
  return (all_met && !failed && pending_bytes <= 96) ? 0 : 1;
}
