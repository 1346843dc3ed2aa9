// byte_source.hpp — where a reader's bytes come from: a file, standard input
// or memory, with gzip decompressed transparently.
//
// Compression is detected from content (the gzip magic 1f 8b), never from
// the file name. Concatenated gzip members are read as one stream. A gzip
// stream that stops before its end is not an error: the bytes decompressed so
// far are delivered and cut_short() turns true, so a trace whose writer died
// is still read up to where it stopped. Corrupt compressed data is an error.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "recorder/format/diagnostic.hpp"

namespace skein {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Fills `into` with up to into.size() bytes and returns how many; 0 means
  // the end of the input.
  [[nodiscard]] virtual Result<std::size_t> read(std::span<char> into) = 0;
  // True when the input ended inside a compressed stream.
  [[nodiscard]] virtual bool cut_short() const { return false; }
  // Bytes consumed from the underlying file so far (compressed bytes for gzip).
  [[nodiscard]] virtual std::uint64_t raw_offset() const = 0;
  // True when the bytes read are decompressed (raw_offset() then counts
  // compressed bytes, not bytes read).
  [[nodiscard]] virtual bool decompresses() const { return false; }
  // True once read() has failed on corrupt compressed data: the file was
  // read, what it holds is wrong (an error in the trace, not an unreadable
  // file).
  [[nodiscard]] virtual bool corrupt() const { return false; }
};

// Opens `path` for reading; "-" is standard input. The name used in messages
// is the path (or "<stdin>").
[[nodiscard]] Result<std::unique_ptr<ByteSource>> open_input(const std::string& path);

// A source over bytes held by the caller (not copied: they must outlive it).
// Gzip in memory is detected too.
[[nodiscard]] std::unique_ptr<ByteSource> memory_input(std::string_view bytes,
                                                        std::string name = "<memory>");

// A source that gives `prefix` (bytes already read from `inner`, to look at
// the start of a stream) before reading on from `inner`. raw_offset() does
// not count the prefix twice.
[[nodiscard]] std::unique_ptr<ByteSource> replay_input(std::string prefix,
                                                        std::unique_ptr<ByteSource> inner);

[[nodiscard]] std::string display_name(const std::string& path);

}  // namespace skein
