// traced_child.hpp — the capture's process tests' way of running a traced
// program: a child with default signal dispositions, an empty signal mask and
// no core dumps, its standard streams piped to the test, waited on by its own
// lines (never by time) with a bounded deadline after which it is killed and
// the case fails; and the trace it leaves, read back with the reader and
// judged by `skein check` (SKEIN_CLI_PATH).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/record_text.hpp"
#include "tests/support/subprocess.hpp"

extern char** environ;

namespace skein::test {

using Clock = std::chrono::steady_clock;

// The longest any one child may take, from its start to its exit.
inline constexpr auto kChildDeadline = std::chrono::seconds(30);

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline bool is_fifo(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

inline bool exists(const std::string& path) {
  struct stat st {};
  return lstat(path.c_str(), &st) == 0;
}

// One end of a pipe or FIFO this process reads, and what came through it.
struct Pipe {
  int fd = -1;
  std::string text;
  void close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

struct Child {
  pid_t pid = -1;
  int pidfd = -1;  // readable once the child has exited
  int in = -1;     // its standard input
  Pipe out, err;
  Clock::time_point deadline;
};

struct Exit {
  bool timed_out = false;
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
};

// Starts argv[0] with `env` added to this process's environment (less any
// SKEIN_TRACE* setting), its three standard streams piped to this process.
inline Child spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env) {
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "SKEIN_TRACE", 11) != 0) environment.emplace_back(*e);
  // Under AddressSanitizer its SIGSEGV handler would report and exit before
  // the capture's handler could flush: let the capture's run.
  environment.emplace_back("ASAN_OPTIONS=handle_segv=0:handle_abort=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0");
  environment.insert(environment.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  int in[2], out[2], err[2];
  REQUIRE(pipe2(in, O_CLOEXEC) == 0);
  REQUIRE(pipe2(out, O_CLOEXEC) == 0);
  REQUIRE(pipe2(err, O_CLOEXEC) == 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    // Every signal at its default, none blocked, whatever the test runner
    // left this process with; no core files for the signals that make one.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig = 1; sig < NSIG; ++sig)
      if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    execve(args[0], args.data(), envp.data());
    _exit(127);
  }
  REQUIRE(pid > 0);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  Child c;
  c.pid = pid;
  c.pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  c.in = in[1];
  c.out.fd = out[0];
  c.err.fd = err[0];
  fcntl(c.out.fd, F_SETFL, O_NONBLOCK);
  fcntl(c.err.fd, F_SETFL, O_NONBLOCK);
  c.deadline = Clock::now() + kChildDeadline;
  return c;
}

// Reads what `streams` bring until `done()` holds, or every stream has
// ended, or the deadline. Returns done() (with no `done`: all ended).
inline bool pump(std::vector<Pipe*> streams, const std::function<bool()>& done, Clock::time_point deadline) {
  for (;;) {
    if (done && done()) return true;
    std::vector<pollfd> fds;
    std::vector<Pipe*> open;
    for (Pipe* s : streams)
      if (s->fd >= 0) {
        fds.push_back({s->fd, POLLIN, 0});
        open.push_back(s);
      }
    if (fds.empty()) return done ? done() : true;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    const int r = poll(fds.data(), fds.size(), static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      char buf[65536];
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) open[i]->text.append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || (errno != EAGAIN && errno != EINTR)) open[i]->close();
    }
  }
}

inline bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Closes its input, reads its outputs to their end and waits for its exit,
// all by the child's deadline; past it the child is killed.
inline Exit finish(Child& c, std::vector<Pipe*> more = {}) {
  if (c.in >= 0) ::close(c.in);
  c.in = -1;
  more.push_back(&c.out);
  more.push_back(&c.err);
  const bool ended = pump(more, nullptr, c.deadline);
  Exit e;
  bool exited = ended;
  if (exited && c.pidfd >= 0) {
    pollfd p{c.pidfd, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(c.deadline - Clock::now()).count();
    exited = left > 0 && poll(&p, 1, static_cast<int>(left)) == 1;
  }
  if (!exited) {
    e.timed_out = true;
    kill(c.pid, SIGKILL);
  }
  int status = 0;
  waitpid(c.pid, &status, 0);
  if (c.pidfd >= 0) ::close(c.pidfd);
  for (Pipe* s : more) s->close();
  if (WIFEXITED(status) && !e.timed_out) e.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !e.timed_out) e.signal = WTERMSIG(status);
  UNSCOPED_INFO("standard error: " << c.err.text);
  return e;
}

// A child that died early must fail the case, not kill this process.
inline void send_line(Child& c) {
  signal(SIGPIPE, SIG_IGN);
  CHECK(write(c.in, "go\n", 3) == 3);
}

// The lines of `text` that the capture wrote ("skein: ...").
inline std::vector<std::string> capture_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("skein:", 0) == 0) lines.push_back(line);
  return lines;
}

struct TraceFile {
  std::vector<std::string> records;
  std::vector<std::string> errors;
  bool truncated = false;
  bool has_header = false;
  std::size_t count_prefix(const std::string& prefix) const {
    return static_cast<std::size_t>(std::count_if(records.begin(), records.end(), [&](const std::string& r) {
      return r.rfind(prefix, 0) == 0;
    }));
  }
  bool has(const std::string& text) const {
    return std::any_of(records.begin(), records.end(), [&](const std::string& r) { return contains(r, text); });
  }
};

inline TraceFile read_trace_text(const std::string& text) {
  const auto r = test::read_all(text, "trace");
  return TraceFile{r.records, r.errors, r.truncated, r.has_header};
}

inline TraceFile read_trace(const std::string& path) { return read_trace_text(slurp(path)); }

// `skein check PATH`'s exit status: 0 for a valid trace (warnings allowed).
inline int skein_check(const std::string& path) { return test::run_process({SKEIN_CLI_PATH, "check", path}).exit_code; }

}  // namespace skein::test
