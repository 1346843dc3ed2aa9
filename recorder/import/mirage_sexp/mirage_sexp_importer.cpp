// mirage_sexp_importer.cpp — lines from LineSplitter, each parsed by
// SexpLineParser into one Record; see mirage_sexp_importer.hpp for the
// format and the mapping.
#include "recorder/import/mirage_sexp/mirage_sexp_importer.hpp"

#include "recorder/import/mirage_sexp/lwt_switch.hpp"

#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/format/line_splitter.hpp"

namespace skein {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; }
// sexplib ends an unquoted atom at whitespace, a parenthesis, a quote or ';'.
bool is_delimiter(char c) { return is_space(c) || c == '(' || c == ')' || c == '"' || c == ';'; }

std::string quoted_name(std::string_view s) {
  constexpr std::size_t kShown = 40;
  std::string out = "'";
  out.append(s.substr(0, kShown));
  if (s.size() > kShown) out += "...";
  return out + "'";
}

enum class Decimal : std::uint8_t { ok, syntax, range };

// Reads sexplib's float text at [p, end) — -?D+(.D*)?([eE][+-]?D+)? — as
// an exact integer count of ns (the seconds times 10^9, digits below the ns
// dropped). On success `next` is one past the number, which is followed by a
// delimiter or the end.
Decimal seconds_to_ns(const char* p, const char* end, const char*& next, std::int64_t& out) {
  const char* s = p;
  const bool negative = s < end && *s == '-';
  if (negative) ++s;
  const char* int_begin = s;
  while (s < end && is_digit(*s)) ++s;
  const char* int_end = s;
  if (int_begin == int_end) return Decimal::syntax;
  const char* frac_begin = s;
  const char* frac_end = s;
  if (s < end && *s == '.') {
    frac_begin = ++s;
    while (s < end && is_digit(*s)) ++s;
    frac_end = s;
  }
  std::int64_t exponent = 0;
  if (s < end && (*s == 'e' || *s == 'E')) {
    ++s;
    const bool exponent_negative = s < end && *s == '-';
    if (s < end && (*s == '-' || *s == '+')) ++s;
    const char* digits = s;
    // Past 10^6 the value is 0 or out of range anyway; stop counting there.
    while (s < end && is_digit(*s)) {
      if (exponent < 1'000'000) exponent = exponent * 10 + (*s - '0');
      ++s;
    }
    if (digits == s) return Decimal::syntax;
    if (exponent_negative) exponent = -exponent;
  }
  if (s < end && !is_delimiter(*s)) return Decimal::syntax;
  next = s;
  // The mantissa's digits stand for whole ns up to `whole` of them.
  const std::int64_t whole = (int_end - int_begin) + exponent + 9;
  std::uint64_t value = 0;
  std::int64_t k = 0;
  const auto take = [&](const char* from, const char* to) {
    for (const char* c = from; c < to && k < whole; ++c, ++k)
      if (__builtin_mul_overflow(value, 10u, &value) ||
          __builtin_add_overflow(value, static_cast<unsigned>(*c - '0'), &value))
        return false;
    return true;
  };
  if (!take(int_begin, int_end) || !take(frac_begin, frac_end)) return Decimal::range;
  for (; k < whole && value != 0; ++k)
    if (__builtin_mul_overflow(value, 10u, &value)) return Decimal::range;
  if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    return Decimal::range;
  out = negative ? -static_cast<std::int64_t>(value) : static_cast<std::int64_t>(value);
  return Decimal::ok;
}

enum class LineResult : std::uint8_t { blank, record, error };

// One line into one Record (time 0) and the record's absolute time in ns.
// Strings point into the line, into scratch_ (unescaped strings) or kind_.
class SexpLineParser {
 public:
  LineResult parse(std::string_view line, Record& out, std::int64_t& time_ns);

