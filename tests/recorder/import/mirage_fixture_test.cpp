// mirage_fixture_test.cpp — the importers on the real 2014 MirageOS traces
// (/work/shared/fixtures/mirage, or the folder SKEIN_FIXTURES names): record
// counts, per-op counts, exact first records, and for CTF an event-by-event,
// field-by-field comparison with what babeltrace2 reads from the same file
// and its metadata.
//
// The fixtures are data kept outside the repository. When the folder (or
// babeltrace2) is missing, a test WARNs that it was skipped and returns, and
// the executable exits 77, which ctest reports as "Skipped"
// (fixture_main.cpp).
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <charconv>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "recorder/import/ctf/ctf_importer.hpp"
#include "recorder/import/trace_source.hpp"
#include "recorder/format/trace_writer.hpp"
#include "tests/recorder/fixture_path.hpp"
#include "tests/support/subprocess.hpp"

using namespace skein;

namespace {

// What one pass over a trace gives: counts by head (resolve split by
// outcome), the first records, the last time.
struct Summary {
  std::string format;
  std::uint64_t records = 0;
  std::map<std::string, std::uint64_t> by_head;
  std::vector<std::string> first;
  std::vector<std::string> errors;
  std::uint64_t warnings = 0;
  TimeNs last_time = -1;
  bool times_sorted = true;
  std::array<std::uint64_t, kCtfEventIds> ctf_counts{};
};

Summary summarise(const std::string& path) {
  Summary s;
  auto opened = open_trace(path);
  REQUIRE(opened.ok());
  TraceSource& source = *opened.value();
  s.format = std::string(source.format_name());
  for (;;) {
    const auto step = source.next();
    if (step == TraceSource::Step::end) break;
    if (step == TraceSource::Step::error) {
      s.errors.push_back(source.error().to_string());
      continue;
    }
    const Record& r = source.record();
    ++s.records;
    std::string key(head_name(head_of(r)));
    if (const auto* resolve = std::get_if<ResolveRecord>(&r))
      key += std::string(" ") + std::string(outcome_name(resolve->outcome));
    ++s.by_head[key];
    if (s.first.size() < 5) s.first.push_back(format_record(r));
    const TimeNs t = time_of(r).value_or(0);
    if (t < s.last_time) s.times_sorted = false;
    s.last_time = t;
  }
  s.warnings = source.warning_count();
  if (const auto* ctf = dynamic_cast<const CtfImporter*>(&source)) s.ctf_counts = ctf->event_counts();
  return s;
}

using Counts = std::map<std::string, std::uint64_t>;

std::string find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

}  // namespace

TEST_CASE("log-x86.sexp: 3,915 records with exact times") {
  const std::string path = test::fixture_path("log-x86.sexp");
  if (path.empty()) return;
  const Summary s = summarise(path);
  CHECK(s.format == "mirage-sexp");
  CHECK(s.errors.empty());
  CHECK(s.warnings == 0);
  CHECK(s.records == 3915);
  // The file's 167 Switch ops (grep '(Switch N)'): 36 to -1 and 99 to 0,
  // the main loop's thread, stay switches; the 31 to 373 and the 1 to 281
  // are Lwt's leave_wakeup returning inside a wakeup (lwt_switch.hpp). The
  // last line, `Resolves 0 0()`, is mirage-profile's mark of when the log
  // was taken (profile.ml's events ()): the snapshot, not a resolve.
  CHECK(s.by_head == Counts{{"label", 341}, {"merge", 117}, {"read", 1706}, {"resolve fail", 8},
                            {"resolve ok", 717}, {"return", 32}, {"snapshot", 1}, {"spawn", 858},
                            {"switch", 135}});
  CHECK(s.first == std::vector<std::string>{"(switch 0 0)", "(read 729000 0 -1)",
                                            "(label 747000 0 \"create XenStore\")", "(read 756000 0 0)",
                                            "(spawn 770000 1 0 task)"});
  CHECK(s.times_sorted);
  CHECK(s.last_time == 161'813'000);  // 1413637708.995214 - 1413637708.833401
}

