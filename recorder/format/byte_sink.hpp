// byte_sink.hpp — where a writer's bytes go: a file (gzip-compressed when its
// name ends in .gz), standard output, an open descriptor, or a string in
// memory.
//
// Writes are buffered by the caller (TraceWriter); a sink sees large chunks.
// The first failure is kept and every later call returns it, so a writer can
// report it once at the end.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "recorder/format/diagnostic.hpp"

namespace skein {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  [[nodiscard]] virtual Status write(std::string_view bytes) = 0;
  // Flushes and closes; after close() the sink takes no more writes.
  [[nodiscard]] virtual Status close() = 0;
};

enum class Compression { none, gzip, by_name };

// Opens `path` for writing in place (creating or truncating it, following
// a symbolic link); "-" is standard output. by_name compresses when the path
// ends in ".gz". For writers that manage their own file (the capture's
// trace files); the commands' `-o` goes through output_file.hpp, which
// decides between a replacement renamed into place and writing through.
[[nodiscard]] Result<std::unique_ptr<ByteSink>> open_output(const std::string& path,
                                                             Compression compression =
                                                                 Compression::by_name);

// A sink over an open descriptor, closed by the sink when `owned`; `name`
// is for messages.
[[nodiscard]] std::unique_ptr<ByteSink> descriptor_output(int fd, bool owned, std::string name);

// A sink that appends to a string owned by the caller.
[[nodiscard]] std::unique_ptr<ByteSink> string_output(std::string& into);

// A sink that gzip-compresses into another sink.
[[nodiscard]] std::unique_ptr<ByteSink> gzip_output(std::unique_ptr<ByteSink> inner,
                                                     std::string name);

}  // namespace skein