  [[nodiscard]] std::uint32_t error_column() const { return error_column_; }
  [[nodiscard]] const std::string& error_message() const { return error_message_; }
  [[nodiscard]] std::uint32_t time_column() const { return time_column_; }

 private:
  std::uint32_t column(const char* at) const { return static_cast<std::uint32_t>(at - begin_ + 1); }

  bool fail(const char* at, std::string message) {
    error_column_ = column(at);
    error_message_ = std::move(message);
    return false;
  }
  bool expected(const char* what) {
    return fail(p_, std::string("expected ") + what + " after '" + std::string(head_) + "'");
  }

  void skip_space() {
    while (p_ < end_) {
      if (is_space(*p_)) ++p_;
      else if (*p_ == ';') p_ = end_;  // a comment runs to the end of the line
      else break;
    }
  }

  // An unquoted atom at p_ (possibly empty).
  std::string_view atom() {
    const char* start = p_;
    while (p_ < end_ && !is_delimiter(*p_)) ++p_;
    return {start, static_cast<std::size_t>(p_ - start)};
  }

  // The ')' that closes the list opened at `open`, after optional blanks.
  bool close(const char* open, const char* what) {
    skip_space();
    if (p_ < end_ && *p_ == ')') {
      ++p_;
      return true;
    }
    return fail(p_, std::string("expected ')' to close the ") + what + " opened at column " +
                        std::to_string(column(open)));
  }

  bool integer(std::int64_t& out, const char* what) {
    skip_space();
    if (p_ == end_ || !(is_digit(*p_) || (*p_ == '-' && p_ + 1 < end_ && is_digit(p_[1]))))
      return expected(what);
    const char* start = p_;
    const char* q = p_ + (*p_ == '-');
    std::uint64_t value = 0;
    bool overflow = false;
    for (; q < end_ && is_digit(*q); ++q)
      overflow |= __builtin_mul_overflow(value, 10u, &value) ||
                  __builtin_add_overflow(value, static_cast<unsigned>(*q - '0'), &value);
    if (q < end_ && !is_delimiter(*q)) return expected(what);
    const std::uint64_t limit = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) +
                                (*start == '-' ? 1u : 0u);
    if (overflow || value > limit)
      return fail(start, "integer out of range (signed 64-bit) in '" + std::string(head_) + "'");
    out = *start == '-' ? static_cast<std::int64_t>(0 - value) : static_cast<std::int64_t>(value);
    p_ = q;
    return true;
  }

  bool thread(ThreadId& out) {
    skip_space();
    const char* start = p_;
    if (!integer(out, "an integer thread id")) return false;
    if (!is_valid_thread_id(out))
      return fail(start, "thread id -9223372036854775808 is reserved (thread ids are -9223372036854775807 to "
                         "9223372036854775807)");
    return true;
  }

  bool seconds(std::int64_t& out, const char* what, const char* range_message) {
    skip_space();
    const char* start = p_;
    const char* next = p_;
    switch (seconds_to_ns(p_, end_, next, out)) {
      case Decimal::ok: p_ = next; return true;
      case Decimal::syntax: return expected(what);
      case Decimal::range: return fail(start, range_message);
    }
    return expected(what);
  }

  // A quoted string at p_ (which is '"'), with OCaml's escapes.
  bool quoted(std::string_view& out);

  // A string or a bare atom: a label's text, a failure message.
  bool text(std::string_view& out, const char* what) {
    skip_space();
    if (p_ < end_ && *p_ == '"') return quoted(out);
    const char* start = p_;
    out = atom();
    if (out.empty()) return expected(what);
    if (out.size() > kMaxStringBytes) return fail(start, "atom longer than 65536 bytes");
    return true;
  }

  bool field_time(std::int64_t& time_ns);
  bool field_op(Record& out);
  bool resolve_outcome(ResolveRecord& r);

  const char* begin_ = nullptr;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  std::string_view head_;  // the field or op being read, for messages
  std::unique_ptr<char[]> scratch_;
  std::string kind_;
  std::uint32_t error_column_ = 0;
  std::uint32_t time_column_ = 0;
  std::string error_message_;
};