TEST_CASE("log-x86-v0.sexp: 18,780 records, every thread a task") {
  const std::string path = test::fixture_path("log-x86-v0.sexp");
  if (path.empty()) return;
  const Summary s = summarise(path);
  CHECK(s.format == "mirage-sexp");
  CHECK(s.errors.empty());
  CHECK(s.warnings == 0);
  CHECK(s.records == 18780);
  CHECK(s.by_head == Counts{{"label", 2159}, {"merge", 562}, {"read", 7963}, {"resolve fail", 8},
                            {"resolve ok", 3617}, {"snapshot", 1}, {"spawn", 4203},
                            {"switch", 267}});  // switches only to 0 and -1; the last line is the dump mark
  CHECK(s.first == std::vector<std::string>{"(switch 0 0)", "(read 14000 0 -1)",
                                            "(label 31000 0 \"create XenStore\")", "(read 40000 0 0)",
                                            "(spawn 53000 1 0 task)"});
  CHECK(s.times_sorted);
  CHECK(s.last_time == 230'320'000);  // 8249.751586 - 8249.521266
}

TEST_CASE("net.ctf: 10,078 events with the README's per-op counts") {
  const std::string path = test::fixture_path("net.ctf");
  if (path.empty()) return;
  const Summary s = summarise(path);
  CHECK(s.format == "mirage-ctf");
  CHECK(s.errors.empty());
  CHECK(s.warnings == 0);
  CHECK(s.records == 10078);
  Counts by_event;
  for (std::size_t id = 0; id < kCtfEventIds; ++id)
    if (s.ctf_counts[id] != 0) by_event[std::string(CtfImporter::event_name(id))] = s.ctf_counts[id];
  CHECK(by_event == Counts{{"becomes", 215}, {"creates", 1816}, {"fails", 2}, {"fulfills", 1511},
                           {"gc", 1}, {"increase", 1394}, {"label", 2185}, {"read", 2596},
                           {"switch", 358}});
  // babeltrace2's 358 switch events: 36 to 0xffffffffffffffff (-1) and 101
  // to 0, the main loop's thread, stay switches; the 221 to other threads
  // (208 to 388 "Netif.rx_poll") return inside a wakeup (lwt_switch.hpp).
  CHECK(s.by_head == Counts{{"counter", 1394}, {"gc", 1}, {"label", 2185}, {"merge", 215},
                            {"read", 2596}, {"resolve fail", 2}, {"resolve ok", 1511},
                            {"return", 221}, {"spawn", 1816}, {"switch", 137}});
  CHECK(s.first == std::vector<std::string>{"(switch 0 0)", "(counter 81790 \"gntref\" 1)",
                                            "(label 93737 0 \"Gntshr.grant_access\")",
                                            "(counter 104557 \"gntref\" 2)",
                                            "(label 113746 0 \"Gntshr.grant_access\")"});
  CHECK(s.times_sorted);
}

namespace {

// One event as babeltrace2's text sink prints it with --clock-cycles:
//
//   [00000006777609982444] (+000000021459) creates: { stream_packet_count = 0x0 },
//     { thread = 0x0 }, { child = 0x1, thread_type = ( "Condition" : container = 8 ) }
//
// (one line): the timestamp, the event name, then the packet context, the
// event context and the payload, each a `{ NAME = VALUE, ... }` scope.
// The metadata maps no clock, so babeltrace2 gives the timestamp field a
// clock of 1 GHz: its cycles are the file's u64, in ns.
struct BabeltraceEvent {
  std::uint64_t timestamp = 0;
  std::string name;
  // Every field of every scope by name: integers as printed (0x.. or
  // decimal), strings unescaped, enumerations by label.
  std::map<std::string, std::string> fields;
};

// Reads one line as babeltrace2 writes it; `why` says where it first
// differs from that.
class BabeltraceLineParser {
 public:
  explicit BabeltraceLineParser(std::string_view line) : line_(line) {}

  std::optional<BabeltraceEvent> parse(std::string& why) {
    BabeltraceEvent e;
    if (!expect("[")) return failed(why, "no '[' before the timestamp");
    const std::size_t digits = at_;
    while (at_ < line_.size() && line_[at_] >= '0' && line_[at_] <= '9')
      e.timestamp = e.timestamp * 10 + static_cast<std::uint64_t>(line_[at_++] - '0');
    if (at_ == digits || !expect("] (")) return failed(why, "no timestamp in clock cycles");
    const std::size_t delta_end = line_.find(") ", at_);
    if (delta_end == std::string_view::npos) return failed(why, "no delta");
    at_ = delta_end + 2;
    const std::size_t colon = line_.find(": ", at_);
    if (colon == std::string_view::npos) return failed(why, "no event name");
    e.name = std::string(line_.substr(at_, colon - at_));
    at_ = colon + 2;
    for (;;) {  // scopes
      if (!expect("{ ")) return failed(why, "no '{' opening a scope");
      for (;;) {  // fields
        const std::size_t eq = line_.find(" = ", at_);
        if (eq == std::string_view::npos) return failed(why, "a field with no ' = '");
        const std::string name(line_.substr(at_, eq - at_));
        at_ = eq + 3;
        std::string value;
        if (!parse_value(value)) return failed(why, "a malformed value of field " + name);
        if (!e.fields.emplace(name, value).second) return failed(why, "field " + name + " twice");
        if (expect(", ")) continue;
        if (expect(" }")) break;
        return failed(why, "no ', ' or ' }' after field " + name);
      }
      if (at_ == line_.size()) return e;
      if (!expect(", ")) return failed(why, "no ', ' between scopes");
    }
  }

