// output_file_test.cpp — where an output goes (recorder/output/output_file.hpp):
// the decision for every kind of node, at the library's level; the rename
// landing only on what was checked, when the target changes while it is
// written (pending_file.hpp, invariant 2); and replacing a database that
// another process uses, or used and crashed (database_replacement.hpp).
// The commands' side is tests/viewer/cli/output_path_command_test.cpp.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>
#include <thread>

#include "recorder/output/output_file.hpp"
#include "tests/recorder/sqlite_child.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::TempDir;

namespace {

const std::string kTrace = "(skein-trace 1)\n(spawn 10 1 0 task)\n(resolve 20 1 1 ok)\n";

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

// A node that stands for /dev/null, made in the test's folder.
void make_null_device(const std::string& path) {
  REQUIRE(mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
}

Status write_stream(const std::string& target, const std::string& bytes) {
  auto out = OutputFile::open_stream(target);
  if (!out) return out.error();
  auto sink = out.value().take_sink(Compression::none);
  if (!sink) return sink.error();
  if (Status s = sink.value()->write(bytes); !s.ok()) return s;
  if (Status s = sink.value()->close(); !s.ok()) return s;
  return out.value().commit(false);
}

bool has_temporaries(const TempDir& dir) {
  for (const std::string& e : dir.entries())
    if (e.find(".tmp-") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("output file: a regular file or a new path is replaced through a temporary file") {
  TempDir dir;
  const std::string target = dir.file("out.txt");
  {
    auto dropped = OutputFile::open_stream(target);
    REQUIRE(dropped.ok());
    CHECK(dropped.value().writing() == OutputWriting::replace);
    CHECK(has_temporaries(dir));
    CHECK(node_type(target) == 0);  // nothing at the target until commit
  }
  CHECK(dir.entries().empty());  // dropped uncommitted: the temporary goes

  REQUIRE(write_stream(target, "first\n").ok());
  REQUIRE(write_stream(target, "second\n").ok());
  CHECK(read_all(target) == "second\n");
  CHECK(dir.entries() == std::vector<std::string>{"out.txt"});
}

TEST_CASE("output file: a device, a FIFO or a symbolic link is written through, never replaced") {
  TempDir dir;
  const std::string device = dir.file("null");
  make_null_device(device);
  REQUIRE(write_stream(device, "into the void\n").ok());
  CHECK(node_type(device) == S_IFCHR);

  const std::string file = dir.file("file.txt");
  test::write_file(file, "old contents, longer than the new\n");
  const std::string link = dir.file("link");
  REQUIRE(symlink("file.txt", link.c_str()) == 0);
  REQUIRE(write_stream(link, "new\n").ok());
  CHECK(node_type(link) == S_IFLNK);
  CHECK(read_all(file) == "new\n");

  const std::string fifo = dir.file("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] { received = read_all(fifo); });
  const Status written = write_stream(fifo, "through the pipe\n");
  reader.join();
  CHECK(written.ok());
  CHECK(received == "through the pipe\n");
  CHECK(node_type(fifo) == S_IFIFO);
  CHECK_FALSE(has_temporaries(dir));
}

TEST_CASE("output file: a database is only written as a regular file") {
  TempDir dir;
  const std::string device = dir.file("null");
  make_null_device(device);
  const std::string fifo = dir.file("fifo");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  const std::string link = dir.file("link");
  test::write_file(dir.file("kept.db"), "not touched");
  REQUIRE(symlink("kept.db", link.c_str()) == 0);
  REQUIRE(mkdir(dir.file("folder").c_str(), 0700) == 0);
  const std::pair<std::string, std::string> refused[] = {
      {device, "is a character device, not a database file"},
      {fifo, "is a FIFO, not a database file"},
      {link, "is a symbolic link, not a database file"},
      {dir.file("folder"), "is a folder, not a database file"},
  };
  for (const auto& [path, message] : refused) {
    INFO(path);
    auto out = OutputFile::open_database(path);
    REQUIRE_FALSE(out.ok());
    CHECK(out.error().to_string() == path + ": " + message);
    const ImportResult imported = test::import_text(kTrace, path);
    CHECK(imported.failure == ImportResult::Failure::database);
    CHECK(imported.error.to_string() == path + ": " + message);
  }
  CHECK(node_type(device) == S_IFCHR);
  CHECK(node_type(fifo) == S_IFIFO);
  CHECK(node_type(link) == S_IFLNK);
  CHECK(read_all(dir.file("kept.db")) == "not touched");
  CHECK_FALSE(has_temporaries(dir));
}

TEST_CASE("output file: the rename lands only on the kind of node that was checked") {
  TempDir dir;
  const std::string target = dir.file("out.db");

  SECTION("a link put where nothing was") {
    auto out = OutputFile::open_database(target);
    REQUIRE(out.ok());
    REQUIRE(symlink("elsewhere", target.c_str()) == 0);
    const Status committed = out.value().commit(false);
    REQUIRE_FALSE(committed.ok());
    CHECK(committed.error().to_string() == target + ": became a symbolic link while it was being written; left as it is");
    CHECK(node_type(target) == S_IFLNK);
  }
  SECTION("a FIFO put where a regular file was") {
    test::write_file(target, "old");
    auto out = OutputFile::open_stream(target);
    REQUIRE(out.ok());
    auto sink = out.value().take_sink(Compression::none);
    REQUIRE(sink.ok());
    REQUIRE(sink.value()->write("new").ok());
    REQUIRE(sink.value()->close().ok());
    REQUIRE(unlink(target.c_str()) == 0);
    REQUIRE(mkfifo(target.c_str(), 0600) == 0);
    const Status committed = out.value().commit(false);
    REQUIRE_FALSE(committed.ok());
    CHECK(committed.error().to_string() == target + ": became a FIFO while it was being written; left as it is");
    CHECK(node_type(target) == S_IFIFO);
  }
  SECTION("a regular file put where nothing was is replaced, as a moment later") {
    auto out = OutputFile::open_stream(target);
    REQUIRE(out.ok());
    auto sink = out.value().take_sink(Compression::none);
    REQUIRE(sink.ok());
    REQUIRE(sink.value()->write("mine").ok());
    REQUIRE(sink.value()->close().ok());
    test::write_file(target, "another writer's");
    REQUIRE(out.value().commit(false).ok());
    CHECK(read_all(target) == "mine");
  }
  CHECK_FALSE(has_temporaries(dir));
}

TEST_CASE("output file: leftovers of dead processes are removed, those of live ones kept") {
  TempDir dir;
  const std::string target = dir.file("out.db");
  const std::string dead = target + ".tmp-" + std::to_string(test::dead_pid());
  const std::string live = target + ".tmp-" + std::to_string(getppid());
  test::write_file(dead, "a crashed import's");
  test::write_file(live, "a running import's");
  REQUIRE(test::import_text(kTrace, target).ok());
  CHECK_FALSE(test::file_exists(dead));
  CHECK(read_all(live) == "a running import's");
}

TEST_CASE("output file: a database replaced over a dead writer's hot journal is whole") {
  TempDir dir;
  const std::string target = dir.file("t.db");
  REQUIRE(test::import_text(test::many_threads_trace(3000), target).ok());
  {
    test::SqliteChild writer(target, test::kHotJournalScript);
    REQUIRE(writer.ok());
    writer.kill_now();
  }
  REQUIRE(test::file_exists(target + "-journal"));

  const ImportResult r = test::import_text(kTrace, target);
  INFO(r.error.to_string());
  REQUIRE(r.ok());
  CHECK_FALSE(test::file_exists(target + "-journal"));
  // A read-write open is the one that would play a journal back.
  auto db = SqliteDatabase::open_for_update(target);
  REQUIRE(db.ok());
  CHECK(db.value().query_int("SELECT max(last_event) FROM event_blocks").value() == 2);
  auto check = db.value().prepare("PRAGMA integrity_check");
  REQUIRE(check.ok());
  REQUIRE(check.value().step().value());
  CHECK(check.value().text(0) == "ok");
}

TEST_CASE("output file: a database replaced over a dead WAL writer's files is whole") {
  TempDir dir;
  const std::string target = dir.file("t.db");
  REQUIRE(test::import_text(test::many_threads_trace(3000), target).ok());
  {
    test::SqliteChild writer(target, test::kUncheckpointedWalScript);
    REQUIRE(writer.ok());
    writer.kill_now();
  }
  REQUIRE(test::file_exists(target + "-wal"));
  REQUIRE(test::file_exists(target + "-shm"));

  REQUIRE(test::import_text(kTrace, target).ok());
  CHECK_FALSE(test::file_exists(target + "-wal"));
  CHECK_FALSE(test::file_exists(target + "-shm"));
  auto db = SqliteDatabase::open_for_update(target);
  REQUIRE(db.ok());
  CHECK(db.value().query_int("SELECT max(last_event) FROM event_blocks").value() == 2);
  auto check = db.value().prepare("PRAGMA integrity_check");
  REQUIRE(check.ok());
  REQUIRE(check.value().step().value());
  CHECK(check.value().text(0) == "ok");
  CHECK(test::query(target, "PRAGMA journal_mode") == "delete\n");
}

TEST_CASE("output file: a database another process is writing, or has open in WAL mode, is not replaced") {
  TempDir dir;
  const std::string target = dir.file("t.db");
  REQUIRE(test::import_text(kTrace, target).ok());

  SECTION("a live writer (SQLite's RESERVED lock), waited for, then named") {
    test::SqliteChild writer(target, "BEGIN IMMEDIATE; CREATE TABLE scribble(x);");
    REQUIRE(writer.ok());
    const ImportResult r = test::import_text(kTrace, target);
    CHECK(r.failure == ImportResult::Failure::database);
    CHECK(r.error.to_string() == target + ": is being written by process " + std::to_string(writer.pid()) +
                                     " (it holds SQLite's write lock); not replaced");
    CHECK(test::file_exists(target + "-journal"));  // still the writer's
  }
  SECTION("a live WAL connection") {
    test::SqliteChild reader(target, "PRAGMA journal_mode = WAL; SELECT count(*) FROM event_blocks;");
    REQUIRE(reader.ok());
    const ImportResult r = test::import_text(kTrace, target);
    CHECK(r.failure == ImportResult::Failure::database);
    CHECK(r.error.to_string() == target + ": is open in WAL mode by process " + std::to_string(reader.pid()) + " (" +
                                     target + "-shm is in use); not replaced");
    CHECK(test::file_exists(target + "-wal"));
  }
  CHECK_FALSE(has_temporaries(dir));
}

// A temporary name is the target's name, `.tmp-` and the pid while that
// fits NAME_MAX with any pid; past that, a prefix of the name and its hash
// stand for it, so that two long names with the same beginning still get
// temporary names of their own.
TEST_CASE("output file: temporary names never pass NAME_MAX and long names keep apart") {
  TempDir dir;
  const std::string pid = std::to_string(getpid());
  CHECK(PendingFile::temp_path_for(dir.file("t.db")) == dir.file("t.db.tmp-" + pid));
  CHECK(PendingFile::temp_path_for("t.db") == "t.db.tmp-" + pid);
  for (std::size_t length = 230; length <= 255; ++length) {
    INFO(length);
    const std::string a = std::string(length - 1, 'x') + "a";
    const std::string b = std::string(length - 1, 'x') + "b";
    const std::string temp_a = PendingFile::temp_path_for(dir.file(a));
    const std::string temp_b = PendingFile::temp_path_for(dir.file(b));
    CHECK(temp_a.size() - dir.path().size() - 1 <= 255);
    CHECK(temp_a != temp_b);
    CHECK_THAT(temp_a, Catch::EndsWith(".tmp-" + pid));
    CHECK_THAT(temp_a, Catch::StartsWith(dir.file("xxxxxxxx")));
    REQUIRE(write_stream(dir.file(a), "contents").ok());
    CHECK(read_all(dir.file(a)) == "contents");
  }
  // Never cut in the middle of a character: 'é' is two bytes.
  std::string accented;
  while (accented.size() < 250) accented += "\xc3\xa9";
  const std::string temp = PendingFile::temp_path_for(dir.file(accented));
  const std::string name = temp.substr(dir.path().size() + 1);
  CHECK(name.size() <= 255);
  const std::size_t tilde = name.find('~');
  REQUIRE(tilde != std::string::npos);
  CHECK(tilde % 2 == 0);
  CHECK_FALSE(has_temporaries(dir));
}
