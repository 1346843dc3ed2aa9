// byte_source.cpp — file, memory and gzip sources; see byte_source.hpp.
#include "recorder/format/byte_source.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace skein {
namespace {

class FileSource final : public ByteSource {
 public:
  FileSource(int fd, bool owned, std::string name) : fd_(fd), owned_(owned), name_(std::move(name)) {}
  ~FileSource() override {
    if (owned_) ::close(fd_);
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;

  Result<std::size_t> read(std::span<char> into) override {
    for (;;) {
      const ssize_t n = ::read(fd_, into.data(), into.size());
      if (n >= 0) {
        offset_ += static_cast<std::uint64_t>(n);
        return static_cast<std::size_t>(n);
      }
      if (errno == EINTR) continue;
      return file_error(name_, std::string("read failed: ") + std::strerror(errno));
    }
  }
  std::uint64_t raw_offset() const override { return offset_; }

 private:
  int fd_;
  bool owned_;
  std::string name_;
  std::uint64_t offset_ = 0;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  Result<std::size_t> read(std::span<char> into) override {
    const std::size_t n = std::min(into.size(), bytes_.size() - pos_);
    std::memcpy(into.data(), bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::uint64_t raw_offset() const override { return pos_; }

 private:
  std::string_view bytes_;
  std::size_t pos_ = 0;
};

// Replays bytes already read from `inner` (to look for the gzip magic, or for
// a trace format's first bytes) before reading on.
class PrefixedSource final : public ByteSource {
 public:
  PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> inner)
      : prefix_(std::move(prefix)), inner_(std::move(inner)) {}
  Result<std::size_t> read(std::span<char> into) override {
    if (pos_ < prefix_.size()) {
      const std::size_t n = std::min(into.size(), prefix_.size() - pos_);
      std::memcpy(into.data(), prefix_.data() + pos_, n);
      pos_ += n;
      return n;
    }
    return inner_->read(into);
  }
  // Over a decompressing source the prefix holds decompressed bytes, which
  // raw (compressed) offsets do not count: the offset is inner's.
  std::uint64_t raw_offset() const override {
    if (inner_->decompresses()) return inner_->raw_offset();
    return inner_->raw_offset() - (prefix_.size() - pos_);
  }
  bool decompresses() const override { return inner_->decompresses(); }
  bool cut_short() const override { return inner_->cut_short(); }
  bool corrupt() const override { return inner_->corrupt(); }

 private:
  std::string prefix_;
  std::size_t pos_ = 0;
  std::unique_ptr<ByteSource> inner_;
};

class GzipSource final : public ByteSource {
 public:
  GzipSource(std::unique_ptr<ByteSource> inner, std::string name)
      : inner_(std::move(inner)), name_(std::move(name)), input_(64 * 1024) {
    std::memset(&zs_, 0, sizeof zs_);
    // 15 + 16: gzip wrapper only.
    initialised_ = inflateInit2(&zs_, 15 + 16) == Z_OK;
  }
  ~GzipSource() override {
    if (initialised_) inflateEnd(&zs_);
  }
  GzipSource(const GzipSource&) = delete;
  GzipSource& operator=(const GzipSource&) = delete;

  Result<std::size_t> read(std::span<char> into) override {
    if (!initialised_) return file_error(name_, "cannot initialise zlib");
    if (done_ || into.empty()) return std::size_t{0};
    zs_.next_out = reinterpret_cast<Bytef*>(into.data());
    zs_.avail_out = static_cast<uInt>(std::min<std::size_t>(into.size(), 1u << 30));
    while (zs_.avail_out > 0) {
      if (zs_.avail_in == 0) {
        auto got = inner_->read(input_);
        if (!got) return got.error();
        if (got.value() == 0) {
          // The file ended. Clean only at a member boundary.
          if (in_member_) cut_short_ = true;
          done_ = true;
          break;
        }
        zs_.next_in = reinterpret_cast<Bytef*>(input_.data());
        zs_.avail_in = static_cast<uInt>(got.value());
      }
      in_member_ = true;
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        // Another gzip member may follow (concatenated files).
        inflateReset(&zs_);
        continue;
      }
      if (rc == Z_BUF_ERROR) continue;  // needs more input
      if (rc != Z_OK) {
        corrupt_ = true;
        const std::uint64_t at = inner_->raw_offset() - zs_.avail_in;
        return file_error(name_, "corrupt gzip data near compressed byte " + std::to_string(at) +
                                     ": " + (zs_.msg != nullptr ? zs_.msg : "inflate failed"));
      }
    }
    return into.size() - zs_.avail_out;
  }
  bool cut_short() const override { return cut_short_; }
  std::uint64_t raw_offset() const override { return inner_->raw_offset() - zs_.avail_in; }
  bool decompresses() const override { return true; }
  bool corrupt() const override { return corrupt_; }

 private:
  std::unique_ptr<ByteSource> inner_;
  std::string name_;
  std::vector<char> input_;
  z_stream zs_;
  bool initialised_ = false;
  bool in_member_ = false;
  bool cut_short_ = false;
  bool corrupt_ = false;
  bool done_ = false;
};

// Reads up to two bytes to look for the gzip magic and wraps accordingly.
Result<std::unique_ptr<ByteSource>> detect_compression(std::unique_ptr<ByteSource> raw,
                                                        const std::string& name) {
  std::string prefix;
  char buf[2];
  while (prefix.size() < 2) {
    auto got = raw->read(std::span<char>(buf, 2 - prefix.size()));
    if (!got) return got.error();
    if (got.value() == 0) break;
    prefix.append(buf, got.value());
  }
  const bool gzip = prefix.size() == 2 && static_cast<unsigned char>(prefix[0]) == 0x1f &&
                    static_cast<unsigned char>(prefix[1]) == 0x8b;
  std::unique_ptr<ByteSource> source =
      std::make_unique<PrefixedSource>(std::move(prefix), std::move(raw));
  if (gzip) source = std::make_unique<GzipSource>(std::move(source), name);
  return source;
}

}  // namespace

std::string display_name(const std::string& path) { return path == "-" ? "<stdin>" : path; }

Result<std::unique_ptr<ByteSource>> open_input(const std::string& path) {
  const std::string name = display_name(path);
  std::unique_ptr<ByteSource> raw;
  if (path == "-") {
    raw = std::make_unique<FileSource>(STDIN_FILENO, false, name);
  } else {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return file_error(name, std::string("cannot open: ") + std::strerror(errno));
    raw = std::make_unique<FileSource>(fd, true, name);
  }
  return detect_compression(std::move(raw), name);
}

std::unique_ptr<ByteSource> replay_input(std::string prefix, std::unique_ptr<ByteSource> inner) {
  return std::make_unique<PrefixedSource>(std::move(prefix), std::move(inner));
}

std::unique_ptr<ByteSource> memory_input(std::string_view bytes, std::string name) {
  auto detected = detect_compression(std::make_unique<MemorySource>(bytes), name);
  // Reading memory cannot fail.
  return std::move(detected).value();
}

}  // namespace skein