bool SexpLineParser::quoted(std::string_view& out) {
  const char* open = p_++;
  const char* start = p_;
  // Fast path: no escapes, a view into the line.
  while (p_ < end_ && *p_ != '"' && *p_ != '\\') ++p_;
  if (p_ < end_ && *p_ == '"') {
    out = std::string_view(start, static_cast<std::size_t>(p_ - start));
    ++p_;
    if (out.size() > kMaxStringBytes) return fail(open, "string longer than 65536 bytes");
    return true;
  }
  // Slow path: unescape into the scratch area, made on first use. Only one
  // string of a record is kept, so each string starts at its beginning.
  if (!scratch_) scratch_.reset(new char[kMaxStringBytes]);
  char* const first = scratch_.get();
  std::size_t used = static_cast<std::size_t>(p_ - start);
  if (used > kMaxStringBytes) return fail(open, "string longer than 65536 bytes");
  std::memcpy(first, start, used);
  for (;;) {
    if (p_ == end_) return fail(open, "unterminated string");
    char c = *p_;
    if (c == '"') {
      ++p_;
      break;
    }
    if (used == kMaxStringBytes) return fail(open, "string longer than 65536 bytes");
    if (c != '\\') {
      first[used++] = c;
      ++p_;
      continue;
    }
    if (p_ + 1 == end_) return fail(open, "unterminated string");
    const char e = p_[1];
    // `count` digits in `base` from `at`, into value.
    const auto digits = [this](const char* at, int base, int count, int& value) {
      value = 0;
      for (int k = 0; k < count; ++k) {
        const char h = at + k < end_ ? at[k] : '\0';
        int d = -1;
        if (h >= '0' && h <= '9') d = h - '0';
        else if (base == 16 && h >= 'a' && h <= 'f') d = h - 'a' + 10;
        else if (base == 16 && h >= 'A' && h <= 'F') d = h - 'A' + 10;
        if (d < 0 || d >= base) return false;
        value = value * base + d;
      }
      return true;
    };
    int value = 0;
    std::size_t length = 2;
    switch (e) {
      case '\\': c = '\\'; break;
      case '"': c = '"'; break;
      case '\'': c = '\''; break;
      case ' ': c = ' '; break;
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      case 'b': c = '\b'; break;
      case 'r': c = '\r'; break;
      case 'x':  // \xHH
        if (!digits(p_ + 2, 16, 2, value)) return fail(p_, "expected two hex digits after '\\x'");
        c = static_cast<char>(value);
        length = 4;
        break;
      case 'o':  // \oOOO
        if (!digits(p_ + 2, 8, 3, value) || value > 255)
          return fail(p_, "expected three octal digits (up to \\o377) after '\\o'");
        c = static_cast<char>(value);
        length = 5;
        break;
      default:
        if (is_digit(e)) {  // \DDD
          if (!digits(p_ + 1, 10, 3, value) || value > 255)
            return fail(p_, "expected three decimal digits (up to \\255) after '\\'");
          c = static_cast<char>(value);
          length = 4;
          break;
        }
        // sexplib keeps an unknown escape as it is, backslash included.
        first[used++] = '\\';
        if (used == kMaxStringBytes) return fail(open, "string longer than 65536 bytes");
        c = e;
        break;
    }
    first[used++] = c;
    p_ += length;
  }
  out = std::string_view(first, used);
  return true;
}

bool SexpLineParser::field_time(std::int64_t& time_ns) {
  skip_space();
  time_column_ = column(p_);
  return seconds(time_ns, "a time in seconds",
                 "time out of range (at most 9223372036 seconds)");
}

