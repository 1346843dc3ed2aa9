// output_path_command_test.cpp — `-o` as users give it, on the commands
// that write (recorder/output/output_file.hpp decides for all of them): onto a
// character device made with mknod, a FIFO with a reader, a symbolic link
// to a file, /dev/stdout; `import` refuses all of those (exit 2) and leaves
// them as they were, `export` (and `render`) write through them. And onto
// a database a crashed writer left with a hot journal, and beside leftovers
// of killed imports.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
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
        run_process({"/usr/bin/sqlite3", target, "PRAGMA integrity_check; SELECT count(*) FROM events;"});
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
