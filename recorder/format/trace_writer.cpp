// trace_writer.cpp — formatting of records; see trace_writer.hpp.
#include "recorder/format/trace_writer.hpp"

#include <cassert>
#include <charconv>
#include <cstring>
#include <utility>

#include "recorder/format/sexp_syntax.hpp"

namespace skein {
namespace {

constexpr std::size_t kBufferBytes = 64 * 1024;
// Room for the fixed part of any record: the head, up to five 20-digit
// integers with spaces, an outcome and the parentheses.
constexpr std::size_t kFixedBytes = 160;

// Appends fields to a line in a buffer that has room for them.
struct LineFormatter {
  char* p;

  void raw(std::string_view s) {
    std::memcpy(p, s.data(), s.size());
    p += s.size();
  }
  void integer(std::int64_t v) {
    *p++ = ' ';
    p = std::to_chars(p, p + 21, v).ptr;
  }
  // Symbols come from code, not from users, so an invalid one is a bug; it is
  // still written as a valid symbol (bad bytes become '_') rather than as a
  // line the reader would reject.
  void symbol(std::string_view s) {
    assert(is_valid_symbol(s));
    *p++ = ' ';
    if (is_valid_symbol(s)) {
      raw(s);
      return;
    }
    if (s.empty() || !sexp::is_symbol_char(s[0]) || (s[0] >= '0' && s[0] <= '9') ||
        s[0] == '-' || s[0] == '+')
      *p++ = '_';
    for (char c : s) *p++ = sexp::is_symbol_char(c) ? c : '_';
  }
  void string(std::string_view s) {
    *p++ = ' ';
    p = sexp::write_quoted(p, s);
  }
};

// An upper bound on the bytes of a record's strings and symbols once written.
template <class R>
std::size_t strings_bound(const R& r) {
  if constexpr (std::is_same_v<R, SiteRecord>)
    return sexp::max_quoted_size(r.file.size()) + sexp::max_quoted_size(r.function.size());
  else if constexpr (std::is_same_v<R, SpawnRecord>) return r.kind.size() + 1;
  else if constexpr (std::is_same_v<R, LabelRecord>) return sexp::max_quoted_size(r.text.size());
  else if constexpr (std::is_same_v<R, NotifyRecord>) return r.reason ? r.reason->size() + 1 : 0;
  else if constexpr (std::is_same_v<R, ResolveRecord>)
    return r.message ? sexp::max_quoted_size(r.message->size()) : 0;
  else if constexpr (std::is_same_v<R, CounterRecord>) return sexp::max_quoted_size(r.name.size());
  else if constexpr (std::is_same_v<R, NoWaiterRecord>) return r.reason.size() + 1;
  else return 0;
}

// Writes the record's line (no newline) at p, which has room for
// kFixedBytes + strings_bound(r); returns one past the last byte.
template <class R>
char* format_into(char* p, const R& r) {
  LineFormatter f{p};
  if constexpr (std::is_same_v<R, SiteRecord>) {
    f.raw("(site");
    f.integer(r.site);
    f.string(r.file);
    f.integer(r.line);
    f.string(r.function);
  } else if constexpr (std::is_same_v<R, SpawnRecord>) {
    f.raw("(spawn");
    f.integer(r.time);
    f.integer(r.child);
    f.integer(r.parent);
    f.symbol(r.kind);
    if (r.site) f.integer(*r.site);
  } else if constexpr (std::is_same_v<R, LabelRecord>) {
    f.raw("(label");
    f.integer(r.time);
    f.integer(r.thread);
    f.string(r.text);
  } else if constexpr (std::is_same_v<R, SwitchRecord>) {
    f.raw("(switch");
    f.integer(r.time);
    f.integer(r.thread);
  } else if constexpr (std::is_same_v<R, WaitRecord>) {
    f.raw("(wait");
    f.integer(r.time);
    f.integer(r.waiter);
    f.integer(r.input);
  } else if constexpr (std::is_same_v<R, ReadRecord>) {
    f.raw("(read");
    f.integer(r.time);
    f.integer(r.reader);
    f.integer(r.input);
  } else if constexpr (std::is_same_v<R, NotifyRecord>) {
    f.raw("(notify");
    f.integer(r.time);
    f.integer(r.sender);
    f.integer(r.receiver);
    if (r.reason) f.symbol(*r.reason);
  } else if constexpr (std::is_same_v<R, ResolveRecord>) {
    f.raw("(resolve");
    f.integer(r.time);
    f.integer(r.thread);
    f.integer(r.by);
    f.symbol(outcome_name(r.outcome));
    if (r.message) f.string(*r.message);
  } else if constexpr (std::is_same_v<R, MergeRecord>) {
    f.raw("(merge");
    f.integer(r.time);
    f.integer(r.thread);
    f.integer(r.into);
  } else if constexpr (std::is_same_v<R, CounterRecord>) {
    f.raw("(counter");
    f.integer(r.time);
    f.string(r.name);
    f.integer(r.value);
  } else if constexpr (std::is_same_v<R, IdleRecord>) {
    f.raw("(idle");
    f.integer(r.time);
  } else if constexpr (std::is_same_v<R, GcRecord>) {
    f.raw("(gc");
    f.integer(r.time);
    f.integer(r.duration);
  } else if constexpr (std::is_same_v<R, LostRecord>) {
    f.raw("(lost");
    f.integer(r.time);
    f.integer(r.count);
  } else if constexpr (std::is_same_v<R, EndRecord>) {
    f.raw("(end");
    f.integer(r.time);
  } else if constexpr (std::is_same_v<R, ReturnRecord>) {
    f.raw("(return");
    f.integer(r.time);
    f.integer(r.thread);
  } else if constexpr (std::is_same_v<R, ShouldResolveRecord>) {
    f.raw("(should-resolve");
    f.integer(r.time);
    f.integer(r.thread);
  } else if constexpr (std::is_same_v<R, SnapshotRecord>) {
    f.raw("(snapshot");
    f.integer(r.time);
  } else if constexpr (std::is_same_v<R, DropRecord>) {
    f.raw("(drop");
    f.integer(r.time);
    f.integer(r.thread);
    f.integer(r.by);
  } else if constexpr (std::is_same_v<R, NoWaiterRecord>) {
    f.raw("(no-waiter");
    f.integer(r.time);
    f.integer(r.sender);
    f.integer(r.object);
    f.symbol(r.reason);
  } else if constexpr (std::is_same_v<R, QueuedRecord>) {
    f.raw("(queued");
    f.integer(r.time);
    f.integer(r.waiter);
    f.integer(r.object);
  }
  *f.p++ = ')';
  return f.p;
}

}  // namespace

TraceWriter::TraceWriter(std::unique_ptr<ByteSink> sink)
    : sink_(std::move(sink)), buffer_(new char[kBufferBytes]), capacity_(kBufferBytes) {}
TraceWriter::~TraceWriter() = default;
TraceWriter::TraceWriter(TraceWriter&& other) noexcept
    : sink_(std::move(other.sink_)),
      buffer_(std::move(other.buffer_)),
      capacity_(std::exchange(other.capacity_, 0)),
      used_(std::exchange(other.used_, 0)),
      bytes_written_(std::exchange(other.bytes_written_, 0)),
      status_(std::move(other.status_)) {}
TraceWriter& TraceWriter::operator=(TraceWriter&& other) noexcept {
  if (this != &other) {
    sink_ = std::move(other.sink_);
    buffer_ = std::move(other.buffer_);
    capacity_ = std::exchange(other.capacity_, 0);
    used_ = std::exchange(other.used_, 0);
    bytes_written_ = std::exchange(other.bytes_written_, 0);
    status_ = std::move(other.status_);
  }
  return *this;
}

Result<TraceWriter> TraceWriter::create(const std::string& path, Compression compression) {
  auto sink = open_output(path, compression);
  if (!sink) return sink.error();
  return TraceWriter(std::move(sink).value());
}

char* TraceWriter::reserve_slow(std::size_t n) {
  {
    // A failed flush keeps the buffer; the bytes are dropped, the error kept.
    (void)flush();
    used_ = 0;
    if (capacity_ < n) grow(n);
  }
  return buffer_.get() + used_;
}

void TraceWriter::grow(std::size_t bytes) {
  std::unique_ptr<char[]> bigger(new char[bytes]);
  if (used_ > 0) std::memcpy(bigger.get(), buffer_.get(), used_);
  buffer_ = std::move(bigger);
  capacity_ = bytes;
}

template <class R>
void TraceWriter::write_one(const R& r) {
  char* p = format_into(reserve(kFixedBytes + strings_bound(r)), r);
  *p++ = '\n';
  commit(p);
}

void TraceWriter::write(const Record& record) {
  std::visit([this](const auto& r) { write_one(r); }, record);
}
void TraceWriter::write(const SiteRecord& r) { write_one(r); }
void TraceWriter::write(const SpawnRecord& r) { write_one(r); }
void TraceWriter::write(const LabelRecord& r) { write_one(r); }
void TraceWriter::write(const SwitchRecord& r) { write_one(r); }
void TraceWriter::write(const WaitRecord& r) { write_one(r); }
void TraceWriter::write(const ReadRecord& r) { write_one(r); }
void TraceWriter::write(const NotifyRecord& r) { write_one(r); }
void TraceWriter::write(const ResolveRecord& r) { write_one(r); }
void TraceWriter::write(const MergeRecord& r) { write_one(r); }
void TraceWriter::write(const CounterRecord& r) { write_one(r); }
void TraceWriter::write(const IdleRecord& r) { write_one(r); }
void TraceWriter::write(const GcRecord& r) { write_one(r); }
void TraceWriter::write(const LostRecord& r) { write_one(r); }
void TraceWriter::write(const EndRecord& r) { write_one(r); }
void TraceWriter::write(const ReturnRecord& r) { write_one(r); }
void TraceWriter::write(const ShouldResolveRecord& r) { write_one(r); }
void TraceWriter::write(const SnapshotRecord& r) { write_one(r); }
void TraceWriter::write(const DropRecord& r) { write_one(r); }
void TraceWriter::write(const NoWaiterRecord& r) { write_one(r); }
void TraceWriter::write(const QueuedRecord& r) { write_one(r); }

void TraceWriter::write_header(const TraceHeader& header) {
  const std::string line = format_header(header) + '\n';
  char* p = reserve(line.size());
  std::memcpy(p, line.data(), line.size());
  commit(p + line.size());
}

void TraceWriter::write_comment(std::string_view text) {
  std::string line = "; ";
  for (char c : text) line += (c == '\n' || c == '\r') ? ' ' : c;
  line += '\n';
  char* p = reserve(line.size());
  std::memcpy(p, line.data(), line.size());
  commit(p + line.size());
}

void TraceWriter::write_line(std::string_view line) {
  char* p = reserve(line.size() + 1);
  std::memcpy(p, line.data(), line.size());
  p[line.size()] = '\n';
  commit(p + line.size() + 1);
}

void TraceWriter::reserve_buffer(std::size_t bytes) {
  if (capacity_ < bytes) grow(bytes);
}

Status TraceWriter::flush() {
  if (used_ > 0 && status_.ok() && sink_ != nullptr) {
    status_ = sink_->write(std::string_view(buffer_.get(), used_));
    bytes_written_ += used_;
  }
  used_ = 0;
  return status_;
}

Status TraceWriter::finish() {
  if (sink_ == nullptr) return status_;
  Status flushed = flush();
  Status closed = sink_->close();
  sink_.reset();
  if (status_.ok() && !closed.ok()) status_ = closed;
  (void)flushed;
  return status_;
}

std::string format_record(const Record& record) {
  return std::visit(
      [](const auto& r) {
        std::string out(kFixedBytes + strings_bound(r), '\0');
        char* end = format_into(out.data(), r);
        out.resize(static_cast<std::size_t>(end - out.data()));
        return out;
      },
      record);
}

std::string format_header(const TraceHeader& header) {
  std::string out = "(skein-trace " + std::to_string(header.version);
  for (const auto& [key, value] : header.options) {
    out += " (";
    out += is_valid_symbol(key) ? key : std::string("invalid-key");
    std::int64_t as_int = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), as_int);
    if (!value.empty() && ec == std::errc{} && end == value.data() + value.size()) {
      out += ' ';
      out += value;
    } else {
      out += ' ';
      sexp::append_quoted(out, value);
    }
    out += ')';
  }
  out += ')';
  return out;
}

}  // namespace skein