 private:
  bool expect(std::string_view text) {
    if (line_.substr(at_, text.size()) != text) return false;
    at_ += text.size();
    return true;
  }
  std::nullopt_t failed(std::string& why, const std::string& what) const {
    why = what + " at column " + std::to_string(at_ + 1);
    return std::nullopt;
  }

  bool parse_value(std::string& out) {
    if (expect("( \"")) {  // an enumeration: ( "Label" : container = N )
      const std::size_t end = line_.find('"', at_);
      if (end == std::string_view::npos) return false;
      out = std::string(line_.substr(at_, end - at_));
      const std::size_t close = line_.find(" )", end);
      if (close == std::string_view::npos) return false;
      at_ = close + 2;
      return true;
    }
    if (expect("\"")) return parse_string(out);
    const std::size_t start = at_;  // an integer
    while (at_ < line_.size() && line_[at_] != ',' && line_[at_] != ' ') ++at_;
    out = std::string(line_.substr(start, at_ - start));
    return !out.empty();
  }

  // The rest of a string whose opening quote is read, with the escapes of
  // babeltrace2's pretty printer: \\ \" \' \? \a \b \e \f \n \r \t \v, and
  // \xNN for other control bytes (as babeltrace2 2.0.4 prints labels made
  // of each); other bytes as they are.
  bool parse_string(std::string& out) {
    while (at_ < line_.size()) {
      const char c = line_[at_++];
      if (c == '"') return true;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at_ == line_.size()) return false;
      const char escaped = line_[at_++];
      switch (escaped) {
        case '\\': case '"': case '\'': case '?': out += escaped; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'e': out += '\x1b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'v': out += '\v'; break;
        case 'x': {
          if (at_ + 2 > line_.size()) return false;
          unsigned value = 0;
          const auto [end, ec] = std::from_chars(line_.data() + at_, line_.data() + at_ + 2, value, 16);
          if (ec != std::errc{} || end != line_.data() + at_ + 2) return false;
          out += static_cast<char>(value);
          at_ += 2;
          break;
        }
        default: return false;
      }
    }
    return false;
  }

  std::string_view line_;
  std::size_t at_ = 0;
};

// An integer as babeltrace2 prints it (0x.. for the metadata's hex types,
// decimal, maybe negative, for int64_t), as the file's 64 bits.
std::optional<std::uint64_t> integer_bits(const std::string& text) {
  std::uint64_t value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  std::from_chars_result r{};
  if (text.rfind("0x", 0) == 0) {
    r = std::from_chars(first + 2, last, value, 16);
  } else if (text.rfind('-', 0) == 0) {
    std::int64_t negative = 0;
    r = std::from_chars(first, last, negative);
    value = static_cast<std::uint64_t>(negative);
  } else {
    r = std::from_chars(first, last, value);
  }
  if (r.ec != std::errc{} || r.ptr != last) return std::nullopt;
  return value;
}

// Compares the fields of one babeltrace2 event with the record CtfImporter
// made of the same event, and lists what differs. Every field babeltrace2
// printed must be compared, but for stream_packet_count (the packet's, not
// the event's).
class EventComparison {
 public:
  EventComparison(const BabeltraceEvent& event, std::vector<std::string>& differences)
      : event_(event), differences_(differences) {}

  ~EventComparison() {
    for (const auto& [name, value] : event_.fields)
      if (!compared_.contains(name)) differences_.push_back("field " + name + " not compared");
  }
  EventComparison(const EventComparison&) = delete;
  EventComparison& operator=(const EventComparison&) = delete;

