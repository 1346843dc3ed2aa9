// output_path_command_test.cpp — `-o` as users give it, on the commands
// that write (recorder/output/output_file.hpp decides for all of them): onto a
// character device made with mknod, a FIFO with a reader, a symbolic link
// to a file, /dev/stdout; `import` refuses all of those (exit 2) and leaves
// them as they were, `export` (and `render`) write through them. And onto
// a database a crashed writer left with a hot journal, and beside leftovers
// of killed imports; into a folder where nothing can be created (a
// read-only file system), and under names too long for `.tmp-PID`. Onto
// the command's own input by any name (refused), and onto a full disk
// (RLIMIT_FSIZE: an error, and the old file as it was).
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "tests/recorder/sqlite_child.hpp"
#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

const std::string kTrace =
    "(skein-trace 1 (process \"t\") (pid 1))\n"
    "(spawn 100 1 0 task)\n"
    "(resolve 2100 1 -1 ok)\n"
    "(end 1500000)\n";

mode_t node_type(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & S_IFMT;
}

std::string read_all(const std::string& path) {
  std::string out;
  const int fd = open(path.c_str(), O_RDONLY);
  char buf[4096];
  for (ssize_t n; fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  if (fd >= 0) close(fd);
  return out;
}

std::string link_text(const std::string& path) {
  char buf[4096];
  const ssize_t n = readlink(path.c_str(), buf, sizeof buf);
  return n < 0 ? std::string() : std::string(buf, static_cast<std::size_t>(n));
}

bool has_temporaries(const TempDir& dir) {
  for (const std::string& e : dir.entries())
    if (e.find(".tmp-") != std::string::npos) return true;
  return false;
}

// What `skein export --format sexp` prints to standard output: the bytes
// every written-through output must receive.
std::string exported_to_stdout(const std::string& trace) {
  const auto r = run_process({kSkein, "export", trace, "--format", "sexp"});
  REQUIRE(r.exit_code == 0);
  REQUIRE_FALSE(r.out.empty());
  return r.out;
}

// Reads a FIFO to its end on a thread, giving up after ten seconds (so that
// a regression fails the test instead of hanging it). Opened without
// blocking, so that the writer's open finds a reader already there.
class FifoReader {
 public:
  explicit FifoReader(const std::string& path) {
    fd_ = open(path.c_str(), O_RDONLY | O_NONBLOCK);
    thread_ = std::thread([this] {
      const auto give_up_at = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      bool had_data = false;
      char buf[4096];
      while (std::chrono::steady_clock::now() < give_up_at) {
        pollfd p{fd_, POLLIN, 0};
        if (poll(&p, 1, 100) < 0) return;
        const ssize_t n = read(fd_, buf, sizeof buf);
        if (n > 0) {
          had_data = true;
          received_.append(buf, static_cast<std::size_t>(n));
        } else if (n == 0 && had_data) {
          return;  // the writer closed it
        } else if (n < 0 && errno != EAGAIN) {
          return;
        }
      }
    });
  }
  ~FifoReader() {
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) close(fd_);
  }
  FifoReader(const FifoReader&) = delete;
  FifoReader& operator=(const FifoReader&) = delete;

  [[nodiscard]] bool opened() const { return fd_ >= 0; }
  std::string finish() {
    thread_.join();
    return received_;
  }

 private:
  int fd_ = -1;
  std::thread thread_;
  std::string received_;
};

// Mounts an empty read-only tmpfs on `dir` in a mount namespace of the
// calling process's own, so that nobody else sees it; false where this
// process may not (no CAP_SYS_ADMIN).
bool mount_read_only_privately(const std::string& dir) {
  return unshare(CLONE_NEWNS) == 0 && mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 &&
         mount("tmpfs", dir.c_str(), "tmpfs", MS_RDONLY, "size=64k") == 0;
}

// A disk that is full after `bytes` bytes of any one file: writes past it
// fail with EFBIG (SIGXFSZ ignored, so the write returns its error rather
// than killing the process), as they would with ENOSPC.
std::function<void()> disk_full_after(rlim_t bytes) {
  return [bytes] {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{bytes, bytes};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(98);
  };
}

