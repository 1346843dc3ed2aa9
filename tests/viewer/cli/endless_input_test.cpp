// endless_input_test.cpp — readers stop on input that never ends a line:
// /dev/zero named as the trace, and a pipe fed endless bytes by this test.
// Every command gives FILE:LINE:COL "line longer than 1 MiB ..." and a
// non-zero exit after reading a bounded number of bytes. The pipe tests count
// the bytes they write and give up past a bound (a reader that kept reading
// fails the test on that count); the /dev/zero tests run under a CPU-time
// limit only so that a reader that never stopped is killed rather than hang.
#include <catch2/catch.hpp>

#include <csignal>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;
constexpr std::uint64_t kPipeBound = std::uint64_t{1} << 30;  // 1 GiB written: the reader did not stop
const std::string kEndless =
    "line longer than 1 MiB (1048576 bytes), with no end in the next 16 MiB: the rest of the input is not read";

std::string read_file_text(const std::string& path) {
  std::string text;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(fd);
  return text;
}

struct PipeRun {
  int exit_code = -1;
  std::string err;
  std::uint64_t written = 0;  // bytes this test wrote into the pipe
  bool gave_up = false;       // the bound was reached: the reader never stopped
};

// Runs `skein ARGS` with standard input a pipe into which `prefix`, then
// `fill` bytes without end, are written until the reader closes it.
PipeRun run_on_endless_pipe(const std::vector<std::string>& args, const std::string& prefix, char fill,
                            const TempDir& dir) {
  const std::string err_path = dir.file("stderr.txt");
  int in[2];
  REQUIRE(pipe(in) == 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    close(in[0]);
    close(in[1]);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    dup2(err, 2);
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    dup2(null, 1);
    std::vector<char*> argv{const_cast<char*>(kSkein.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(in[0]);
  // The reader closing its end shows here as EPIPE, not as death by SIGPIPE.
  const auto old_handler = std::signal(SIGPIPE, SIG_IGN);
  PipeRun run;
  std::string chunk = prefix;
  std::size_t at = 0;
  for (;;) {
    if (at == chunk.size()) {
      chunk.assign(64 * 1024, fill);
      at = 0;
    }
    const ssize_t n = write(in[1], chunk.data() + at, chunk.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EPIPE: the reader is gone
    at += static_cast<std::size_t>(n);
    run.written += static_cast<std::uint64_t>(n);
    if (run.written > kPipeBound) {
      run.gave_up = true;
      kill(pid, SIGKILL);
      break;
    }
  }
  close(in[1]);
  std::signal(SIGPIPE, old_handler);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  run.err = read_file_text(err_path);
  return run;
}

// `skein ARGS` under a CPU-time limit far above what stopping takes.
skein::test::ProcessResult run_cpu_limited(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/sh", "-c", "ulimit -t 60 && exec \"$0\" \"$@\"", kSkein};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

}  // namespace

TEST_CASE("readers stop: skein check and import /dev/zero end with line too long, non-zero exit") {
  TempDir dir;
  const auto check = run_cpu_limited({"check", "/dev/zero"});
  CHECK(check.signal == 0);
  CHECK(check.exit_code == 1);
  CHECK(check.err.find("/dev/zero:1:1048577: " + kEndless + "\n") != std::string::npos);
  // import tells the format from the first bytes: none it knows.
  const auto import = run_cpu_limited({"import", "/dev/zero", "-o", dir.file("z.db")});
  CHECK(import.signal == 0);
  CHECK(import.exit_code == 1);
  CHECK(import.err.find("/dev/zero:1:1: unknown trace format") != std::string::npos);
  CHECK_FALSE(skein::test::file_exists(dir.file("z.db")));
}

TEST_CASE("readers stop: an endless header on a pipe ends skein check - and import - within bounded input") {
  TempDir dir;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", "-"}, std::vector<std::string>{"import", "-", "-o", dir.file("h.db")}}) {
    INFO(args.front());
    const auto run = run_on_endless_pipe(args, "(skein-trace 1 (process \"", 'p', dir);
    CHECK_FALSE(run.gave_up);
    CHECK(run.exit_code == 1);
    CHECK(run.err.find(":1:1048577: " + kEndless + "\n") != std::string::npos);
  }
  CHECK_FALSE(skein::test::file_exists(dir.file("h.db")));
}

TEST_CASE("readers stop: an endless record line on a pipe ends skein check - and import - within bounded input") {
  TempDir dir;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"check", "-"}, std::vector<std::string>{"import", "-", "-o", dir.file("r.db")}}) {
    INFO(args.front());
    const auto run = run_on_endless_pipe(args, "(skein-trace 1)\n(spawn 10 1 0 task)\n", '\0', dir);
    CHECK_FALSE(run.gave_up);
    CHECK(run.exit_code == 1);
    CHECK(run.err.find(":3:1048577: " + kEndless + "\n") != std::string::npos);
  }
  CHECK_FALSE(skein::test::file_exists(dir.file("r.db")));
}
