// progress_bar_test.cpp — `skein import` draws its progress bar on standard
// error only when that is a terminal: run it on a pseudo-terminal (forkpty)
// and read what a user would see, then through a pipe, where it must stay
// quiet. The import is stopped and continued at a point the test sees on
// the terminal (its first bar), never timed, so the bar's full form is
// drawn however fast the import runs.
#include <dirent.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <fstream>
#include <regex>
#include <thread>

#include "recorder/format/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

void write_generated(const std::string& path, std::uint64_t records) {
  skein::samples::SyntheticOptions options;
  options.records = records;
  auto writer = skein::TraceWriter::create(path);
  REQUIRE(writer.ok());
  writer.value().write_header(skein::samples::synthetic_header(options));
  for (const auto& r : skein::samples::synthetic_trace(options)) writer.value().write(r);
  REQUIRE(writer.value().finish().ok());
}

struct TerminalRun {
  int exit_code = -1;
  std::string screen;  // everything written to the terminal, escapes included
  bool held = false;   // stopped where asked, with input left to read
};

// Where `pid` has got to in reading `path`: its file position, from
// /proc/PID/fdinfo; -1 when it no longer has the file open.
long long read_position(pid_t pid, const std::string& path) {
  const std::string fds = "/proc/" + std::to_string(pid) + "/fd";
  DIR* dir = opendir(fds.c_str());
  if (dir == nullptr) return -1;
  long long pos = -1;
  for (int guard = 0; guard < 4096; ++guard) {
    const dirent* e = readdir(dir);
    if (e == nullptr) break;
    char target[4096];
    const ssize_t n = readlink((fds + "/" + e->d_name).c_str(), target, sizeof target - 1);
    if (n <= 0 || std::string(target, static_cast<std::size_t>(n)) != path) continue;
    std::ifstream info("/proc/" + std::to_string(pid) + "/fdinfo/" + e->d_name);
    std::string key;
    while (info >> key)
      if (key == "pos:" && (info >> pos)) break;
  }
  closedir(dir);
  return pos;
}

// Runs argv with standard output and error on a new pseudo-terminal. With
// `hold_at`, the child is stopped (SIGSTOP) as soon as the terminal shows
// that text, kept stopped for `hold`, then continued; `held` says whether
// it was stopped with bytes of `input` still unread.
TerminalRun run_on_terminal(const std::vector<std::string>& argv, const std::string& hold_at = {},
                            const std::string& input = {}, std::chrono::milliseconds hold = {}) {
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  TerminalRun run;
  bool holding = !hold_at.empty();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  char buffer[4096];
  // Until the child closes the terminal (EIO on Linux), or the deadline.
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{master, POLLIN, 0};
    const int ready = poll(&p, 1, 100);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    if (ready == 0) continue;
    const ssize_t n = read(master, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    run.screen.append(buffer, static_cast<std::size_t>(n));
    if (holding && run.screen.find(hold_at) != std::string::npos) {
      holding = false;
      kill(pid, SIGSTOP);
      int status = 0;
      // The stop itself, as the kernel reports it: the child runs no further.
      if (waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status)) {
        const long long pos = read_position(pid, input);
        struct stat st {};
        run.held = pos >= 0 && stat(input.c_str(), &st) == 0 && pos < static_cast<long long>(st.st_size);
        std::this_thread::sleep_for(hold);
      }
      kill(pid, SIGCONT);
    }
  }
  close(master);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

}  // namespace

TEST_CASE("skein import draws a progress bar on a terminal and clears it") {
  skein::test::TempDir dir;
  const std::string trace = dir.file("big.sexp");
  // The bar shows its rate and time left at an update after the import's
  // clock has passed 0.2 s, and updates after a batch written 100 ms or more
  // after the last update. The import is stopped when its first bar is on
  // the terminal, with records still to read (checked while it is stopped),
  // and held 300 ms: its next batch, which must come, then draws the full
  // bar, whether the whole import takes a tenth of a second or ten.
  TerminalRun run;
  for (std::uint64_t records = 600000; records <= 9600000 && !run.held; records *= 4) {
    write_generated(trace, records);
    run = run_on_terminal({kSkein, "import", trace, "-o", dir.file("big.db")}, "\r\x1b[Kimporting ", trace,
                          std::chrono::milliseconds(300));
    INFO(records << " records: " << run.screen);
    REQUIRE(run.exit_code == 0);
    std::remove(dir.file("big.db").c_str());
  }
  INFO(run.screen);
  REQUIRE(run.held);
  // At least one drawn bar: name, bar, percentage, megabytes, rate, time left.
  const std::regex bar(R"(importing \S*big\.sexp \[#*\.*\] +\d+%  \d+/\d+ MB  [0-9.]+ M records/s  \d+ s left)");
  CHECK(std::regex_search(run.screen, bar));
  // The bar rewrites one line in place, then the finishing message, and the
  // line is erased before the summary is printed.
  CHECK(run.screen.find("\r\x1b[Kimporting ") != std::string::npos);
  CHECK(run.screen.find("records read; writing threads and indexes...") != std::string::npos);
  const auto last_clear = run.screen.rfind("\r\x1b[K");
  REQUIRE(last_clear != std::string::npos);
  CHECK(run.screen.find("importing", last_clear) == std::string::npos);
  // The bar never goes past 100%.
  CHECK(!std::regex_search(run.screen, std::regex(R"(\b(10[1-9]|1[1-9]\d|[2-9]\d\d)%)")));
}

TEST_CASE("skein import stays quiet when standard error is not a terminal") {
  skein::test::TempDir dir;
  const std::string trace = dir.file("big.sexp");
  write_generated(trace, 600000);
  const auto r = skein::test::run_process({kSkein, "import", trace, "-o", dir.file("big.db")});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("importing") == std::string::npos);
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(r.err.find("\x1b[") == std::string::npos);
}