// Whether a child process can mount a private read-only file system here.
bool can_mount_read_only(const std::string& dir) {
  const pid_t pid = fork();
  if (pid == 0) _exit(mount_read_only_privately(dir) ? 0 : 1);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_CASE("skein -o: onto a character device, import refuses and export writes through") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string device = dir.file("null");
  REQUIRE(mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);

  const auto imported = run_process({kSkein, "import", trace, "-o", device});
  CHECK(imported.exit_code == 2);
  CHECK(imported.out.empty());
  CHECK(imported.err == device + ": is a character device, not a database file\n");
  CHECK(node_type(device) == S_IFCHR);

  for (const char* format : {"chrome", "folded", "sexp"}) {
    INFO(format);
    const auto exported = run_process({kSkein, "export", trace, "--format", format, "-o", device});
    CHECK(exported.exit_code == 0);
    CHECK(exported.err.empty());
    CHECK(node_type(device) == S_IFCHR);
  }
  CHECK_FALSE(has_temporaries(dir));
}

TEST_CASE("skein -o: onto a FIFO, export writes through while a reader reads, import refuses") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string expected = exported_to_stdout(trace);
  const std::string fifo = dir.file("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);

  FifoReader reader(fifo);
  REQUIRE(reader.opened());
  const auto exported = run_process({kSkein, "export", trace, "--format", "sexp", "-o", fifo});
  CHECK(exported.exit_code == 0);
  CHECK(exported.err.empty());
  CHECK(reader.finish() == expected);
  CHECK(node_type(fifo) == S_IFIFO);

  const auto imported = run_process({kSkein, "import", trace, "-o", fifo});
  CHECK(imported.exit_code == 2);
  CHECK(imported.err == fifo + ": is a FIFO, not a database file\n");
  CHECK(node_type(fifo) == S_IFIFO);
  CHECK_FALSE(has_temporaries(dir));
}

TEST_CASE("skein -o: onto a symbolic link to a file, export writes the file, import refuses") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string expected = exported_to_stdout(trace);
  const std::string file = dir.file("real.sexp");
  skein::test::write_file(file, "older contents\n");
  const std::string link = dir.file("link.sexp");
  REQUIRE(symlink("real.sexp", link.c_str()) == 0);

  const auto exported = run_process({kSkein, "export", trace, "--format", "sexp", "-o", link});
  CHECK(exported.exit_code == 0);
  CHECK(node_type(link) == S_IFLNK);
  CHECK(link_text(link) == "real.sexp");
  CHECK(read_all(file) == expected);

  const auto imported = run_process({kSkein, "import", trace, "-o", link});
  CHECK(imported.exit_code == 2);
  CHECK(imported.err == link + ": is a symbolic link, not a database file\n");
  CHECK(node_type(link) == S_IFLNK);
  CHECK(link_text(link) == "real.sexp");
  CHECK(read_all(file) == expected);
  CHECK_FALSE(has_temporaries(dir));
}

TEST_CASE("skein -o /dev/stdout: export prints to standard output") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string expected = exported_to_stdout(trace);

  // First through a link of the test's own: should the command ever
  // replace a link again, it replaces this one, not the system's.
  const std::string link = dir.file("stdout");
  REQUIRE(symlink("/dev/stdout", link.c_str()) == 0);
  const auto through_link = run_process({kSkein, "export", trace, "--format", "sexp", "-o", link});
  CHECK(through_link.exit_code == 0);
  CHECK(through_link.out == expected);
  REQUIRE(node_type(link) == S_IFLNK);
  REQUIRE_FALSE(has_temporaries(dir));

  const mode_t system_stdout = node_type("/dev/stdout");
  const auto direct = run_process({kSkein, "export", trace, "--format", "sexp", "-o", "/dev/stdout"});
  CHECK(direct.exit_code == 0);
  CHECK(direct.err.empty());
  CHECK(direct.out == expected);
  CHECK(node_type("/dev/stdout") == system_stdout);
}

