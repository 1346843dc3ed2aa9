// byte_stream_test.cpp — files, gzip detection by content, concatenated
// gzip members, corrupt compressed data, and file errors.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tests/support/record_text.hpp"

using namespace skein;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char templ[] = "/tmp/skein-test-XXXXXX";
    REQUIRE(mkdtemp(templ) != nullptr);
    path = templ;
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> read_file_records(const std::string& path) {
  auto reader = TraceReader::open(path);
  REQUIRE(reader.ok());
  std::vector<std::string> out;
  while (reader.value().next() == TraceReader::Step::record) out.push_back(format_record(reader.value().record()));
  return out;
}

}  // namespace

TEST_CASE("a .gz trace round-trips and is detected by content, not by name") {
  TempDir dir;
  const std::string gz = dir.path + "/trace.sexp.gz";
  {
    auto writer = TraceWriter::create(gz);
    REQUIRE(writer.ok());
    writer.value().write_header(TraceHeader{});
    for (int i = 0; i < 50000; ++i) writer.value().write(ReadRecord{i, i % 7, i % 13});
    writer.value().write(EndRecord{50000});
    REQUIRE(writer.value().finish().ok());
  }
  const std::string bytes = slurp(gz);
  REQUIRE(bytes.size() > 2);
  CHECK(static_cast<unsigned char>(bytes[0]) == 0x1f);
  CHECK(static_cast<unsigned char>(bytes[1]) == 0x8b);
  // Compression works: far fewer bytes than the same records as text.
  std::string plain;
  {
    TraceWriter writer(string_output(plain));
    writer.write_header(TraceHeader{});
    for (int i = 0; i < 50000; ++i) writer.write(ReadRecord{i, i % 7, i % 13});
    writer.write(EndRecord{50000});
    REQUIRE(writer.finish().ok());
  }
  CHECK(bytes.size() * 3 < plain.size());

  // The same bytes under a name without .gz are still read as gzip.
  const std::string renamed = dir.path + "/trace.sexp";
  REQUIRE(std::rename(gz.c_str(), renamed.c_str()) == 0);
  const auto records = read_file_records(renamed);
  REQUIRE(records.size() == 50001);
  CHECK(records[12345] == "(read 12345 4 8)");
  CHECK(records.back() == "(end 50000)");
}

TEST_CASE("concatenated gzip members read as one stream") {
  std::string compressed;
  for (const char* part : {test::kHeaderLine, "(idle 1)\n", "(end 2)\n"}) {
    auto sink = gzip_output(string_output(compressed), "x");
    REQUIRE(sink->write(part).ok());
    REQUIRE(sink->close().ok());
  }
  const auto result = test::read_all(compressed);
  CHECK(result.errors.empty());
  CHECK_FALSE(result.truncated);
  CHECK(result.records == std::vector<std::string>{"(idle 1)", "(end 2)"});
}

TEST_CASE("corrupt gzip data is an error naming the compressed offset") {
  std::string compressed;
  {
    auto sink = gzip_output(string_output(compressed), "x");
    std::string text = test::kHeaderLine;
    for (int i = 0; i < 1000; ++i) text += "(idle " + std::to_string(i) + ")\n";
    REQUIRE(sink->write(text).ok());
    REQUIRE(sink->close().ok());
  }
  for (std::size_t i = 20; i < 40; ++i) compressed[i] = static_cast<char>(compressed[i] ^ 0x5a);
  const auto result = test::read_all(compressed, "bad.gz");
  REQUIRE(result.errors.size() == 1);
  CHECK_THAT(result.errors[0], Catch::StartsWith("bad.gz: corrupt gzip data near compressed byte "));
}

TEST_CASE("a missing file is a clear error") {
  auto reader = TraceReader::open("/nonexistent/dir/trace.sexp");
  REQUIRE_FALSE(reader.ok());
  CHECK(reader.error().to_string() == "/nonexistent/dir/trace.sexp: cannot open: No such file or directory");
}

TEST_CASE("a write error is kept and reported by finish") {
  auto writer = TraceWriter::create("/dev/full");
  REQUIRE(writer.ok());
  writer.value().write_header(TraceHeader{});
  for (int i = 0; i < 100000; ++i) writer.value().write(IdleRecord{i});
  const Status status = writer.value().finish();
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().to_string() == "/dev/full: write failed: No space left on device");
}

TEST_CASE("standard input is read with '-'") {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const std::string text = std::string(test::kHeaderLine) + "(idle 3)\n(end 4)\n";
  REQUIRE(write(fds[1], text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fds[1]);
  const int saved = dup(STDIN_FILENO);
  REQUIRE(dup2(fds[0], STDIN_FILENO) == STDIN_FILENO);
  close(fds[0]);
  auto reader = TraceReader::open("-");
  REQUIRE(reader.ok());
  CHECK(reader.value().name() == "<stdin>");
  std::vector<std::string> records;
  while (reader.value().next() == TraceReader::Step::record) records.push_back(format_record(reader.value().record()));
  dup2(saved, STDIN_FILENO);
  close(saved);
  CHECK(records == std::vector<std::string>{"(idle 3)", "(end 4)"});
}
