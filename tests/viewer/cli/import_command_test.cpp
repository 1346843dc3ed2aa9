// import_command_test.cpp — `skein import` as a user runs it: output, exit
// codes, FILE:LINE:COL errors; and atomicity under fire: a child import
// killed (SIGKILL) at random points leaves the old database or a complete
// new one, never a damaged one; SIGINT removes the temporary file.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <thread>

#include "recorder/format/trace_writer.hpp"
#include "recorder/store/store_schema.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::query;
using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

const std::string kTrace =
    "(skein-trace 1 (process \"t\") (pid 1))\n"
    "(spawn 100 1 0 task)\n"
    "(resolve 2100 1 -1 ok)\n"
    "(end 1500000)\n";

// Writes a generated trace of about `records` records.
void write_generated(const std::string& path, std::uint64_t records) {
  skein::samples::SyntheticOptions options;
  options.records = records;
  auto writer = skein::TraceWriter::create(path);
  REQUIRE(writer.ok());
  writer.value().write_header(skein::samples::synthetic_header(options));
  for (const auto& r : skein::samples::synthetic_trace(options)) writer.value().write(r);
  REQUIRE(writer.value().finish().ok());
}

pid_t start(const std::vector<std::string>& argv) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  return pid;
}

constexpr std::uint64_t kMissing = ~std::uint64_t{0};

// The size of `path`, or kMissing when there is no such file.
std::uint64_t file_exists_with_size(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : kMissing;
}

std::uint64_t file_size(const std::string& path) {
  const std::uint64_t size = file_exists_with_size(path);
  return size == kMissing ? 0 : size;
}

// The inode of `path` (0 when missing): a rename into place changes it.
std::uint64_t inode(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_ino) : 0;
}

std::vector<std::string> temporaries(const TempDir& dir) {
  std::vector<std::string> out;
  for (const auto& e : dir.entries())
    if (e.find(".tmp-") != std::string::npos) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("skein import: a trace into a database, one line of report") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const auto r = run_process({kSkein, "import", trace, "-o", dir.file("t.db")});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::StartsWith(trace + " -> " + dir.file("t.db") +
                                      ": 3 records (skein), 2 threads, 0 warnings, "));
  CHECK(query(dir.file("t.db"), "SELECT count(*) FROM events") == "3\n");

  // Without -o: beside the trace, as TRACE.skein.db; several at once.
  const std::string second = dir.file("u.sexp");
  skein::test::write_file(second, kTrace);
  const auto both = run_process({kSkein, "import", trace, second});
  CHECK(both.exit_code == 0);
  CHECK(skein::test::file_exists(trace + ".skein.db"));
  CHECK(skein::test::file_exists(second + ".skein.db"));

  // Standard input, with -o.
  const auto in = run_process({kSkein, "import", "-", "-o", dir.file("in.db")}, kTrace);
  CHECK(in.exit_code == 0);
  CHECK_THAT(in.out, Catch::StartsWith("<stdin> -> " + dir.file("in.db") + ": 3 records"));
}

TEST_CASE("skein import: usage errors and unreadable input exit 2") {
  TempDir dir;
  CHECK(run_process({kSkein, "import"}).exit_code == 2);
  CHECK(run_process({kSkein, "import", "a", "b", "-o", "x.db"}).exit_code == 2);
  CHECK(run_process({kSkein, "import", "-"}).exit_code == 2);
  const auto help = run_process({kSkein, "import", "--help"});
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out,
             Catch::StartsWith("Usage: skein import [options] TRACE...") && Catch::Contains("--strict"));
  const auto missing = run_process({kSkein, "import", dir.file("no.sexp"), "-o", dir.file("no.db")});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == dir.file("no.sexp") + ": cannot open: No such file or directory\n");
  const auto unwritable = run_process({kSkein, "import", "-", "-o", dir.file("no/such/dir.db")}, kTrace);
  CHECK(unwritable.exit_code == 2);
  CHECK_THAT(unwritable.err, Catch::Contains("cannot create the database"));
}