TEST_CASE("skein -o: import over a database a crashed writer left with a hot journal") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string old_trace = dir.file("old.sexp");
  skein::test::write_file(old_trace, skein::test::many_threads_trace(3000));
  const std::string target = dir.file("target.db");
  REQUIRE(run_process({kSkein, "import", old_trace, "-o", target}).exit_code == 0);
  {
    skein::test::SqliteChild writer(target, skein::test::kHotJournalScript);
    REQUIRE(writer.ok());
    writer.kill_now();
  }
  REQUIRE(skein::test::file_exists(target + "-journal"));

  const auto imported = run_process({kSkein, "import", trace, "-o", target});
  CHECK(imported.exit_code == 0);
  CHECK(imported.err.empty());
  CHECK_FALSE(skein::test::file_exists(target + "-journal"));

  const auto info = run_process({kSkein, "info", target});
  INFO(info.err);
  CHECK(info.exit_code == 0);

  // The plain sqlite3 tool opens read-write: the open that would play a
  // stale journal back into the new file.
  if (access("/usr/bin/sqlite3", X_OK) == 0) {
    const auto checked =
        run_process({"/usr/bin/sqlite3", target, "PRAGMA integrity_check; SELECT max(last_event) FROM event_blocks;"});
    CHECK(checked.exit_code == 0);
    CHECK(checked.out == "ok\n3\n");
  } else {
    auto db = skein::SqliteDatabase::open_for_update(target);
    REQUIRE(db.ok());
    auto check = db.value().prepare("PRAGMA integrity_check");
    REQUIRE(check.ok());
    REQUIRE(check.value().step().value());
    CHECK(check.value().text(0) == "ok");
  }
  CHECK_FALSE(skein::test::file_exists(target + "-journal"));
  CHECK(dir.entries() == std::vector<std::string>{"old.sexp", "t.sexp", "target.db"});
}

TEST_CASE("skein -o: leftovers of killed writers are removed, those of live processes kept") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  for (const std::string command : {"import", "export"}) {
    INFO(command);
    const std::string target = dir.file(command + ".out");
    const std::string dead = target + ".tmp-" + std::to_string(skein::test::dead_pid());
    const std::string live = target + ".tmp-" + std::to_string(getpid());  // this test's own
    skein::test::write_file(dead, "a killed writer's");
    skein::test::write_file(live, "a running writer's");
    const auto r = command == "import" ? run_process({kSkein, "import", trace, "-o", target})
                                       : run_process({kSkein, "export", trace, "--format", "sexp", "-o", target});
    CHECK(r.exit_code == 0);
    CHECK_FALSE(skein::test::file_exists(dead));
    CHECK(read_all(live) == "a running writer's");
  }
}

TEST_CASE("skein -o: render writes a regular file atomically and a device through") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string svg = dir.file("timeline.svg");
  skein::test::write_file(svg, "an older picture");
  const auto drawn = run_process({kSkein, "render", trace, "-o", svg, "--width", "400", "--height", "300"});
  INFO(drawn.err);
  CHECK(drawn.exit_code == 0);
  CHECK_THAT(read_all(svg), Catch::StartsWith("<?xml") && Catch::Contains("Skein timeline"));

  const std::string device = dir.file("null.png");
  REQUIRE(mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
  const auto through = run_process({kSkein, "render", trace, "-o", device, "--width", "400", "--height", "300"});
  CHECK(through.exit_code == 0);
  CHECK(node_type(device) == S_IFCHR);
  CHECK_FALSE(has_temporaries(dir));
}

// An output in a folder where no file can be created, root included: a
// read-only file system mounted for the commands alone where the test may
// mount one, else /sys (sysfs lets nobody create a file). The error is the
// creation of the temporary file, with the system's reason and the folder,
// never "cannot remove the old temporary file" (there was none).
TEST_CASE("skein -o: on a read-only file system the error names the temporary file's creation") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  REQUIRE(run_process({kSkein, "import", trace, "-o", db}).exit_code == 0);
  const std::string read_only = dir.file("read-only");
  REQUIRE(mkdir(read_only.c_str(), 0755) == 0);
  const bool mounted = can_mount_read_only(read_only);
  const std::string folder = mounted ? read_only : "/sys";
  const std::string reason = mounted ? "Read-only file system" : "Permission denied";
  const auto in_child = [&] {
    if (mounted && !mount_read_only_privately(read_only)) _exit(99);
  };
  INFO("folder " << folder);

  const std::vector<std::vector<std::string>> commands = {
      {kSkein, "import", trace, "-o", folder + "/out.db"},
      {kSkein, "export", db, "--format", "sexp", "-o", folder + "/out.sexp"},
      {kSkein, "render", db, "-o", folder + "/out.png", "--width", "400", "--height", "300"},
  };
  for (const auto& command : commands) {
    const std::string target = command[command[1] == "render" ? 4 : command.size() - 1];
    INFO(command[1]);
    const auto r = run_process(command, {}, {}, in_child);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(target + ": ") &&
                          Catch::Contains("cannot create its temporary file " +
                                          target.substr(folder.size() + 1) + ".tmp-") &&
                          Catch::Contains(" in the folder " + folder + ": " + reason + "\n"));
    CHECK_THAT(r.err, !Catch::Contains("remove"));
    CHECK_FALSE(skein::test::file_exists(target));
  }
}