  std::string text(const std::string& field) {
    compared_.insert(field);
    const auto it = event_.fields.find(field);
    if (it == event_.fields.end()) {
      differences_.push_back("babeltrace2 has no field " + field);
      return {};
    }
    return it->second;
  }
  std::uint64_t integer(const std::string& field) {
    const std::string value = text(field);
    const auto bits = integer_bits(value);
    if (!bits && !value.empty()) differences_.push_back("field " + field + " is not an integer: " + value);
    return bits.value_or(0);
  }
  ThreadId thread(const std::string& field) { return static_cast<ThreadId>(integer(field)); }
  // A field babeltrace2 prints that the record has no place for (the
  // thread of `increase` and `counter`: a Skein counter has none).
  void dropped(const std::string& field) { (void)text(field); }

  template <class T, class U>
  void same(const std::string& what, const T& babeltrace, const U& skein) {
    if (babeltrace == skein) return;
    std::ostringstream out;
    out << what << ": babeltrace2 " << babeltrace << ", skein " << skein;
    differences_.push_back(out.str());
  }
  void wrong_record(const Record& r, std::string_view expected) {
    differences_.push_back("skein made a " + std::string(head_name(head_of(r))) + " record, not " +
                           std::string(expected));
  }

 private:
  const BabeltraceEvent& event_;
  std::vector<std::string>& differences_;
  std::set<std::string> compared_{"stream_packet_count"};
};

std::string lower_case(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

// What differs between babeltrace2's event and the record CtfImporter made
// of it, by the mapping of ctf_importer.hpp (`totals`: the running total of
// each counter, as the importer keeps it).
std::vector<std::string> differences(const BabeltraceEvent& event, std::uint64_t origin,
                                     const Record& record,
                                     std::map<std::string, std::int64_t>& totals) {
  std::vector<std::string> out;
  {
    EventComparison c(event, out);
    c.same("time", static_cast<TimeNs>(event.timestamp - origin), time_of(record).value_or(-1));
    const std::string& name = event.name;
    if (name == "creates") {
      if (const auto* r = std::get_if<SpawnRecord>(&record)) {
        c.same("thread", c.thread("thread"), r->parent);
        c.same("child", c.thread("child"), r->child);
        c.same("thread_type", lower_case(c.text("thread_type")), std::string(r->kind));
      } else c.wrong_record(record, "spawn");
    } else if (name == "read") {
      if (const auto* r = std::get_if<ReadRecord>(&record)) {
        c.same("thread", c.thread("thread"), r->reader);
        c.same("source", c.thread("source"), r->input);
      } else c.wrong_record(record, "read");
    } else if (name == "try_read") {
      if (const auto* r = std::get_if<WaitRecord>(&record)) {
        c.same("thread", c.thread("thread"), r->waiter);
        c.same("source", c.thread("source"), r->input);
      } else c.wrong_record(record, "wait");
    } else if (name == "fulfills" || name == "fails") {
      if (const auto* r = std::get_if<ResolveRecord>(&record)) {
        c.same("thread", c.thread("thread"), r->by);
        c.same("resolvee", c.thread("resolvee"), r->thread);
        const bool failed = name == "fails";
        c.same("outcome", failed ? "fail" : "ok", outcome_name(r->outcome));
        c.same("exn", failed ? c.text("exn") : std::string("(none)"),
               std::string(r->message.value_or("(none)")));
      } else c.wrong_record(record, "resolve");
    } else if (name == "becomes") {
      if (const auto* r = std::get_if<MergeRecord>(&record)) {
        c.same("thread", c.thread("thread"), r->thread);
        c.same("sleeper", c.thread("sleeper"), r->into);
      } else c.wrong_record(record, "merge");
    } else if (name == "label") {
      const std::string label = c.text("label");
      if (label == "__should_resolve") {
        if (const auto* r = std::get_if<ShouldResolveRecord>(&record))
          c.same("thread", c.thread("thread"), r->thread);
        else c.wrong_record(record, "should-resolve");
      } else if (const auto* r = std::get_if<LabelRecord>(&record)) {
        c.same("thread", c.thread("thread"), r->thread);
        c.same("label", label, std::string(r->text));
      } else c.wrong_record(record, "label");
    } else if (name == "increase" || name == "counter") {
      if (const auto* r = std::get_if<CounterRecord>(&record)) {
        c.dropped("thread");
        const std::string counter = c.text("counter");
        c.same("counter", counter, std::string(r->name));
        std::int64_t& total = totals[counter];
        if (name == "increase") total += static_cast<std::int64_t>(c.integer("amount"));
        else total = static_cast<std::int64_t>(c.integer("value"));
        c.same(name == "increase" ? "amount (the running total)" : "value", total, r->value);
      } else c.wrong_record(record, "counter");
    } else if (name == "switch") {
      if (const auto* r = std::get_if<SwitchRecord>(&record)) c.same("thread", c.thread("thread"), r->thread);
      else if (const auto* ret = std::get_if<ReturnRecord>(&record)) c.same("thread", c.thread("thread"), ret->thread);
      else c.wrong_record(record, "switch or return");
    } else if (name == "gc") {
      if (const auto* r = std::get_if<GcRecord>(&record))
        c.same("duration_ns", static_cast<std::int64_t>(c.integer("duration_ns")), r->duration);
      else c.wrong_record(record, "gc");
    } else if (name == "signal") {
      if (const auto* r = std::get_if<NotifyRecord>(&record)) {
        c.same("thread", c.thread("thread"), r->receiver);
        c.same("source", c.thread("source"), r->sender);
      } else c.wrong_record(record, "notify");
    } else {
      out.push_back("an event name the comparison does not know");
    }
  }
  return out;
}

}  // namespace