TEST_CASE("skein import: errors in the trace exit 1 with FILE:LINE:COL, and leave no database") {
  TempDir dir;
  const std::string trace = dir.file("bad.sexp");
  skein::test::write_file(trace, "(skein-trace 1)\n(spawn 10 1 0 task)\n(resolve 20 1 x ok)\n");
  const auto r = run_process({kSkein, "import", trace, "-o", dir.file("bad.db")});
  CHECK(r.exit_code == 1);
  CHECK(r.err == trace + ":3:15: expected an integer thread id after 'resolve'\n");
  CHECK(r.out.empty());
  CHECK(dir.entries() == std::vector<std::string>{"bad.sexp"});
}

TEST_CASE("skein import: warnings are printed, and --strict makes them errors") {
  TempDir dir;
  const std::string trace = dir.file("w.sexp");
  skein::test::write_file(trace, "(skein-trace 1)\n(read 10 3 0)\n");
  const auto lenient = run_process({kSkein, "import", trace, "-o", dir.file("w.db")});
  CHECK(lenient.exit_code == 0);
  CHECK(lenient.err ==
        trace + ":2: warning: event 1: thread 3 is named before any spawn created it: created implicitly\n");
  CHECK_THAT(lenient.out, Catch::Contains("1 warning"));
  const auto strict = run_process({kSkein, "import", "--strict", trace, "-o", dir.file("s.db")});
  CHECK(strict.exit_code == 1);
  CHECK_THAT(strict.err, Catch::EndsWith("created implicitly (--strict)\n"));
  CHECK_FALSE(skein::test::file_exists(dir.file("s.db")));
}

