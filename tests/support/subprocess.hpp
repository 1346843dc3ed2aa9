// subprocess.hpp — runs a program with given arguments and standard input,
// and captures its exit status, standard output and standard error. For
// tests of the command-line tools and of death by signal. `in_child` runs
// in the child just before exec (resource limits, signal dispositions, a
// mount namespace); a child it leaves by _exit never runs the program.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

namespace skein::test {

struct ProcessResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

inline ProcessResult run_process(const std::vector<std::string>& argv, const std::string& input = {},
                                 const std::vector<std::string>& env = {},
                                 const std::function<void()>& in_child = {}) {
  int in[2], out[2], err[2];
  if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
    for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
    if (in_child) in_child();
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  // Feed stdin and drain both outputs together so no pipe fills up.
  std::size_t written = 0;
  if (input.empty()) close(in[1]);
  bool in_open = !input.empty();
  bool out_open = true, err_open = true;
  ProcessResult result;
  char buf[65536];
  fcntl(in[1], F_SETFL, O_NONBLOCK);
  while (out_open || err_open) {
    std::vector<pollfd> fds;
    if (out_open) fds.push_back({out[0], POLLIN, 0});
    if (err_open) fds.push_back({err[0], POLLIN, 0});
    if (in_open) fds.push_back({in[1], POLLOUT, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) break;
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == in[1]) {
        const ssize_t n = write(in[1], input.data() + written, input.size() - written);
        if (n > 0) written += static_cast<std::size_t>(n);
        if (n < 0 || written == input.size()) {
          close(in[1]);
          in_open = false;
        }
        continue;
      }
      const ssize_t n = read(p.fd, buf, sizeof buf);
      if (n <= 0) {
        close(p.fd);
        (p.fd == out[0] ? out_open : err_open) = false;
      } else {
        (p.fd == out[0] ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  if (in_open) close(in[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace skein::test