TEST_CASE("net.ctf: every event and field equals what babeltrace2 reads with the metadata") {
  const std::string ctf = test::fixture_path("net.ctf");
  const std::string metadata = test::fixture_path("metadata");
  if (ctf.empty() || metadata.empty()) return;
  const std::string babeltrace = find_in_path("babeltrace2");
  if (babeltrace.empty()) {
    WARN("SKIPPED: babeltrace2 is not installed (apt-get install babeltrace2)");
    test::note_skipped();
    return;
  }
  // babeltrace2 reads a folder holding the stream and its metadata.
  char dir[] = "/tmp/skein-babeltrace-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  char real_ctf[PATH_MAX];
  char real_metadata[PATH_MAX];
  REQUIRE(realpath(ctf.c_str(), real_ctf) != nullptr);
  REQUIRE(realpath(metadata.c_str(), real_metadata) != nullptr);
  const std::string link_ctf = std::string(dir) + "/net.ctf";
  const std::string link_metadata = std::string(dir) + "/metadata";
  REQUIRE(symlink(real_ctf, link_ctf.c_str()) == 0);
  REQUIRE(symlink(real_metadata, link_metadata.c_str()) == 0);
  const auto run = test::run_process({babeltrace, "--clock-cycles", dir});
  unlink(link_ctf.c_str());
  unlink(link_metadata.c_str());
  rmdir(dir);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);

  std::vector<BabeltraceEvent> events;
  std::istringstream out(run.out);
  std::string line;
  while (std::getline(out, line)) {
    std::string why;
    auto event = BabeltraceLineParser(line).parse(why);
    INFO("babeltrace2 line " << events.size() + 1 << ": " << line << "\n" << why);
    REQUIRE(event.has_value());
    events.push_back(std::move(*event));
  }
  REQUIRE(events.size() == 10078);

  // The importer's records, each compared with its event as it comes (its
  // strings live until the next record).
  auto opened = open_trace(ctf);
  REQUIRE(opened.ok());
  TraceSource& source = *opened.value();
  const std::uint64_t origin = events.front().timestamp;
  std::map<std::string, std::int64_t> totals;
  std::vector<std::string> first_mismatches;
  std::uint64_t compared = 0;
  std::uint64_t mismatched = 0;
  std::vector<std::string> errors;
  for (;;) {
    const auto step = source.next();
    if (step == TraceSource::Step::end) break;
    if (step == TraceSource::Step::error) {
      errors.push_back(source.error().to_string());
      break;
    }
    if (compared == events.size()) {
      ++mismatched;
      if (first_mismatches.size() < 5)
        first_mismatches.push_back("record " + std::to_string(compared) + " " +
                                   format_record(source.record()) + ": babeltrace2 has no event");
      ++compared;
      continue;
    }
    const BabeltraceEvent& event = events[compared];
    const auto found = differences(event, origin, source.record(), totals);
    if (!found.empty()) {
      ++mismatched;
      if (first_mismatches.size() < 5) {
        std::string report = "event " + std::to_string(compared) + " (" + event.name + ", " +
                             format_record(source.record()) + "):";
        for (const auto& d : found) report += "\n  " + d;
        first_mismatches.push_back(report);
      }
    }
    ++compared;
  }
  std::string report;
  for (const auto& m : first_mismatches) report += m + "\n";
  INFO("first mismatches (of " << mismatched << "):\n" << report);
  CHECK(errors.empty());
  CHECK(source.warning_count() == 0);
  CHECK(mismatched == 0);
  CHECK(compared == 10078);
  REQUIRE(source.header().option("source-origin-ns") != nullptr);
  CHECK(*source.header().option("source-origin-ns") == std::to_string(origin));
}
