// record_line_parser.cpp — the field-by-field grammar of FORMAT.md; see
// record_line_parser.hpp.
#include "recorder/format/record_line_parser.hpp"

#include <charconv>
#include <cstring>

#include "recorder/format/sexp_syntax.hpp"

namespace skein {
namespace {

// Room for the strings of one record: a site record has two, and strings in
// ignored trailing fields are unescaped into the space after them and
// released at once.
constexpr std::size_t kScratchBytes = 3 * kMaxStringBytes + 64;
constexpr std::size_t kMaxListDepth = 256;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string describe_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7F) return std::string("character '") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xF];
}

std::optional<RecordHead> lookup_head(std::string_view h) {
  switch (h.size()) {
    case 2:
      if (h == "gc") return RecordHead::gc;
      break;
    case 3:
      if (h == "end") return RecordHead::end;
      break;
    case 4:
      if (h == "read") return RecordHead::read;
      if (h == "wait") return RecordHead::wait;
      if (h == "site") return RecordHead::site;
      if (h == "idle") return RecordHead::idle;
      if (h == "lost") return RecordHead::lost;
      if (h == "drop") return RecordHead::drop;
      break;
    case 5:
      if (h == "spawn") return RecordHead::spawn;
      if (h == "label") return RecordHead::label;
      if (h == "merge") return RecordHead::merge;
      break;
    case 6:
      if (h == "switch") return RecordHead::switch_;
      if (h == "notify") return RecordHead::notify;
      if (h == "return") return RecordHead::return_;
      if (h == "queued") return RecordHead::queued;
      break;
    case 8:
      if (h == "snapshot") return RecordHead::snapshot;
      break;
    case 7:
      if (h == "resolve") return RecordHead::resolve;
      if (h == "counter") return RecordHead::counter;
      break;
    case 9:
      if (h == "no-waiter") return RecordHead::no_waiter;
      break;
    case 14:
      if (h == "should-resolve") return RecordHead::should_resolve;
      break;
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace

// A position in one line, with the field readers of the grammar. Each reader
// skips leading blanks, reads one field or records an error and returns
// false.
struct LineCursor {
  RecordLineParser& parser;
  const char* begin;
  const char* p;
  const char* end;
  std::string_view head;

  std::uint32_t column(const char* at) const { return static_cast<std::uint32_t>(at - begin + 1); }

  bool fail(const char* at, std::string message) {
    parser.error_column_ = column(at);
    parser.error_message_ = std::move(message);
    return false;
  }

  bool expected(const char* what) {
    return fail(p, std::string("expected ") + what + " after '" + std::string(head) + "'");
  }

  void skip_space() {
    while (p < end) {
      const char c = *p;
      if (c == ' ' || c == '\t' || c == '\r') ++p;
      else if (c == ';') p = end;
      else break;
    }
  }

  // True when no more fields follow before the closing parenthesis.
  bool at_fields_end() {
    skip_space();
    return p == end || *p == ')';
  }

  bool starts_number() const {
    return p < end && (is_digit(*p) || (*p == '-' && p + 1 < end && is_digit(p[1])));
  }

  bool integer(std::int64_t& out, const char* what) {
    skip_space();
    if (!starts_number()) return expected(what);
    const char* start = p;
    const char* q = p + (*p == '-');
    const char* digits = q;
    std::uint64_t value = 0;
    while (q < end && is_digit(*q)) {
      value = value * 10 + static_cast<std::uint64_t>(*q - '0');
      ++q;
    }
    if (q < end && !sexp::is_delimiter(*q)) return expected(what);
    if (q - digits > 18) {
      // Up to 18 digits cannot overflow; longer numbers take the checked path.
      auto [last, ec] = std::from_chars(start, q, out);
      if (ec == std::errc::result_out_of_range || last != q)
        return fail(start, "integer out of range (signed 64-bit) in '" + std::string(head) + "'");
    } else {
      out = *start == '-' ? -static_cast<std::int64_t>(value) : static_cast<std::int64_t>(value);
    }
    p = q;
    return true;
  }

  bool non_negative(std::int64_t& out, const char* what, const char* name) {
    const char* start = (skip_space(), p);
    if (!integer(out, what)) return false;
    if (out < 0) return fail(start, std::string(name) + " must not be negative");
    return true;
  }

  // A time or a duration: 0 to kMaxTime (FORMAT.md, "Limits").
  bool bounded_time(TimeNs& out, const char* what, const char* name) {
    const char* start = (skip_space(), p);
    if (!non_negative(out, what, name)) return false;
    if (out > kMaxTime)
      return fail(start, std::string(name) + " out of range (0 to " + std::to_string(kMaxTime) + " ns)");
    return true;
  }

  bool time(TimeNs& out) { return bounded_time(out, "an integer time", "time"); }

  bool thread(ThreadId& out) {
    const char* start = (skip_space(), p);
    if (!integer(out, "an integer thread id")) return false;
    if (!is_valid_thread_id(out))
      return fail(start, "thread id -9223372036854775808 is reserved (thread ids are -9223372036854775807 to "
                         "9223372036854775807)");
    return true;
  }

  bool site_id(SiteId& out) {
    const char* start = (skip_space(), p);
    if (!integer(out, "an integer site id")) return false;
    if (out < 0 || out > kMaxSiteId) return fail(start, "site id out of range (0 to 2147483647)");
    return true;
  }

  // A primitive's number (no-waiter, queued): 1 and up.
  bool object(ObjectId& out) {
    const char* start = (skip_space(), p);
    if (!integer(out, "an integer object number")) return false;
    if (out < 1) return fail(start, "object number out of range (1 to 9223372036854775807)");
    return true;
  }

  bool symbol(std::string_view& out, const char* what) {
    skip_space();
    if (p == end || !sexp::is_symbol_char(*p)) return expected(what);
    const char* start = p;
    while (p < end && sexp::is_symbol_char(*p)) ++p;
    if (p < end && !sexp::is_delimiter(*p)) return fail(p, "unexpected " + describe_byte(*p) + " in a symbol");
    out = std::string_view(start, static_cast<std::size_t>(p - start));
    if (!is_valid_symbol(out)) {
      p = start;
      return expected(what);
    }
    return true;
  }

  bool string(std::string_view& out, const char* what) {
    skip_space();
    if (p == end || *p != '"') return expected(what);
    return quoted(out);
  }

  // Reads a quoted string at p (which is '"').
  bool quoted(std::string_view& out) {
    const char* open = p++;
    const char* start = p;
    // Fast path: printable ASCII with no escapes is a view into the line.
    while (p < end) {
      const auto c = static_cast<unsigned char>(*p);
      if (c == '"' || c == '\\' || c < 0x20 || c >= 0x7F) break;
      ++p;
    }
    if (static_cast<std::size_t>(p - start) > kMaxStringBytes)
      return fail(open, "string longer than 65536 bytes");
    if (p < end && *p == '"') {
      out = std::string_view(start, static_cast<std::size_t>(p - start));
      ++p;
      return true;
    }
    // Slow path: unescape into the scratch area, made on first use.
    if (!parser.scratch_) parser.scratch_.reset(new char[kScratchBytes]);
    char* const first = parser.scratch_.get() + parser.scratch_used_;
    char* dst = first;
    const auto room = [&](std::size_t n) {
      return static_cast<std::size_t>(dst - first) + n <= kMaxStringBytes;
    };
    std::memcpy(dst, start, static_cast<std::size_t>(p - start));
    dst += p - start;
    for (;;) {
      if (p == end) return fail(open, "unterminated string");
      const auto c = static_cast<unsigned char>(*p);
      if (c == '"') {
        ++p;
        break;
      }
      if (!room(1)) return fail(open, "string longer than 65536 bytes");
      if (c == '\\') {
        if (p + 1 == end) return fail(open, "unterminated string");
        const char e = p[1];
        switch (e) {
          case '\\': *dst++ = '\\'; p += 2; continue;
          case '"': *dst++ = '"'; p += 2; continue;
          case 'n': *dst++ = '\n'; p += 2; continue;
          case 't': *dst++ = '\t'; p += 2; continue;
          case 'r': *dst++ = '\r'; p += 2; continue;
          case 'x': {
            int value = 0;
            for (int k = 2; k < 4; ++k) {
              const char h = (p + k < end) ? p[k] : '\0';
              int d = -1;
              if (h >= '0' && h <= '9') d = h - '0';
              else if (h >= 'a' && h <= 'f') d = h - 'a' + 10;
              else if (h >= 'A' && h <= 'F') d = h - 'A' + 10;
              if (d < 0) return fail(p, "expected two hex digits after '\\x'");
              value = value * 16 + d;
            }
            *dst++ = static_cast<char>(value);
            p += 4;
            continue;
          }
          default:
            return fail(p, "unknown escape '\\" + std::string(1, e) +
                               "' (use \\\\, \\\", \\n, \\t, \\r or \\xHH)");
        }
      }
      if (c == '\t') {
        *dst++ = '\t';
        ++p;
      } else if (c < 0x20 || c == 0x7F) {
        return fail(p, "control " + describe_byte(*p) + " in a string (write it as \\xHH)");
      } else if (c >= 0x80) {
        const std::size_t n =
            sexp::utf8_sequence_length(std::string_view(p, static_cast<std::size_t>(end - p)));
        if (n == 0) return fail(p, "invalid UTF-8 in a string (write raw bytes as \\xHH)");
        if (!room(n)) return fail(open, "string longer than 65536 bytes");
        std::memcpy(dst, p, n);
        dst += n;
        p += n;
      } else {
        *dst++ = *p++;
      }
    }
    out = std::string_view(first, static_cast<std::size_t>(dst - first));
    parser.scratch_used_ += out.size();
    return true;
  }

  // Skips what is left of a list whose '(' is at `open`: atoms, strings and
  // nested lists, with a depth counter. Leaves p after the matching ')'.
  bool skip_to_close(const char* open, const char* what) {
    std::size_t depth = 0;
    for (;;) {
      skip_space();
      if (p == end) {
        if (depth > 0) return fail(p, "expected ')' to close a nested list");
        return fail(p, "expected ')' to close the " + std::string(what) + " opened at column " +
                           std::to_string(column(open)));
      }
      const char c = *p;
      if (c == ')') {
        ++p;
        if (depth == 0) return true;
        --depth;
      } else if (c == '(') {
        if (++depth > kMaxListDepth) return fail(p, "lists nested deeper than 256");
        ++p;
      } else if (c == '"') {
        const std::size_t mark = parser.scratch_used_;
        std::string_view ignored;
        if (!quoted(ignored)) return false;
        parser.scratch_used_ = mark;
      } else if (sexp::is_symbol_char(c)) {
        while (p < end && sexp::is_symbol_char(*p)) ++p;
        if (p < end && !sexp::is_delimiter(*p)) return fail(p, "unexpected " + describe_byte(*p));
      } else {
        return fail(p, "unexpected " + describe_byte(c));
      }
    }
  }

  // After the last field: the record's ')' (extra fields skipped), then only
  // blanks or a comment.
  bool close_record(const char* open) {
    if (!skip_to_close(open, "record")) return false;
    skip_space();
    if (p != end) return fail(p, "unexpected text after the end of the record");
    return true;
  }

  // Reads '(' and the head symbol.
  bool open_list(const char*& open, const char* not_a_list) {
    if (*p != '(') return fail(p, not_a_list);
    open = p++;
    skip_space();
    const char* start = p;
    while (p < end && sexp::is_symbol_char(*p)) ++p;
    if (p == start || (p < end && !sexp::is_delimiter(*p)) || is_digit(*start))
      return fail(p == start || is_digit(*start) ? start : p, "expected a record head after '('");
    head = std::string_view(start, static_cast<std::size_t>(p - start));
    return true;
  }

  bool record_fields(RecordHead h, Record& out);
};

bool LineCursor::record_fields(RecordHead h, Record& out) {
  switch (h) {
    case RecordHead::site: {
      SiteRecord r;
      if (!site_id(r.site) || !string(r.file, "a file name string") ||
          !non_negative(r.line, "an integer line number", "line") ||
          !string(r.function, "a function name string"))
        return false;
      out = r;
      return true;
    }
    case RecordHead::spawn: {
      SpawnRecord r;
      if (!time(r.time) || !thread(r.child) || !thread(r.parent) ||
          !symbol(r.kind, "a kind symbol"))
        return false;
      if (!at_fields_end()) {
        SiteId site = 0;
        if (!site_id(site)) return false;
        r.site = site;
      }
      out = r;
      return true;
    }
    case RecordHead::label: {
      LabelRecord r;
      if (!time(r.time) || !thread(r.thread) || !string(r.text, "a label string")) return false;
      out = r;
      return true;
    }
    case RecordHead::switch_: {
      SwitchRecord r;
      if (!time(r.time) || !thread(r.thread)) return false;
      out = r;
      return true;
    }
    case RecordHead::wait: {
      WaitRecord r;
      if (!time(r.time) || !thread(r.waiter) || !thread(r.input)) return false;
      out = r;
      return true;
    }
    case RecordHead::read: {
      ReadRecord r;
      if (!time(r.time) || !thread(r.reader) || !thread(r.input)) return false;
      out = r;
      return true;
    }
    case RecordHead::notify: {
      NotifyRecord r;
      if (!time(r.time) || !thread(r.sender) || !thread(r.receiver)) return false;
      if (!at_fields_end()) {
        std::string_view reason;
        if (!symbol(reason, "a reason symbol")) return false;
        r.reason = reason;
      }
      out = r;
      return true;
    }
    case RecordHead::resolve: {
      ResolveRecord r;
      std::string_view outcome;
      if (!time(r.time) || !thread(r.thread) || !thread(r.by)) return false;
      const char* at = (skip_space(), p);
      if (!symbol(outcome, "an outcome (ok, fail or cancel)")) return false;
      const auto parsed = outcome_from_name(outcome);
      if (!parsed) {
        p = at;
        return expected("an outcome (ok, fail or cancel)");
      }
      r.outcome = *parsed;
      if (!at_fields_end()) {
        std::string_view message;
        if (!string(message, "a message string")) return false;
        r.message = message;
      }
      out = r;
      return true;
    }
    case RecordHead::merge: {
      MergeRecord r;
      if (!time(r.time) || !thread(r.thread) || !thread(r.into)) return false;
      out = r;
      return true;
    }
    case RecordHead::counter: {
      CounterRecord r;
      if (!time(r.time) || !string(r.name, "a counter name string") ||
          !integer(r.value, "an integer counter value"))
        return false;
      out = r;
      return true;
    }
    case RecordHead::idle: {
      IdleRecord r;
      if (!time(r.time)) return false;
      out = r;
      return true;
    }
    case RecordHead::gc: {
      GcRecord r;
      if (!time(r.time) || !bounded_time(r.duration, "an integer duration", "duration"))
        return false;
      out = r;
      return true;
    }
    case RecordHead::lost: {
      LostRecord r;
      if (!time(r.time) || !non_negative(r.count, "an integer count", "count")) return false;
      out = r;
      return true;
    }
    case RecordHead::end: {
      EndRecord r;
      if (!time(r.time)) return false;
      out = r;
      return true;
    }
    case RecordHead::return_: {
      ReturnRecord r;
      if (!time(r.time) || !thread(r.thread)) return false;
      out = r;
      return true;
    }
    case RecordHead::should_resolve: {
      ShouldResolveRecord r;
      if (!time(r.time) || !thread(r.thread)) return false;
      out = r;
      return true;
    }
    case RecordHead::snapshot: {
      SnapshotRecord r;
      if (!time(r.time)) return false;
      out = r;
      return true;
    }
    case RecordHead::drop: {
      DropRecord r;
      if (!time(r.time) || !thread(r.thread) || !thread(r.by)) return false;
      out = r;
      return true;
    }
    case RecordHead::no_waiter: {
      NoWaiterRecord r;
      if (!time(r.time) || !thread(r.sender) || !object(r.object) || !symbol(r.reason, "a reason symbol"))
        return false;
      out = r;
      return true;
    }
    case RecordHead::queued: {
      QueuedRecord r;
      if (!time(r.time) || !thread(r.waiter) || !object(r.object)) return false;
      out = r;
      return true;
    }
  }
  return fail(p, "unknown record head");  // unreachable: every head is handled above
}

RecordLineParser::RecordLineParser() = default;
RecordLineParser::~RecordLineParser() = default;
RecordLineParser::RecordLineParser(RecordLineParser&&) noexcept = default;
RecordLineParser& RecordLineParser::operator=(RecordLineParser&&) noexcept = default;

LineKind RecordLineParser::parse_record(std::string_view line, Record& out) {
  scratch_used_ = 0;
  LineCursor c{*this, line.data(), line.data(), line.data() + line.size(), {}};
  c.skip_space();
  if (c.p == c.end) return LineKind::blank;
  const char* open = nullptr;
  if (!c.open_list(open, "expected '(' to start a record")) return LineKind::error;
  if (c.head == "skein-trace") return LineKind::header;
  const auto head = lookup_head(c.head);
  if (!head) {
    unknown_head_ = c.head;
    return c.close_record(open) ? LineKind::unknown_head : LineKind::error;
  }
  if (!c.record_fields(*head, out)) return LineKind::error;
  return c.close_record(open) ? LineKind::record : LineKind::error;
}

LineKind RecordLineParser::parse_header(std::string_view line, TraceHeader& out) {
  scratch_used_ = 0;
  LineCursor c{*this, line.data(), line.data(), line.data() + line.size(), {}};
  static constexpr const char* kExpected = "expected the header '(skein-trace 1 ...)'";
  c.skip_space();
  if (c.p == c.end) return LineKind::blank;
  const char* open = nullptr;
  if (*c.p != '(') return c.fail(c.p, kExpected), LineKind::error;
  const char* head_at = c.p + 1;
  if (!c.open_list(open, kExpected) || c.head != "skein-trace")
    return c.fail(head_at, kExpected), LineKind::error;
  const char* version_at = (c.skip_space(), c.p);
  std::int64_t version = 0;
  if (!c.integer(version, "the format version")) return LineKind::error;
  if (version != kFormatVersion) {
    c.fail(version_at, "unsupported format version " + std::to_string(version) +
                           " (this reader reads version 1)");
    return LineKind::error;
  }
  out = TraceHeader{};
  out.version = static_cast<int>(version);
  for (;;) {
    c.skip_space();
    if (c.p == c.end) {
      c.fail(c.p, "expected ')' to close the header opened at column " +
                      std::to_string(c.column(open)));
      return LineKind::error;
    }
    if (*c.p == ')') {
      ++c.p;
      break;
    }
    if (*c.p != '(') {
      c.fail(c.p, "expected an option '(KEY VALUE)' in the header");
      return LineKind::error;
    }
    const char* option_open = c.p++;
    std::string_view key;
    if (!c.symbol(key, "an option name")) return LineKind::error;
    std::string value;
    c.skip_space();
    if (c.p < c.end && *c.p == '"') {
      std::string_view text;
      if (!c.quoted(text)) return LineKind::error;
      value.assign(text);
    } else if (c.p < c.end && sexp::is_symbol_char(*c.p)) {
      const char* start = c.p;
      while (c.p < c.end && sexp::is_symbol_char(*c.p)) ++c.p;
      value.assign(start, c.p);
    }
    if (!c.skip_to_close(option_open, "option")) return LineKind::error;
    out.set(std::string(key), std::move(value));
    scratch_used_ = 0;
  }
  c.skip_space();
  if (c.p != c.end) {
    c.fail(c.p, "unexpected text after the header");
    return LineKind::error;
  }
  return LineKind::header;
}

}  // namespace skein