bool SexpLineParser::resolve_outcome(ResolveRecord& r) {
  skip_space();
  r.outcome = Outcome::ok;
  if (p_ == end_ || *p_ == ')') return true;  // no option at all
  const auto is_none = [](std::string_view a) { return a == "None" || a == "none"; };
  const auto is_some = [](std::string_view a) { return a == "Some" || a == "some"; };
  constexpr const char* kMessage = "a failure message (a string or an atom)";
  std::string_view message;
  if (*p_ != '(') {
    // A bare message; `None` is sexplib's other spelling of ().
    const char* start = p_;
    if (!text(message, kMessage)) return false;
    if (*start != '"' && is_none(message)) return true;
  } else {
    // sexplib's option: () or (MESSAGE) or (Some MESSAGE).
    const char* open = p_++;
    skip_space();
    if (p_ < end_ && *p_ == ')') {
      ++p_;
      return true;
    }
    const char* start = p_;
    if (!text(message, kMessage)) return false;
    skip_space();
    if (*start != '"' && is_some(message) && p_ < end_ && *p_ != ')') {
      if (!text(message, kMessage)) return false;
    }
    if (!close(open, "option")) return false;
  }
  r.outcome = Outcome::fail;
  r.message = message;
  return true;
}

bool SexpLineParser::field_op(Record& out) {
  skip_space();
  if (p_ == end_ || *p_ != '(') return expected("an op '(NAME ...)'");
  const char* open = p_++;
  skip_space();
  const char* name_at = p_;
  head_ = atom();
  if (head_.empty() || is_digit(head_[0]))
    return fail(name_at, "expected an op name after '('");
  switch (head_.size()) {
    case 7:
      if (head_ == "Creates") {
        SpawnRecord r;
        if (!thread(r.parent) || !thread(r.child)) return false;
        skip_space();
        if (p_ < end_ && *p_ != ')') {
          const char* type_at = p_;
          const std::string_view type = atom();
          kind_.assign(type);
          for (char& c : kind_)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
          if (!is_valid_symbol(kind_)) {
            p_ = type_at;
            return expected("a thread type (a symbol such as Bind)");
          }
          r.kind = kind_;
        } else {
          r.kind = "task";
        }
        out = r;
        return close(open, "op");
      }
      if (head_ == "Becomes") {
        MergeRecord r;
        if (!thread(r.thread) || !thread(r.into)) return false;
        out = r;
        return close(open, "op");
      }
      break;
    case 5:
      if (head_ == "Reads") {
        ReadRecord r;
        if (!thread(r.reader) || !thread(r.input)) return false;
        out = r;
        return close(open, "op");
      }
      if (head_ == "Label") {
        LabelRecord r;
        if (!thread(r.thread) || !text(r.text, "a label (a string or an atom)")) return false;
        out = r;
        return close(open, "op");
      }
      break;
    case 8:
      if (head_ == "Resolves") {
        ResolveRecord r;
        if (!thread(r.by) || !thread(r.thread) || !resolve_outcome(r)) return false;
        out = r;
        return close(open, "op");
      }
      break;
    case 6:
      if (head_ == "Switch") {
        SwitchRecord r;
        if (!thread(r.thread)) return false;
        out = r;
        return close(open, "op");
      }
      break;
    case 2:
      if (head_ == "Gc") {
        GcRecord r;
        skip_space();
        const char* start = p_;
        if (!seconds(r.duration, "a duration in seconds", "duration out of range")) return false;
        if (r.duration < 0) return fail(start, "duration must not be negative");
        if (r.duration > kMaxTime)
          return fail(start, "duration out of range (0 to " + std::to_string(kMaxTime) + " ns)");
        out = r;
        return close(open, "op");
      }
      break;
    default:
      break;
  }
  return fail(name_at, "unknown op " + quoted_name(head_) +
                           " (expected Creates, Reads, Resolves, Becomes, Label, Switch or Gc)");
}

