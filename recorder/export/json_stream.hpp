// json_stream.hpp — JSON text written as it is produced, for exports too big
// to hold as a document (a Chrome trace of a million records is several
// hundred megabytes; QJsonDocument would need many times that in memory).
//
// The caller writes the punctuation itself (raw()); the stream supplies the
// parts that are easy to get wrong:
//   - string(): any bytes as one valid JSON string, by the JSON rules of
//     output_escape.hpp: `"` and `\` escaped, control characters as \u00XX,
//     and bytes that are not valid UTF-8 (the trace format carries byte
//     strings) replaced by U+FFFD, so the output is always valid UTF-8;
//   - integer(): a signed 64-bit integer in decimal;
//   - microseconds(): integer nanoseconds as exact decimal microseconds
//     (1234567 ns -> 1234.567), never through a double, so two times that
//     are equal in ns are equal as text and as parsed numbers.
// Bytes are buffered and handed to the ByteSink in chunks of about 1 MiB;
// the first write error is kept and reported by finish().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "recorder/format/byte_sink.hpp"
#include "recorder/format/diagnostic.hpp"
#include "recorder/export/output_escape.hpp"

namespace skein {

class JsonStream {
 public:
  explicit JsonStream(std::unique_ptr<ByteSink> sink);

  void raw(std::string_view text) {
    buffer_.append(text);
    maybe_flush();
  }
  void string(std::string_view bytes);
  void integer(std::int64_t value);
  void microseconds(std::int64_t ns);

  // Flushes and closes the sink; the first error met, if any.
  [[nodiscard]] Status finish();

 private:
  void maybe_flush() {
    if (buffer_.size() >= kChunk) flush();
  }
  void flush();

  static constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::unique_ptr<ByteSink> sink_;
  std::string buffer_;
  Status status_;
};

}  // namespace skein
