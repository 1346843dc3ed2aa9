// reader_memory_test.cpp — the reader's memory does not grow with the file:
// reading a stream of a million records (over 50 MB) from a source that
// generates it on the fly keeps the resident set within a small bound.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <charconv>
#include <cstring>
#include <fstream>

#include "tests/support/record_text.hpp"

using namespace skein;

namespace {

// A source that produces the header, then `records` lines, without holding
// them and without allocating (so that under AddressSanitizer, whose
// quarantine keeps freed memory resident, the only memory that could grow is
// still the reader's).
class GeneratedSource final : public ByteSource {
 public:
  explicit GeneratedSource(std::uint64_t records) : records_(records), pending_(test::kHeaderLine) {}
  Result<std::size_t> read(std::span<char> into) override {
    std::size_t n = 0;
    while (n < into.size()) {
      if (offset_ == pending_.size()) {
        if (made_ == records_) break;
        char* p = line_;
        const auto put = [&p](std::string_view s) {
          std::memcpy(p, s.data(), s.size());
          p += s.size();
        };
        put("(read ");
        p = std::to_chars(p, std::end(line_), made_ * 37).ptr;
        put(" ");
        p = std::to_chars(p, std::end(line_), made_ % 5000).ptr;
        put(" ");
        p = std::to_chars(p, std::end(line_), made_ % 7000).ptr;
        put(") ; padding to make lines longer\n");
        pending_ = std::string_view(line_, static_cast<std::size_t>(p - line_));
        offset_ = 0;
        ++made_;
      }
      const std::size_t take = std::min(into.size() - n, pending_.size() - offset_);
      std::memcpy(into.data() + n, pending_.data() + offset_, take);
      offset_ += take;
      n += take;
    }
    raw_ += n;
    return n;
  }
  std::uint64_t raw_offset() const override { return raw_; }
  std::uint64_t bytes() const { return raw_; }

 private:
  std::uint64_t records_;
  std::uint64_t made_ = 0;
  char line_[128];
  std::string_view pending_;
  std::size_t offset_ = 0;
  std::uint64_t raw_ = 0;
};

std::size_t resident_kib() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) / 1024;
}

}  // namespace

TEST_CASE("reading a 50 MB stream keeps the reader's memory bounded") {
  constexpr std::uint64_t kRecords = 1'000'000;
  auto source = std::make_unique<GeneratedSource>(kRecords);
  GeneratedSource* generated = source.get();
  TraceReader reader(std::move(source), "generated");
  REQUIRE(reader.next() == TraceReader::Step::record);  // warm up: buffers exist now
  const std::size_t before = resident_kib();
  std::uint64_t records = 1;
  std::size_t peak = before;
  while (reader.next() == TraceReader::Step::record) {
    if (++records % 100'000 == 0) peak = std::max(peak, resident_kib());
  }
  CHECK(records == kRecords);
  CHECK(generated->bytes() > 50u * 1024 * 1024);
  // The reader's buffers are at most a few hundred KiB; allow slack for the
  // allocator, far below the 50+ MB that holding the input would take.
  CHECK(peak - before < 4 * 1024);
}
