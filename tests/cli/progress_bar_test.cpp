// progress_bar_test.cpp — `skein import` draws its progress bar on standard
// error only when that is a terminal: run it on a pseudo-terminal (forkpty)
// and read what a user would see, then through a pipe, where it must stay
// quiet.
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <regex>

#include "recorder/trace_writer.hpp"
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
};

// Runs argv with standard output and error on a new pseudo-terminal.
TerminalRun run_on_terminal(const std::vector<std::string>& argv) {
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
  char buffer[4096];
  for (;;) {  // until the child closes the terminal (EIO on Linux)
    const ssize_t n = read(master, buffer, sizeof buffer);
    if (n > 0) run.screen.append(buffer, static_cast<std::size_t>(n));
    else if (n < 0 && errno == EINTR) continue;
    else break;
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
  // Large enough that the import takes several of the bar's 100 ms updates.
  write_generated(trace, 600000);
  const TerminalRun run = run_on_terminal({kSkein, "import", trace, "-o", dir.file("big.db")});
  INFO(run.screen);
  REQUIRE(run.exit_code == 0);
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
