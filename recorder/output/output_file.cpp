// output_file.cpp — one lstat picks the row of the header's table. A device
// or FIFO is opened O_NOFOLLOW and its fstat must match the lstat's device
// and inode; a link to the file standard output or error already writes is
// served by a dup of that descriptor (keeping its offset and O_APPEND), any
// other linked file is opened with O_TRUNC. A database's commit runs in
// order: sync the temporary file, take the DatabaseReplacement lock, remove
// the stale journals, rename; the lock is dropped only after the rename.
#include "recorder/output/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>
#include <utility>

#include "recorder/output/database_replacement.hpp"

namespace skein {
namespace {

std::string kind_of(const OutputNode& node) { return std::string(describe_output_node(node.kind)); }

// Opens the device or FIFO that `checked` describes, and only it: the final
// component is not followed, and what was opened must be the node lstat saw.
Result<int> open_node_itself(const std::string& target, const OutputNode& checked) {
  const int fd = open(target.c_str(), O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return file_error(target, "cannot open " + kind_of(checked) + " to write: " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || st.st_dev != checked.device || st.st_ino != checked.inode) {
    close(fd);
    return file_error(target, "changed while it was being opened; left as it is");
  }
  return fd;
}

// Opens what a symbolic link points to. When that is the file this
// process's standard output or error already writes (-o /dev/stdout with
// stdout redirected to a file), that descriptor is used, at its offset and
// with its O_APPEND, so that the command's earlier output is neither
// truncated nor overwritten; any other regular file is truncated first.
Result<int> open_through_link(const std::string& target) {
  struct stat pointed {};
  if (stat(target.c_str(), &pointed) == 0 && S_ISREG(pointed.st_mode)) {
    for (const int standard : {STDOUT_FILENO, STDERR_FILENO}) {
      struct stat st {};
      if (fstat(standard, &st) == 0 && st.st_dev == pointed.st_dev && st.st_ino == pointed.st_ino) {
        const int fd = fcntl(standard, F_DUPFD_CLOEXEC, 3);
        if (fd < 0) return file_error(target, std::string("cannot duplicate the descriptor: ") + std::strerror(errno));
        return fd;
      }
    }
  }
  const int fd = open(target.c_str(), O_WRONLY | O_NOCTTY | O_TRUNC | O_CLOEXEC);
  if (fd < 0)
    return file_error(target, std::string("is a symbolic link, and what it points to cannot be opened to write: ") +
                                  std::strerror(errno));
  return fd;
}

}  // namespace

OutputFile::OutputFile(OutputContent content, OutputWriting writing, std::string target, OutputNode checked)
    : content_(content), writing_(writing), target_(std::move(target)), checked_(checked) {}

Result<OutputFile> OutputFile::open_stream(const std::string& target) {
  if (target == "-") {
    OutputFile out(OutputContent::stream, OutputWriting::write_through, target, OutputNode{});
    out.fd_ = STDOUT_FILENO;
    out.owns_fd_ = false;
    return out;
  }
  auto inspected = inspect_output_node(target);
  if (!inspected) return inspected.error();
  const OutputNode node = inspected.value();
  switch (node.kind) {
    case OutputNodeKind::absent:
    case OutputNodeKind::regular_file: {
      auto pending = PendingFile::create(target, node);
      if (!pending) return pending.error();
      OutputFile out(OutputContent::stream, OutputWriting::replace, target, node);
      out.pending_.emplace(std::move(pending).value());
      return out;
    }
    case OutputNodeKind::character_device:
    case OutputNodeKind::block_device:
    case OutputNodeKind::fifo: {
      auto fd = open_node_itself(target, node);
      if (!fd) return fd.error();
      OutputFile out(OutputContent::stream, OutputWriting::write_through, target, node);
      out.fd_ = fd.value();
      return out;
    }
    case OutputNodeKind::symbolic_link: {
      auto fd = open_through_link(target);
      if (!fd) return fd.error();
      OutputFile out(OutputContent::stream, OutputWriting::write_through, target, node);
      out.fd_ = fd.value();
      return out;
    }
    case OutputNodeKind::directory:
    case OutputNodeKind::socket:
    case OutputNodeKind::unknown: break;
  }
  return file_error(target, "is " + kind_of(node) + ", which cannot be written as an output file");
}

Result<OutputFile> OutputFile::open_database(const std::string& target) {
  auto inspected = inspect_output_node(target);
  if (!inspected) return inspected.error();
  const OutputNode node = inspected.value();
  if (node.kind != OutputNodeKind::absent && node.kind != OutputNodeKind::regular_file)
    return file_error(target, "is " + kind_of(node) + ", not a database file");
  auto pending = PendingFile::create(target, node);
  if (!pending) {
    Diagnostic d = pending.error();
    d.message = "cannot create the database: " + d.message;
    return d;
  }
  // SQLite opens the temporary file by its name; this descriptor only made it.
  if (const int fd = pending.value().take_descriptor(); fd >= 0) close(fd);
  OutputFile out(OutputContent::database, OutputWriting::replace, target, node);
  out.pending_.emplace(std::move(pending).value());
  return out;
}

OutputFile::OutputFile(OutputFile&& other) noexcept
    : content_(other.content_),
      writing_(other.writing_),
      target_(std::move(other.target_)),
      checked_(other.checked_),
      pending_(std::move(other.pending_)),
      fd_(std::exchange(other.fd_, -1)),
      owns_fd_(other.owns_fd_) {
  other.pending_.reset();
}

OutputFile& OutputFile::operator=(OutputFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0 && owns_fd_) close(fd_);
    content_ = other.content_;
    writing_ = other.writing_;
    target_ = std::move(other.target_);
    checked_ = other.checked_;
    pending_ = std::move(other.pending_);
    other.pending_.reset();
    fd_ = std::exchange(other.fd_, -1);
    owns_fd_ = other.owns_fd_;
  }
  return *this;
}

OutputFile::~OutputFile() {
  if (fd_ >= 0 && owns_fd_) close(fd_);
}

const std::string& OutputFile::database_path() const {
  assert(content_ == OutputContent::database && pending_);
  return pending_->temp_path();
}

Result<std::unique_ptr<ByteSink>> OutputFile::take_sink(Compression compression) {
  assert(content_ == OutputContent::stream);
  const std::string name = target_ == "-" ? "<stdout>" : target_;
  int fd = -1;
  bool owned = true;
  if (pending_) {
    fd = pending_->take_descriptor();
  } else {
    fd = std::exchange(fd_, -1);
    owned = owns_fd_;
  }
  if (fd < 0) return file_error(name, "the output was already taken");
  std::unique_ptr<ByteSink> sink = descriptor_output(fd, owned, name);
  const bool gzip = compression == Compression::gzip ||
                    (compression == Compression::by_name && target_.size() > 3 && target_.ends_with(".gz"));
  if (gzip) sink = gzip_output(std::move(sink), name);
  return sink;
}

Status OutputFile::commit(bool sync) {
  if (writing_ == OutputWriting::write_through) return {};
  if (!pending_) return file_error(target_, "the output was already committed");
  if (content_ == OutputContent::stream) return pending_->commit(sync);
  // A database: complete and on disk first, then the old file's journals
  // go (under the lock that keeps SQLite writers off it), then the rename;
  // the lock is released only once the new file is in place.
  if (sync)
    if (Status s = pending_->sync_contents(); !s.ok()) return s;
  auto replacement = DatabaseReplacement::begin(target_);
  if (!replacement) return replacement.error();
  if (Status s = replacement.value().remove_stale_journals(); !s.ok()) return s;
  return pending_->rename_over_target(sync);
}

}  // namespace skein