// NAME.tmp-PID would pass NAME_MAX (255 on Linux) for names from 246
// bytes on: the temporary name is shortened instead, and the output is
// written under its own name all the same. (A database's name stops at
// 247 bytes, room left for SQLite's -journal: tests/recorder/store.)
TEST_CASE("skein -o: output names of 246 to 255 bytes are written under shortened temporary names") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string expected = exported_to_stdout(trace);
  for (std::size_t length = 246; length <= 255; ++length) {
    INFO(length);
    const std::string exported = dir.file(std::string(length - 5, 'e') + ".sexp");
    skein::test::write_file(exported, "older contents\n");
    const auto e = run_process({kSkein, "export", trace, "--format", "sexp", "-o", exported});
    CHECK(e.exit_code == 0);
    CHECK(e.err.empty());
    CHECK(read_all(exported) == expected);

    const std::string database = dir.file(std::string(std::min<std::size_t>(length, 247) - 3, 'd') + ".db");
    const auto i = run_process({kSkein, "import", trace, "-o", database});
    CHECK(i.exit_code == 0);
    CHECK(i.err.empty());
    CHECK(run_process({kSkein, "info", database}).exit_code == 0);

    const std::string image = dir.file(std::string(length - 4, 'r') + ".svg");
    const auto r = run_process({kSkein, "render", database, "-o", image, "--width", "400", "--height", "300"});
    CHECK(r.exit_code == 0);
    CHECK_THAT(read_all(image), Catch::StartsWith("<?xml"));
  }
  CHECK_FALSE(has_temporaries(dir));
}

// `-o` naming the command's own input, by whatever name: the same string,
// ./NAME, a hard link, a symbolic link, standard input, or the cache
// database a TRACE is read through. Refused with one message (exit 2),
// and the input keeps its bytes.
TEST_CASE("skein -o: an output that names an input by any name is refused and the input kept") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string hard = dir.file("hard.sexp");
  REQUIRE(link(trace.c_str(), hard.c_str()) == 0);
  const std::string soft = dir.file("soft.sexp");
  REQUIRE(symlink("t.sexp", soft.c_str()) == 0);
  const std::string dotted = dir.path() + "/./t.sexp";

  for (const std::string& output : {trace, dotted, hard, soft}) {
    INFO(output);
    const auto imported = run_process({kSkein, "import", trace, "-o", output});
    CHECK(imported.exit_code == 2);
    CHECK(imported.out.empty());
    CHECK(imported.err == output + ": is the input " + trace + " itself (the same file); choose another output\n");
    CHECK(read_all(trace) == kTrace);

    const auto exported = run_process({kSkein, "export", trace, "--format", "sexp", "-o", output});
    CHECK(exported.exit_code == 2);
    CHECK(exported.err == output + ": is the input " + trace + " itself (the same file); choose another output\n");
    CHECK(read_all(trace) == kTrace);
  }
  // Standard input is an input too.
  const auto from_stdin = run_process({"/bin/sh", "-c", "exec \"$0\" import - -o \"$1\" < \"$1\"", kSkein, dotted});
  CHECK(from_stdin.exit_code == 2);
  CHECK(from_stdin.err == dotted + ": is the input <stdin> itself (the same file); choose another output\n");
  CHECK(read_all(trace) == kTrace);

  // The cache database a TRACE is read through, named or through a link.
  const std::string cache = trace + ".skein.db";
  const std::string cache_link = dir.file("cache-link.svg");
  REQUIRE(symlink("t.sexp.skein.db", cache_link.c_str()) == 0);
  const auto over_cache = run_process({kSkein, "export", trace, "--format", "sexp", "-o", cache});
  CHECK(over_cache.exit_code == 2);
  CHECK(over_cache.err == cache + ": is the input " + cache + " itself (the same file); choose another output\n");
  const std::string cache_bytes = read_all(cache);
  CHECK_THAT(cache_bytes, Catch::StartsWith("SQLite format 3"));
  const auto render_over_cache = run_process({kSkein, "render", trace, "-o", cache_link, "--width", "400", "--height", "300"});
  CHECK(render_over_cache.exit_code == 2);
  CHECK_THAT(render_over_cache.err, Catch::Contains(cache_link + ": is the input " + cache + " itself"));
  CHECK(read_all(cache) == cache_bytes);

  // render: a trace whose name is an image's.
  const std::string image_named = dir.file("t.svg");
  skein::test::write_file(image_named, kTrace);
  const auto rendered = run_process({kSkein, "render", image_named, "-o", dir.path() + "/./t.svg", "--width", "400", "--height", "300"});
  CHECK(rendered.exit_code == 2);
  CHECK_THAT(rendered.err, Catch::Contains(dir.path() + "/./t.svg: is the input " + image_named + " itself"));
  CHECK(read_all(image_named) == kTrace);
  CHECK_FALSE(has_temporaries(dir));
}

