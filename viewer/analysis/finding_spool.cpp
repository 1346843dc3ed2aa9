// finding_spool.cpp — a finding's encoding, in order:
//   rule, severity        one byte each
//   time, thread          zigzag varints
//   flags                 one byte: from, suspect, event, group (interned),
//                         group (whole), related, gap, sentence (whole)
//   from, suspect, event  zigzag varints, those the flags say are present
//   group                 interned: its index; whole: length and bytes
//   related               count, then each id, zigzag
//   gap                   zigzag
//   sentence              interned template: its index, a byte saying which
//                         of the kMessageArguments numbers are present, and
//                         those numbers, zigzag; whole: length and bytes.
// Interned strings are numbered in order of first use, and the table that
// reads them back is the writer's own, in memory.
#include "viewer/analysis/finding_spool.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "recorder/store/varint.hpp"
#include "viewer/analysis/finding_message_template.hpp"

namespace skein {
namespace {

enum Flag : std::uint8_t {
  kFrom = 1,
  kSuspect = 2,
  kEvent = 4,
  kGroupInterned = 8,
  kGroupWhole = 16,
  kRelated = 32,
  kGap = 64,
  kSentenceWhole = 128,
};

void put_signed(std::string& out, std::int64_t v) { put_varint(out, zigzag(v)); }

void put_bytes(std::string& out, std::string_view s) {
  put_varint(out, s.size());
  out.append(s);
}

// The unnamed file a spool spills to, in $TMPDIR or /tmp; -1 when none can
// be made.
int open_unnamed_file() {
  const char* env = std::getenv("TMPDIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : "/tmp";
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::string name = dir + "/skein-findings-XXXXXX";
  const int made = ::mkostemp(name.data(), O_CLOEXEC);
  if (made < 0) return -1;
  ::unlink(name.c_str());
  return made;
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool read_all_at(int fd, char* data, std::size_t size, std::uint64_t offset) {
  while (size > 0) {
    const ssize_t n = ::pread(fd, data, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;  // the file ends short of what was written
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

// Reads a segment's bytes back, checking every step.
class SegmentReader {
 public:
  explicit SegmentReader(std::string_view bytes) : bytes_(bytes) {}
  [[nodiscard]] bool done() const { return at_ >= bytes_.size(); }
  [[nodiscard]] std::size_t at() const { return at_; }
  bool byte(std::uint8_t& out) {
    if (at_ >= bytes_.size()) return false;
    out = static_cast<std::uint8_t>(bytes_[at_++]);
    return true;
  }
  bool unsigned_value(std::uint64_t& out) { return read_varint(bytes_, at_, out) == VarintRead::ok; }
  bool signed_value(std::int64_t& out) {
    std::uint64_t z = 0;
    if (!unsigned_value(z)) return false;
    out = unzigzag(z);
    return true;
  }
  bool bytes(std::string& out) {
    std::uint64_t n = 0;
    if (!unsigned_value(n) || n > bytes_.size() - at_) return false;
    out.assign(bytes_.substr(at_, static_cast<std::size_t>(n)));
    at_ += static_cast<std::size_t>(n);
    return true;
  }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
};

}  // namespace

FindingSpool::FindingSpool(std::size_t segment_bytes) : segment_bytes_(segment_bytes == 0 ? 1 : segment_bytes) {}

FindingSpool::~FindingSpool() { close_file(); }

FindingSpool::FindingSpool(FindingSpool&& other) noexcept
    : segment_bytes_(other.segment_bytes_),
      buffer_(std::move(other.buffer_)),
      fd_(std::exchange(other.fd_, -1)),
      file_failed_(other.file_failed_),
      file_bytes_(std::exchange(other.file_bytes_, 0)),
      kept_(std::move(other.kept_)),
      count_(std::exchange(other.count_, 0)),
      templates_(std::move(other.templates_)),
      template_ids_(std::move(other.template_ids_)),
      groups_(std::move(other.groups_)),
      group_ids_(std::move(other.group_ids_)) {}

FindingSpool& FindingSpool::operator=(FindingSpool&& other) noexcept {
  if (this == &other) return *this;
  close_file();
  segment_bytes_ = other.segment_bytes_;
  buffer_ = std::move(other.buffer_);
  fd_ = std::exchange(other.fd_, -1);
  file_failed_ = other.file_failed_;
  file_bytes_ = std::exchange(other.file_bytes_, 0);
  kept_ = std::move(other.kept_);
  count_ = std::exchange(other.count_, 0);
  templates_ = std::move(other.templates_);
  template_ids_ = std::move(other.template_ids_);
  groups_ = std::move(other.groups_);
  group_ids_ = std::move(other.group_ids_);
  return *this;
}

void FindingSpool::close_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::size_t FindingSpool::bytes_in_memory() const {
  std::size_t n = buffer_.size();
  for (const std::string& s : kept_) n += s.size();
  return n;
}

void FindingSpool::add(const LintFinding& f) {
  std::string& out = buffer_;
  out.push_back(static_cast<char>(f.rule));
  out.push_back(static_cast<char>(f.severity));
  put_signed(out, f.time);
  put_signed(out, f.thread);
  std::uint8_t flags = 0;
  if (f.from) flags |= kFrom;
  if (f.suspect) flags |= kSuspect;
  if (f.event) flags |= kEvent;
  std::uint32_t group = 0;
  if (!f.group.empty()) {
    const auto it = group_ids_.find(f.group);
    if (it != group_ids_.end()) {
      group = it->second;
      flags |= kGroupInterned;
    } else if (groups_.size() < kSpoolTemplates) {
      group = static_cast<std::uint32_t>(groups_.size());
      groups_.push_back(f.group);
      group_ids_.emplace(f.group, group);
      flags |= kGroupInterned;
    } else {
      flags |= kGroupWhole;
    }
  }
  if (!f.related.empty()) flags |= kRelated;
  if (f.gap != 0) flags |= kGap;
  MessageTemplate sentence = split_message(f.message);
  std::uint32_t sentence_id = 0;
  if (const auto it = template_ids_.find(sentence.text); it != template_ids_.end()) {
    sentence_id = it->second;
  } else if (templates_.size() < kSpoolTemplates) {
    sentence_id = static_cast<std::uint32_t>(templates_.size());
    template_ids_.emplace(sentence.text, sentence_id);
    templates_.push_back(std::move(sentence.text));
  } else {
    flags |= kSentenceWhole;
  }
  out.push_back(static_cast<char>(flags));
  if (f.from) put_signed(out, *f.from);
  if (f.suspect) put_signed(out, *f.suspect);
  if (f.event) put_signed(out, *f.event);
  if ((flags & kGroupInterned) != 0) put_varint(out, group);
  if ((flags & kGroupWhole) != 0) put_bytes(out, f.group);
  if ((flags & kRelated) != 0) {
    put_varint(out, f.related.size());
    for (const ThreadId t : f.related) put_signed(out, t);
  }
  if ((flags & kGap) != 0) put_signed(out, f.gap);
  if ((flags & kSentenceWhole) != 0) {
    put_bytes(out, f.message);
  } else {
    put_varint(out, sentence_id);
    std::uint8_t present = 0;
    for (std::size_t a = 0; a < kMessageArguments; ++a)
      if (sentence.arguments[a]) present |= static_cast<std::uint8_t>(1u << a);
    out.push_back(static_cast<char>(present));
    for (std::size_t a = 0; a < kMessageArguments; ++a)
      if (sentence.arguments[a]) put_signed(out, *sentence.arguments[a]);
  }
  ++count_;
  if (buffer_.size() >= segment_bytes_) spill();
}

void FindingSpool::spill() {
  if (buffer_.empty()) return;
  if (!file_failed_ && fd_ < 0) {
    fd_ = open_unnamed_file();
    if (fd_ < 0) file_failed_ = true;
  }
  // A segment goes to the file only while every one before it did, so
  // that the file stays ahead of the segments kept in memory.
  if (!file_failed_ && kept_.empty() && buffer_.size() <= 0xffffffffu) {
    const auto length = static_cast<std::uint32_t>(buffer_.size());
    char head[4];
    std::memcpy(head, &length, sizeof head);
    if (write_all(fd_, head, sizeof head) && write_all(fd_, buffer_.data(), buffer_.size())) {
      file_bytes_ += sizeof head + buffer_.size();
      buffer_.clear();
      return;
    }
    // A short write leaves a segment the reader must not see: the file
    // is cut back to its last whole one, and nothing more goes to it.
    file_failed_ = true;
    if (::ftruncate(fd_, static_cast<off_t>(file_bytes_)) != 0) {
      // The reader stops at file_bytes_ all the same.
    }
  }
  kept_.push_back(std::move(buffer_));
  buffer_.clear();
}

Status FindingSpool::decode_segment(const std::string& segment, std::uint64_t offset,
                                    const std::function<bool(LintFinding&)>& visit, bool& go_on) const {
  SegmentReader in(segment);
  LintFinding f;
  const auto damaged = [&] {
    return file_error("(findings spool)", "a spooled finding does not decode at byte " +
                                              std::to_string(offset + in.at()) + "; the lint's findings are lost");
  };
  while (!in.done()) {
    std::uint8_t rule = 0, severity = 0, flags = 0;
    std::int64_t time = 0, thread = 0;
    if (!in.byte(rule) || rule >= kLintRuleCount || !in.byte(severity) ||
        severity > static_cast<std::uint8_t>(LintSeverity::note) || !in.signed_value(time) ||
        !in.signed_value(thread) || !in.byte(flags))
      return damaged();
    f = LintFinding{};
    f.rule = static_cast<LintRuleId>(rule);
    f.severity = static_cast<LintSeverity>(severity);
    f.time = time;
    f.thread = thread;
    std::int64_t v = 0;
    if ((flags & kFrom) != 0) {
      if (!in.signed_value(v)) return damaged();
      f.from = v;
    }
    if ((flags & kSuspect) != 0) {
      if (!in.signed_value(v)) return damaged();
      f.suspect = v;
    }
    if ((flags & kEvent) != 0) {
      if (!in.signed_value(v)) return damaged();
      f.event = v;
    }
    if ((flags & kGroupInterned) != 0) {
      std::uint64_t g = 0;
      if (!in.unsigned_value(g) || g >= groups_.size()) return damaged();
      f.group = groups_[static_cast<std::size_t>(g)];
    }
    if ((flags & kGroupWhole) != 0 && !in.bytes(f.group)) return damaged();
    if ((flags & kRelated) != 0) {
      std::uint64_t n = 0;
      if (!in.unsigned_value(n) || n > segment.size()) return damaged();
      f.related.reserve(static_cast<std::size_t>(n));
      for (std::uint64_t k = 0; k < n; ++k) {
        if (!in.signed_value(v)) return damaged();
        f.related.push_back(v);
      }
    }
    if ((flags & kGap) != 0 && !in.signed_value(f.gap)) return damaged();
    if ((flags & kSentenceWhole) != 0) {
      if (!in.bytes(f.message)) return damaged();
    } else {
      std::uint64_t id = 0;
      std::uint8_t present = 0;
      if (!in.unsigned_value(id) || id >= templates_.size() || !in.byte(present)) return damaged();
      std::array<std::optional<std::int64_t>, kMessageArguments> arguments{};
      for (std::size_t a = 0; a < kMessageArguments; ++a) {
        if ((present & (1u << a)) == 0) continue;
        if (!in.signed_value(v)) return damaged();
        arguments[a] = v;
      }
      auto sentence = render_message_template(templates_[static_cast<std::size_t>(id)], arguments);
      if (!sentence) return damaged();
      f.message = std::move(*sentence);
    }
    if (!visit(f)) {
      go_on = false;
      return {};
    }
  }
  return {};
}

Status FindingSpool::for_each(const std::function<bool(LintFinding&)>& visit) const {
  bool go_on = true;
  std::string segment;
  for (std::uint64_t at = 0; at < file_bytes_ && go_on;) {
    std::uint32_t length = 0;
    char head[4];
    if (file_bytes_ - at < sizeof head || !read_all_at(fd_, head, sizeof head, at))
      return file_error("(findings spool)", "cannot read the spooled findings back at byte " + std::to_string(at) +
                                                ": " + std::strerror(errno));
    std::memcpy(&length, head, sizeof head);
    at += sizeof head;
    if (length > file_bytes_ - at)
      return file_error("(findings spool)", "a spooled segment at byte " + std::to_string(at) + " is cut short");
    segment.resize(length);
    if (!read_all_at(fd_, segment.data(), length, at))
      return file_error("(findings spool)", "cannot read the spooled findings back at byte " + std::to_string(at) +
                                                ": " + std::strerror(errno));
    if (Status s = decode_segment(segment, at, visit, go_on); !s.ok()) return s;
    at += length;
  }
  for (const std::string& kept : kept_) {
    if (!go_on) break;
    if (Status s = decode_segment(kept, file_bytes_, visit, go_on); !s.ok()) return s;
  }
  if (go_on)
    if (Status s = decode_segment(buffer_, file_bytes_, visit, go_on); !s.ok()) return s;
  return {};
}

}  // namespace skein
