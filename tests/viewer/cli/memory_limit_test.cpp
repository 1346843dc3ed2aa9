// memory_limit_test.cpp — `skein import` holds memory bounded by what the
// command needs, not by the input's size, and running out of memory is a
// clear error that leaves nothing behind. A gzip bomb of counters (millions
// of identical lines, a few hundred KB packed) is made here with zlib and
// imported by the `skein` of this build under `ulimit -v`:
//   - with a limit far below what holding every counter row would take, the
//     import succeeds and stores every counter;
//   - with a limit below what even a bounded import needs, it fails with
//     "out of memory while ...", exit 2, and no temporary file beside the
//     target.
// Label memory_limit: not run under AddressSanitizer, whose shadow memory
// cannot live under an address-space limit (CMakePresets.json leaves the
// label out of the asan test preset).
#include <catch2/catch.hpp>

#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::query;
using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

// Two counters, sampled at one time (times never decrease in a trace, so a
// run of equal times is valid), `pairs` times each: 18 bytes a record that
// deflate packs about 1000 to 1.
constexpr std::uint64_t kPairs = 8 * 1024 * 1024;  // whole blocks of write_counter_bomb

void write_counter_bomb(const std::string& path, std::uint64_t pairs) {
  gzFile out = gzopen(path.c_str(), "wb9");
  REQUIRE(out != nullptr);
  const std::string header = "(skein-trace 1 (process \"bomb\"))\n";
  REQUIRE(gzwrite(out, header.data(), static_cast<unsigned>(header.size())) > 0);
  constexpr std::uint64_t kPairsPerBlock = 16384;
  std::string block;
  for (std::uint64_t i = 0; i < kPairsPerBlock; ++i) block += "(counter 5 \"rx\" 1)\n(counter 5 \"tx\" 2)\n";
  for (std::uint64_t done = 0; done < pairs; done += kPairsPerBlock)
    REQUIRE(gzwrite(out, block.data(), static_cast<unsigned>(block.size())) > 0);
  const std::string end = "(end 6)\n";
  REQUIRE(gzwrite(out, end.data(), static_cast<unsigned>(end.size())) > 0);
  REQUIRE(gzclose(out) == Z_OK);
}

// `skein import TRACE -o DB` under an address-space limit of `megabytes`.
skein::test::ProcessResult import_limited(const std::string& trace, const std::string& db, int megabytes) {
  return run_process({"/bin/sh", "-c", "ulimit -v " + std::to_string(megabytes * 1024) + " && exec \"$0\" \"$@\"",
                      kSkein, "import", trace, "-o", db});
}

}  // namespace

TEST_CASE("bounded memory: a gzip bomb of 16M counters imports under a 400 MB address-space limit") {
  TempDir dir;
  const std::string trace = dir.file("bomb.sexp.gz");
  write_counter_bomb(trace, kPairs);
  // Holding the counters' rows took 46 bytes a record, 770 MB for these
  // 16.8M records; the import's own needs (its code and libraries, the
  // parsing thread's stack and malloc arena, SQLite's 128 MiB page cache,
  // a 32 MiB run of counter rows) take about 330 MB of address space,
  // whatever the trace's size.
  const auto imported = import_limited(trace, dir.file("bomb.db"), 400);
  INFO(imported.err);
  CHECK(imported.signal == 0);
  REQUIRE(imported.exit_code == 0);
  CHECK(query(dir.file("bomb.db"), "SELECT name, count(*), min(value), max(value) FROM counters GROUP BY name") ==
        "rx|" + std::to_string(kPairs) + "|1|1\ntx|" + std::to_string(kPairs) + "|2|2\n");
  CHECK(query(dir.file("bomb.db"), "SELECT value FROM meta WHERE key = 'records'") ==
        std::to_string(2 * kPairs + 1) + "\n");
  CHECK(dir.entries() == std::vector<std::string>{"bomb.db", "bomb.sexp.gz"});
}

TEST_CASE("bounded memory: out of memory in an import is exit 2, 'out of memory while', and no temporary file") {
  TempDir dir;
  const std::string trace = dir.file("bomb.sexp.gz");
  write_counter_bomb(trace, kPairs / 2);
  // Enough to start (the code, the libraries, the parsing thread), too
  // little for SQLite's page cache to fill.
  const auto imported = import_limited(trace, dir.file("bomb.db"), 150);
  INFO(imported.err);
  CHECK(imported.signal == 0);
  CHECK(imported.exit_code == 2);
  CHECK(imported.err.find("out of memory while importing") != std::string::npos);
  CHECK(dir.entries() == std::vector<std::string>{"bomb.sexp.gz"});
}
