// exit_status_test.cpp — one exit-status rule for every command that reads
// a trace ("Exit status: 0 success, 1 errors in the TRACE, 2 usage error or
// unreadable file"), on the inputs where the commands used to disagree:
//   - a .gz trace whose compressed data is corrupt is an error in the trace
//     (the file was read; what it holds is wrong): exit 1 from check,
//     import, lint, export, info, summary and render alike, with the same
//     message, whether the damage comes before the trace's format can be
//     told or later in the stream;
//   - a line longer than 1 MiB is reported as FILE:LINE:COL like every
//     other reader error, COL the first byte past the limit;
//   - an empty file, or one in no format Skein reads, is an error in the
//     trace at its first line (exit 1 from every command, as from check).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "recorder/format/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;
const std::vector<std::string> kNoDisplay = {"DISPLAY=", "WAYLAND_DISPLAY=", "QT_QPA_PLATFORM="};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A gzip-compressed generated trace (TraceWriter compresses a .gz path).
std::string write_gzip_trace(const TempDir& dir, const std::string& name) {
  const std::string path = dir.file(name);
  skein::samples::SyntheticOptions options;
  options.records = 20'000;
  auto writer = skein::TraceWriter::create(path);
  REQUIRE(writer.ok());
  writer.value().write_header(skein::samples::synthetic_header(options));
  for (const auto& r : skein::samples::synthetic_trace(options)) writer.value().write(r);
  REQUIRE(writer.value().finish().ok());
  return path;
}

// `bytes` with 12 bytes from `at` overwritten by 0xff: deflate data no
// decoder accepts (or whose check fails).
std::string damaged(std::string bytes, std::size_t at) {
  REQUIRE(at + 12 < bytes.size());
  for (std::size_t i = at; i < at + 12; ++i) bytes[i] = static_cast<char>(0xff);
  return bytes;
}

}  // namespace

TEST_CASE("exit status: a corrupt .gz trace is an error in the trace, exit 1 from every command") {
  TempDir dir;
  const std::string good = slurp(write_gzip_trace(dir, "good.sexp.gz"));
  REQUIRE(good.size() > 1000);
  REQUIRE(static_cast<unsigned char>(good[0]) == 0x1f);
  REQUIRE(static_cast<unsigned char>(good[1]) == 0x8b);
  // Just after the 10-byte gzip header: no byte of the trace can be read,
  // so its format is never known. In the middle: the first records are.
  for (const std::size_t at : {std::size_t{12}, good.size() / 2}) {
    const std::string trace = dir.file("bad-" + std::to_string(at) + ".sexp.gz");
    skein::test::write_file(trace, damaged(good, at));
    const std::vector<std::vector<std::string>> commands = {
        {"check", trace},
        {"import", trace, "-o", dir.file("bad.db")},
        {"lint", trace},
        {"export", trace, "--format", "sexp", "-o", dir.file("bad.sexp")},
        {"info", trace},
        {"summary", trace},
        {"render", trace, "-o", dir.file("bad.png")},
    };
    for (const auto& command : commands) {
      std::vector<std::string> argv = {kSkein};
      argv.insert(argv.end(), command.begin(), command.end());
      const auto r = run_process(argv, {}, kNoDisplay);
      INFO("damage at byte " << at << ": skein " << command.front() << " -> exit " << r.exit_code << ": "
                             << r.err);
      CHECK(r.exit_code == 1);
      CHECK(r.err.find(trace + ": corrupt gzip data near compressed byte ") != std::string::npos);
      CHECK(r.signal == 0);
    }
    // Nothing is left behind: no database, no export, no image, no cache.
    CHECK_FALSE(skein::test::file_exists(dir.file("bad.db")));
    CHECK_FALSE(skein::test::file_exists(dir.file("bad.sexp")));
    CHECK_FALSE(skein::test::file_exists(dir.file("bad.png")));
    CHECK_FALSE(skein::test::file_exists(trace + ".skein.db"));
  }
  // The file that cannot be read at all stays a 2.
  const auto missing = run_process({kSkein, "lint", dir.file("none.sexp.gz")});
  CHECK(missing.exit_code == 2);
}

TEST_CASE("exit status: a line longer than 1 MiB is FILE:LINE:COL, exit 1, in check and import") {
  TempDir dir;
  const std::string trace = dir.file("long.sexp");
  skein::test::write_file(trace, "(skein-trace 1)\n(label 1 1 \"" + std::string(1100 * 1024, 'x') +
                                     "\")\n(spawn 10 1 0 task)\n(end 20)\n");
  const std::string expected = trace + ":2:1048577: line longer than 1 MiB (1048576 bytes)\n";
  const auto check = run_process({kSkein, "check", trace});
  CHECK(check.exit_code == 1);
  CHECK(check.err.find(expected) != std::string::npos);
  const auto import = run_process({kSkein, "import", trace, "-o", dir.file("long.db")});
  CHECK(import.exit_code == 1);
  CHECK(import.err == expected);
}

TEST_CASE("exit status: an empty or unknown file is an error in the trace, exit 1 from every command") {
  TempDir dir;
  struct Input {
    std::string name, bytes, where;  // where: the location every command names
  };
  const std::vector<Input> inputs = {
      {"empty.sexp", "", ":1: "},
      {"blank.sexp", " \n\n", ":1: "},
      {"notes.txt", "hello world\n", ":1:1: "},
      {"binary.bin", std::string("\x7f" "ELF\x02\x01\x01", 7), ":1:1: "},
  };
  for (const Input& in : inputs) {
    const std::string trace = dir.file(in.name);
    skein::test::write_file(trace, in.bytes);
    const std::vector<std::vector<std::string>> commands = {
        {"check", trace},
        {"import", trace, "-o", dir.file("out.db")},
        {"lint", trace},
        {"export", trace, "--format", "chrome", "-o", dir.file("out.json")},
        {"info", trace},
        {"summary", trace},
        {"render", trace, "-o", dir.file("out.png")},
        {"why", trace, "--thread", "1"},
    };
    for (const auto& command : commands) {
      std::vector<std::string> argv = {kSkein};
      argv.insert(argv.end(), command.begin(), command.end());
      const auto r = run_process(argv, {}, kNoDisplay);
      INFO(in.name << ": skein " << command.front() << " -> exit " << r.exit_code << ": " << r.err);
      CHECK(r.exit_code == 1);
      CHECK(r.signal == 0);
      CHECK(r.err.find(trace + in.where) != std::string::npos);
    }
    CHECK_FALSE(skein::test::file_exists(dir.file("out.db")));
    CHECK_FALSE(skein::test::file_exists(dir.file("out.json")));
    CHECK_FALSE(skein::test::file_exists(dir.file("out.png")));
    CHECK_FALSE(skein::test::file_exists(trace + ".skein.db"));
  }
}