// A full disk midway through every writer: a non-zero exit status, the old
// file's bytes as they were, and no temporary file left behind.
TEST_CASE("skein -o: a write that fails midway on a full disk exits non-zero and keeps the old file") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  // Threads with labels of their own that run for 3 µs each, so that
  // every format has a line per thread to write.
  std::string text = "(skein-trace 1 (process \"t\") (pid 1))\n(spawn 10 1 0 task)\n";
  std::int64_t at = 100;
  for (int i = 2; i <= 400; ++i, at += 4000) {
    const std::string id = std::to_string(i);
    const auto time = [&](std::int64_t offset) { return std::to_string(at + offset); };
    text += "(spawn " + time(0) + " " + id + " 1 task)\n(label " + time(0) + " " + id + " \"worker-" + id +
            "\")\n(switch " + time(10) + " " + id + ")\n(switch " + time(3010) + " -1)\n(resolve " + time(3010) +
            " " + id + " -1 ok)\n";
  }
  text += "(end " + std::to_string(at) + ")\n";
  skein::test::write_file(trace, text);
  const std::string db = dir.file("t.db");
  REQUIRE(run_process({kSkein, "import", trace, "-o", db}).exit_code == 0);
  const std::string old_bytes = "an older file, which must survive\n";

  const std::vector<std::pair<std::string, std::vector<std::string>>> writers = {
      {"out.json", {kSkein, "export", db, "--format", "chrome", "-o"}},
      {"out.folded", {kSkein, "export", db, "--format", "folded", "-o"}},
      {"out.sexp", {kSkein, "export", db, "--format", "sexp", "-o"}},
      {"out.sexp.gz", {kSkein, "export", db, "--format", "sexp", "-o"}},
      {"out.db", {kSkein, "import", trace, "-o"}},
      {"out.png", {kSkein, "render", db, "--width", "800", "--height", "600", "-o"}},
      {"out.svg", {kSkein, "render", db, "--width", "800", "--height", "600", "-o"}},
  };
  for (const auto& [name, command] : writers) {
    INFO(name);
    const std::string target = dir.file(name);
    skein::test::write_file(target, old_bytes);
    std::vector<std::string> argv = command;
    argv.push_back(target);
    // Without the limit, the output is larger than it: the limit does bite.
    const std::string unlimited = dir.file("unlimited-" + name);
    std::vector<std::string> free_argv = command;
    free_argv.push_back(unlimited);
    REQUIRE(run_process(free_argv).exit_code == 0);
    struct stat st {};
    REQUIRE(stat(unlimited.c_str(), &st) == 0);
    REQUIRE(st.st_size > 1024);
    REQUIRE(unlink(unlimited.c_str()) == 0);

    const auto r = run_process(argv, {}, {}, disk_full_after(1024));
    CHECK(r.exit_code != 0);
    CHECK(r.exit_code != -1);
    CHECK_FALSE(r.err.empty());
    CHECK(read_all(target) == old_bytes);
    CHECK_FALSE(has_temporaries(dir));
  }
}