LineResult SexpLineParser::parse(std::string_view line, Record& out, std::int64_t& time_ns) {
  begin_ = p_ = line.data();
  end_ = line.data() + line.size();
  skip_space();
  if (p_ == end_) return LineResult::blank;
  if (*p_ != '(') return fail(p_, "expected '(' to start a record"), LineResult::error;
  const char* open = p_++;
  bool have_time = false;
  bool have_op = false;
  for (;;) {
    skip_space();
    if (p_ == end_) {
      fail(p_, "expected ')' to close the record opened at column " + std::to_string(column(open)));
      return LineResult::error;
    }
    if (*p_ == ')') break;
    static constexpr const char* kField = "expected a field '(time SECONDS)' or '(op (OP ...))'";
    if (*p_ != '(') return fail(p_, kField), LineResult::error;
    const char* field_open = p_++;
    skip_space();
    const char* name_at = p_;
    head_ = atom();
    bool ok = false;
    if (head_ == "time") {
      if (have_time) return fail(name_at, "a second 'time' field in the record"), LineResult::error;
      have_time = true;
      ok = field_time(time_ns);
    } else if (head_ == "op") {
      if (have_op) return fail(name_at, "a second 'op' field in the record"), LineResult::error;
      have_op = true;
      ok = field_op(out);
    } else {
      return fail(name_at, kField), LineResult::error;
    }
    if (!ok || !close(field_open, "field")) return LineResult::error;
  }
  if (!have_time) return fail(p_, "the record has no '(time SECONDS)' field"), LineResult::error;
  if (!have_op) return fail(p_, "the record has no '(op (OP ...))' field"), LineResult::error;
  ++p_;
  skip_space();
  if (p_ != end_) return fail(p_, "unexpected text after the end of the record"), LineResult::error;
  return LineResult::record;
}

void set_time(Record& r, TimeNs time) {
  std::visit(
      [time](auto& rec) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(rec)>, SiteRecord>) rec.time = time;
      },
      r);
}

}  // namespace

struct MirageSexpImporter::State {
  LwtSwitchClassifier switches;
  // What the next call returns, read while looking past a possible dump
  // mark (read_record ahead of a `Resolves 0 0 ()`).
  std::optional<Step> ahead;
  Record ahead_record;
  std::uint64_t ahead_line = 0;
  std::uint64_t delivered_line = 0;  // the line of the record last returned
  explicit State(std::unique_ptr<ByteSource> source) : lines(std::move(source)) {}
  LineSplitter lines;
  SexpLineParser parser;
  bool done = false;
  bool have_origin = false;
  std::int64_t origin_ns = 0;  // the first record's time on the source clock
};

MirageSexpImporter::MirageSexpImporter(std::unique_ptr<ByteSource> source, std::string name)
    : TraceSource("mirage-sexp", std::move(name)), s_(std::make_unique<State>(std::move(source))) {
  header_.set("source-format", "mirage-sexp");
  // Lwt's main loop runs as thread 0 (lwt_switch.hpp).
  header_.set("scheduler-thread", "0");
}
MirageSexpImporter::~MirageSexpImporter() = default;

std::uint64_t MirageSexpImporter::bytes_consumed() const { return s_->lines.bytes_consumed(); }
std::uint64_t MirageSexpImporter::line() const {
  return s_->delivered_line != 0 ? s_->delivered_line : s_->lines.line_number();
}
Diagnostic MirageSexpImporter::record_location() const {
  return Diagnostic{Severity::warning, name(), line(), 0, {}};
}

// mirage-profile's `events ()` (profile.ml at 607235f) appends
// `Resolves (0, 0, None)` to the log it hands out: the moment the log was
// taken from the running unikernel, not a resolve by the program. As the
// file's last record it is imported as `(snapshot TIME)`; anywhere else it
// stays what it says.
bool is_dump_mark(const Record& r) {
  const auto* resolve = std::get_if<ResolveRecord>(&r);
  return resolve != nullptr && resolve->thread == kMainThread && resolve->by == kMainThread &&
         resolve->outcome == Outcome::ok && !resolve->message;
}

