// byte_sink.cpp — descriptor, string and gzip sinks; see byte_sink.hpp.
#include "recorder/format/byte_sink.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace skein {
namespace {

class FileSink final : public ByteSink {
 public:
  FileSink(int fd, bool owned, std::string name) : fd_(fd), owned_(owned), name_(std::move(name)) {}
  ~FileSink() override {
    if (owned_ && fd_ >= 0) ::close(fd_);
  }
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  Status write(std::string_view bytes) override {
    if (!status_.ok()) return status_;
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        status_ = file_error(name_, std::string("write failed: ") + std::strerror(errno));
        return status_;
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return status_;
  }

  Status close() override {
    if (owned_ && fd_ >= 0) {
      if (::close(fd_) != 0 && status_.ok())
        status_ = file_error(name_, std::string("close failed: ") + std::strerror(errno));
      fd_ = -1;
    }
    return status_;
  }

 private:
  int fd_;
  bool owned_;
  std::string name_;
  Status status_;
};

class StringSink final : public ByteSink {
 public:
  explicit StringSink(std::string& into) : into_(into) {}
  Status write(std::string_view bytes) override {
    into_.append(bytes);
    return {};
  }
  Status close() override { return {}; }

 private:
  std::string& into_;
};

class GzipSink final : public ByteSink {
 public:
  GzipSink(std::unique_ptr<ByteSink> inner, std::string name)
      : inner_(std::move(inner)), name_(std::move(name)), out_(128 * 1024) {
    std::memset(&zs_, 0, sizeof zs_);
    // Level 1: traces are written while the program runs, so speed matters
    // more than the last few percent of size. 15 + 16 writes a gzip wrapper.
    if (deflateInit2(&zs_, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      status_ = file_error(name_, "cannot initialise zlib");
    else
      initialised_ = true;
  }
  ~GzipSink() override {
    if (initialised_) deflateEnd(&zs_);
  }
  GzipSink(const GzipSink&) = delete;
  GzipSink& operator=(const GzipSink&) = delete;

  Status write(std::string_view bytes) override {
    if (!status_.ok()) return status_;
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    zs_.avail_in = static_cast<uInt>(bytes.size());
    return pump(Z_NO_FLUSH);
  }

  Status close() override {
    if (status_.ok() && !closed_) {
      zs_.next_in = nullptr;
      zs_.avail_in = 0;
      status_ = pump(Z_FINISH);
      closed_ = true;
      if (status_.ok()) status_ = inner_->close();
    }
    return status_;
  }

 private:
  Status pump(int flush) {
    for (;;) {
      zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
      zs_.avail_out = static_cast<uInt>(out_.size());
      const int rc = deflate(&zs_, flush);
      if (rc == Z_STREAM_ERROR) {
        status_ = file_error(name_, "zlib deflate failed");
        return status_;
      }
      const std::size_t produced = out_.size() - zs_.avail_out;
      if (produced > 0) {
        status_ = inner_->write(std::string_view(out_.data(), produced));
        if (!status_.ok()) return status_;
      }
      if (flush == Z_FINISH ? rc == Z_STREAM_END : (zs_.avail_in == 0 && zs_.avail_out != 0))
        return status_;
    }
  }

  std::unique_ptr<ByteSink> inner_;
  std::string name_;
  std::vector<char> out_;
  z_stream zs_;
  Status status_;
  bool initialised_ = false;
  bool closed_ = false;
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

Result<std::unique_ptr<ByteSink>> open_output(const std::string& path, Compression compression) {
  const std::string name = path == "-" ? "<stdout>" : path;
  std::unique_ptr<ByteSink> sink;
  if (path == "-") {
    sink = descriptor_output(STDOUT_FILENO, false, name);
  } else {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0644);
    if (fd < 0) return file_error(name, std::string("cannot create: ") + std::strerror(errno));
    sink = descriptor_output(fd, true, name);
  }
  const bool gzip = compression == Compression::gzip ||
                    (compression == Compression::by_name && ends_with(path, ".gz"));
  if (gzip) sink = gzip_output(std::move(sink), name);
  return sink;
}

std::unique_ptr<ByteSink> descriptor_output(int fd, bool owned, std::string name) {
  return std::make_unique<FileSink>(fd, owned, std::move(name));
}

std::unique_ptr<ByteSink> string_output(std::string& into) {
  return std::make_unique<StringSink>(into);
}

std::unique_ptr<ByteSink> gzip_output(std::unique_ptr<ByteSink> inner, std::string name) {
  return std::make_unique<GzipSink>(std::move(inner), std::move(name));
}

}  // namespace skein