TEST_CASE("skein import: killed at random points, leaves the old database or a complete new one") {
  TempDir dir;
  const std::string big = dir.file("big.sexp");
  write_generated(big, 400'000);
  const std::string target = dir.file("target.db");
  skein::test::write_file(dir.file("old.sexp"), kTrace);
  REQUIRE(run_process({kSkein, "import", dir.file("old.sexp"), "-o", target}).exit_code == 0);
  const std::string expected_new =
      std::to_string(skein::samples::synthetic_trace([] {
                       skein::samples::SyntheticOptions o;
                       o.records = 400'000;
                       return o;
                     }())
                         .size()) +
      "\n";

  // The points are where the import has got to, not when: how far the
  // temporary database has grown, as a share of the size a whole import
  // writes, or the new database renamed into place (a share above 1).
  REQUIRE(run_process({kSkein, "import", big, "-o", dir.file("sizing.db")}).exit_code == 0);
  const std::uint64_t whole = file_size(dir.file("sizing.db"));
  REQUIRE(whole > 0);
  std::remove(dir.file("sizing.db").c_str());

  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> share(0.0, 1.0);
  int old_seen = 0, new_seen = 0;
  for (int round = 0; round < 12; ++round) {
    // Round 0 kills as soon as the temporary file exists, round 1 once the
    // rename is done; the others at random shares of the way.
    const double at = round == 0 ? 0.0 : round == 1 ? 2.0 : share(rng);
    const std::uint64_t old_inode = inode(target);
    const pid_t child = start({kSkein, "import", big, "-o", target});
    REQUIRE(child > 0);
    const std::string temporary = target + ".tmp-" + std::to_string(child);
    const auto reached = [&] {
      if (at > 1.0) return inode(target) != old_inode;
      const std::uint64_t size = file_exists_with_size(temporary);
      return size != kMissing && static_cast<double>(size) >= at * static_cast<double>(whole);
    };
    // Polls the condition itself, with a deadline; an import that ends
    // first (it renamed before the share was reached) is killed all the same.
    bool exited = false;
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!reached() && std::chrono::steady_clock::now() < deadline) {
      if (waitpid(child, &status, WNOHANG) == child) {
        exited = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    INFO("round " << round << ", killed at " << at << " of the way (of " << whole << " bytes)");
    REQUIRE((exited || reached()));
    if (!exited) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
    }
    REQUIRE(skein::test::file_exists(target));
    CHECK(query(target, "PRAGMA integrity_check") == "ok\n");
    CHECK(query(target, "PRAGMA user_version") == std::to_string(skein::kStoreSchemaVersion) + "\n");
    const std::string records = query(target, "SELECT value FROM meta WHERE key = 'records'");
    CHECK((records == "3\n" || records == expected_new));
    CHECK(query(target, "SELECT count(*) FROM events") == records);
    if (round == 0) CHECK(records == "3\n");
    if (round == 1) CHECK(records == expected_new);
    (records == "3\n" ? old_seen : new_seen) += 1;
    // The next round starts from the old database again.
    if (records != "3\n")
      REQUIRE(run_process({kSkein, "import", dir.file("old.sexp"), "-o", target}).exit_code == 0);
  }
  WARN("kills before the rename: " << old_seen << ", after: " << new_seen);
  CHECK(old_seen > 0);
  CHECK(new_seen > 0);

  // Leftovers of killed imports go at the next import to the target.
  REQUIRE(run_process({kSkein, "import", dir.file("old.sexp"), "-o", target}).exit_code == 0);
  CHECK(temporaries(dir).empty());
}

TEST_CASE("skein import: SIGINT removes the temporary file and keeps the old database") {
  TempDir dir;
  const std::string big = dir.file("big.sexp");
  write_generated(big, 400'000);
  const std::string target = dir.file("target.db");
  skein::test::write_file(dir.file("old.sexp"), kTrace);
  REQUIRE(run_process({kSkein, "import", dir.file("old.sexp"), "-o", target}).exit_code == 0);

  const pid_t child = start({kSkein, "import", big, "-o", target});
  REQUIRE(child > 0);
  // Wait until the import has started writing, then interrupt it.
  for (int i = 0; i < 2000 && temporaries(dir).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE_FALSE(temporaries(dir).empty());
  kill(child, SIGINT);
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK(temporaries(dir).empty());
  CHECK(query(target, "SELECT value FROM meta WHERE key = 'records'") == "3\n");
}

// A database path past SQLite's limit (504 bytes once made absolute) is
// refused by name, with its length and the limit, and nothing is created;
// a trace that deep is read all the same, through a cache in
// XDG_CACHE_HOME, not beside it.
TEST_CASE("skein import and info: database paths past SQLite's limit are refused by name or cached in XDG_CACHE_HOME") {
  TempDir dir;
  std::string folder = dir.path();
  while (folder.size() < 490) {
    folder += "/" + std::string(std::min<std::size_t>(200, 490 - folder.size() - 1), 'd');
    REQUIRE(mkdir(folder.c_str(), 0755) == 0);
  }
  const std::string trace = folder + "/t.sexp";
  skein::test::write_file(trace, kTrace);
  // The cache beside the trace is itself past the limit, whatever the
  // length of the process id in its temporary name.
  REQUIRE((trace + ".skein.db").size() > 504);
  const std::string db = folder + "/" + std::string(30, 'x') + ".db";
  REQUIRE(db.size() > 504);

  const auto refused = run_process({kSkein, "import", trace, "-o", db});
  CHECK(refused.exit_code == 2);
  CHECK(refused.err == db + ": is " + std::to_string(db.size()) + " bytes once made absolute, past the 504 bytes SQLite opens a database at "
                            "(its path limit, 512 bytes, less 8 for the -journal beside it): choose a shorter path\n");
  CHECK_FALSE(skein::test::file_exists(db));

  const std::string xdg = dir.file("xdg");
  const auto info = run_process({kSkein, "info", trace}, {}, {"XDG_CACHE_HOME=" + xdg});
  INFO(info.err);
  CHECK(info.exit_code == 0);
  CHECK_THAT(info.out, Catch::Contains("  database     " + xdg + "/skein/t.sexp-") &&
                           Catch::Contains(".skein.db (imported now)\n"));
  CHECK_FALSE(skein::test::file_exists(trace + ".skein.db"));
}