TraceSource::Step MirageSexpImporter::next() {
  State& s = *s_;
  Step step = Step::end;
  std::uint64_t mark_line = 0;
  if (s.ahead) {
    step = *s.ahead;
    s.ahead.reset();
    record_ = s.ahead_record;
    s.delivered_line = s.ahead_line;
    // A record read ahead may be a dump mark too (two in a row): it is
    // the snapshot only if nothing follows it, so it is looked past in
    // turn. A mark holds no text, so reading past it keeps no view alive.
    if (step != Step::record || !is_dump_mark(record_)) return step;
    mark_line = s.ahead_line;
  } else {
    s.delivered_line = 0;
    step = read_record();
    if (step != Step::record || !is_dump_mark(record_)) return step;
    mark_line = s.lines.line_number();
  }
  const Record mark = record_;
  const Step after = read_record();
  if (after == Step::end) {
    record_ = SnapshotRecord{std::get<ResolveRecord>(mark).time};
    s.delivered_line = mark_line;
    return Step::record;
  }
  // Not the last record: the resolve now, what follows it next time. The
  // record read ahead keeps its views: no line is read before it is given.
  s.ahead = after;
  s.ahead_record = record_;
  s.ahead_line = s.lines.line_number();
  record_ = mark;
  s.delivered_line = mark_line;
  return Step::record;
}

TraceSource::Step MirageSexpImporter::read_record() {
  State& s = *s_;
  // Diagnostics name the line just read, not line(): while a dump mark read
  // ahead is being given, line() is the mark's, one or more lines back.
  const auto here = [&s] { return s.lines.line_number(); };
  for (;;) {
    if (s.done) return Step::end;
    switch (s.lines.next()) {
      case LineSplitter::Event::line: break;
      case LineSplitter::Event::too_long:
        if (s.lines.gave_up()) s.done = true;
        // The column of the first byte past the limit, like any other error's.
        return fail(here(), static_cast<std::uint32_t>(kMaxLineBytes + 1), s.lines.too_long_message());
      case LineSplitter::Event::cut_short:
        truncated_ = true;
        warn(0, 0, "the compressed stream ends early: the trace was cut short");
        continue;
      case LineSplitter::Event::read_error:
        s.done = true;
        error_ = s.lines.read_error();
        return Step::error;
      case LineSplitter::Event::end:
        s.done = true;
        return Step::end;
    }
    std::int64_t time_ns = 0;
    switch (s.parser.parse(s.lines.text(), record_, time_ns)) {
      case LineResult::blank: continue;
      case LineResult::record: break;
      case LineResult::error:
        if (s.lines.unterminated()) {
          s.done = true;
          truncated_ = true;
          warn(here(), s.parser.error_column(),
               "the last line is cut short (" + s.parser.error_message() +
                   "): the trace was truncated; everything before it was read");
          return Step::end;
        }
        return fail(here(), s.parser.error_column(), s.parser.error_message());
    }
    if (!s.have_origin) {
      s.have_origin = true;
      s.origin_ns = time_ns;
      header_.set("source-origin-ns", std::to_string(time_ns));
    }
    std::int64_t time = 0;
    if (__builtin_sub_overflow(time_ns, s.origin_ns, &time))
      return fail(here(), s.parser.time_column(), "time out of range (too far from the first record's)");
    if (time < 0) {
      warn(here(), s.parser.time_column(),
           "time goes back " + std::to_string(distance(time, 0)) +
               " ns before the first record's: imported as time 0");
      time = 0;
    }
    if (time > kMaxTime)
      return fail(here(), s.parser.time_column(),
                  "time out of range (more than " + std::to_string(kMaxTime) + " ns after the first record's)");
    set_time(record_, time);
    if (const auto* sw = std::get_if<SwitchRecord>(&record_); sw != nullptr && !s.switches.scheduler_switch(sw->thread))
      record_ = ReturnRecord{sw->time, sw->thread};
    return Step::record;
  }
}

}  // namespace skein
