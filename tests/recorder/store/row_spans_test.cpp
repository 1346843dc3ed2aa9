// row_spans_test.cpp — the rows' spans (row_spans.hpp) against brute force.
// The oracle is the threads and activations as given: level 0 must hold
// each row's exactly (the activations clipped as the timeline places them),
// and any level a frame reads must mark the same pixel columns as every
// item of the row marked one by one, keep every thread wide enough for a
// label and every pending one, and put the failure bars in the columns
// the items put them. Damaged chunks are refused with their place.
#include "recorder/store/row_spans.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "recorder/store/sqlite_database.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::TempDir;

namespace {

struct Generated {
  std::vector<RowSpanThread> threads;
  std::vector<RowSpanActivation> activations;  // by start
  TimeNs span = 0;
};

// Row 0 is busy (thousands of short threads and tens of thousands of
// activations, so it gets coarser levels); rows 1 to rows-1 hold a few
// threads each, some long, some failed, some pending.
Generated generate(std::uint32_t seed, int rows) {
  std::mt19937_64 rng(seed);
  Generated g;
  g.span = 30'000'000;
  const auto uniform = [&](TimeNs lo, TimeNs hi) {
    return std::uniform_int_distribution<TimeNs>(lo, hi)(rng);
  };
  ThreadId id = 0;
  const auto add = [&](std::int32_t row, TimeNs start, TimeNs end, int activations) {
    RowSpanThread t;
    t.id = id++;
    t.row = row;
    t.start = start;
    t.end = end;
    const int o = static_cast<int>(uniform(0, 9));
    t.outcome = o == 0   ? RowSpanOutcome::fail
                : o == 1 ? RowSpanOutcome::cancel
                         : RowSpanOutcome::ok;
    if (end == g.span && uniform(0, 1) == 0) t.outcome = RowSpanOutcome::pending;
    g.threads.push_back(t);
    for (int k = 0; k < activations; ++k) {
      const TimeNs s = uniform(start, end);
      g.activations.push_back(RowSpanActivation{t.id, s, std::min(end, s + uniform(0, 3'000))});
    }
  };
  // The busy row: short threads one after another, with gaps of all sizes,
  // a long one now and then, several running at once in places (a merge
  // chain), and activations that go back in time (clipped).
  TimeNs at = 0;
  while (at < g.span - 20'000) {
    // Most short, one in 50 of any length up to 900 us (log-uniform).
    const TimeNs length = uniform(0, 49) == 0
                              ? static_cast<TimeNs>(std::exp(std::uniform_real_distribution<double>(
                                    std::log(2'000.0), std::log(9e5))(rng)))
                              : uniform(0, 2'000);
    const TimeNs end = std::min(g.span, at + length);
    add(0, at, end, static_cast<int>(uniform(0, 8)));
    // Now and then the next one starts before this one ends.
    at = uniform(0, 19) == 0 ? uniform(at, end)
                             : end + (uniform(0, 9) == 0 ? uniform(0, 40'000) : uniform(0, 300));
  }
  add(0, uniform(0, g.span / 2), g.span, 3);
  // A pending thread created just before the end: short, yet its arrowhead
  // shows at any zoom.
  g.threads.push_back(RowSpanThread{id++, g.span - 500, g.span, 0, RowSpanOutcome::pending});
  for (std::int32_t r = 1; r < rows; ++r) {
    for (int k = static_cast<int>(uniform(1, 4)); k > 0; --k) {
      const TimeNs s = uniform(0, g.span);
      add(r, s, uniform(0, 2) == 0 ? g.span : std::min(g.span, s + uniform(0, 3'000'000)),
          static_cast<int>(uniform(0, 5)));
    }
  }
  std::stable_sort(
      g.activations.begin(), g.activations.end(),
      [](const RowSpanActivation& a, const RowSpanActivation& b) { return a.start < b.start; });
  // Times that go back: every 50th activation a little early.
  for (std::size_t i = 49; i < g.activations.size(); i += 50)
    g.activations[i].start = std::max<TimeNs>(0, g.activations[i].start - 5'000);
  // Threads given in id order, as the import gives them.
  std::shuffle(g.threads.begin(), g.threads.end(), rng);
  std::sort(g.threads.begin(), g.threads.end(),
            [](const RowSpanThread& a, const RowSpanThread& b) { return a.id < b.id; });
  return g;
}

// What each row holds at level 0, computed here as the timeline does:
// activations in the order given, each clipped to the end of the row's
// previous one; threads by start, ties in id order.
std::map<std::int32_t, std::vector<RowSpan>> exact_running(const Generated& g) {
  std::map<ThreadId, std::int32_t> row_of;
  for (const RowSpanThread& t : g.threads) row_of[t.id] = t.row;
  std::map<std::int32_t, std::vector<RowSpan>> rows;
  for (const RowSpanActivation& a : g.activations) {
    auto& row = rows[row_of.at(a.thread)];
    RowSpan s{a.start, a.end, a.thread, RowSpanKind::item, RowSpanOutcome::ok};
    if (!row.empty()) s.start = std::max(s.start, row.back().end);
    s.end = std::max(s.end, s.start);
    row.push_back(s);
  }
  return rows;
}

std::map<std::int32_t, std::vector<RowSpan>> exact_lines(const Generated& g) {
  std::map<std::int32_t, std::vector<RowSpan>> rows;
  for (const RowSpanThread& t : g.threads)
    rows[t.row].push_back(RowSpan{t.start, t.end, t.id, RowSpanKind::item, t.outcome});
  for (auto& [r, spans] : rows)
    std::stable_sort(spans.begin(), spans.end(),
                     [](const RowSpan& a, const RowSpan& b) { return a.start < b.start; });
  return rows;
}

// The painter's columns (render/timeline_painter.cpp: `column`, `mark`).
struct Frame {
  TimeNs from;
  double ns_per_px;
  int width;
  [[nodiscard]] double x(TimeNs t) const { return double(t - from) / ns_per_px; }
  [[nodiscard]] int column(double x) const {
    return static_cast<int>(std::clamp(std::floor(x), -1.0, double(width)));
  }
  void mark(std::vector<bool>& cover, TimeNs s, TimeNs e) const {
    const int c0 = std::max(0, column(x(s)));
    const int c1 = std::min(width - 1, column(x(e)));
    for (int c = c0; c <= c1; ++c) cover[static_cast<std::size_t>(c)] = true;
  }
};

std::vector<bool> coverage(const Frame& f, const std::vector<RowSpan>& spans,
                           bool lines_only_runs_and_items) {
  std::vector<bool> cover(static_cast<std::size_t>(f.width), false);
  for (const RowSpan& s : spans)
    if (!lines_only_runs_and_items || s.kind != RowSpanKind::failure) f.mark(cover, s.start, s.end);
  return cover;
}

// The painter's failure bars: the first failure in each column.
std::set<int> failure_columns(const Frame& f, std::vector<TimeNs> ends) {
  std::sort(ends.begin(), ends.end());
  std::set<int> columns;
  for (const TimeNs e : ends) {
    const double x = f.x(e);
    if (x < 0 || x >= f.width) continue;
    columns.insert(static_cast<int>(std::floor(x)));
  }
  return columns;
}

struct Store {
  TempDir dir;
  std::optional<SqliteDatabase> db;
};

void write(Store& s, const Generated& g) {
  auto db = SqliteDatabase::create_for_bulk_load(s.dir.file("r.db"));
  REQUIRE(db.ok());
  s.db.emplace(std::move(db).value());
  REQUIRE(s.db->exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value)").ok());
  REQUIRE(s.db->exec("BEGIN").ok());
  REQUIRE(write_row_spans(*s.db, build_row_spans(g.threads, g.activations, g.span), g.span).ok());
  REQUIRE(s.db->exec("COMMIT").ok());
}

RowSpanReader reader_of(SqliteDatabase& db) {
  auto r = RowSpanReader::open(db);
  REQUIRE(r.ok());
  REQUIRE(r.value().has_value());
  return std::move(*r.value());
}

}  // namespace

TEST_CASE(
    "row_span_bucket cuts the trace into 4^(12-k) buckets, and a frame reads the coarsest level "
    "within a pixel") {
  CHECK(row_span_bucket(1'000'000'000, 0) == 0);
  CHECK(row_span_bucket(1 << 24, 1) == 4);  // 4^11 buckets
  CHECK(row_span_bucket(1 << 24, 6) == (1 << 24) / 4096);
  CHECK(row_span_bucket(4097, 6) == 2);  // rounded up
  CHECK(row_span_bucket(0, 6) == 1);
  for (const TimeNs span : {TimeNs{1}, TimeNs{999}, TimeNs{1'000'000}, TimeNs{1'234'567'891'234}}) {
    for (const double p : {0.5, 1.0, 3.0, 1e3, 1e6, 1e9}) {
      const int k = row_span_level_for(span, p);
      if (k > 0) CHECK(double(row_span_bucket(span, k)) <= p);
      if (k + 1 < kRowSpanLevels) CHECK(double(row_span_bucket(span, k + 1)) > p);
    }
  }
}

TEST_CASE("Level 0 holds each row's threads and activations exactly, in chunks whose reach rises") {
  const Generated g = generate(7, 40);
  const auto chunks = build_row_spans(g.threads, g.activations, g.span);
  // Chunk invariants, per (row, layer, level).
  std::map<std::tuple<int, int, int>, std::vector<const RowSpanChunk*>> groups;
  for (const RowSpanChunk& c : chunks) groups[{c.row, int(c.layer), c.level}].push_back(&c);
  for (const auto& [key, list] : groups) {
    TimeNs reach = std::numeric_limits<TimeNs>::min();
    TimeNs start = std::numeric_limits<TimeNs>::min();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const RowSpanChunk& c = *list[i];
      CHECK(c.seq == static_cast<std::int64_t>(i));
      CHECK(c.count >= 1);
      CHECK(c.count <= static_cast<std::int64_t>(kRowSpanChunkEntries));
      std::vector<RowSpan> spans;
      REQUIRE(decode_row_span_chunk(c.spans, c.count, c.start, "r.db", "chunk", spans).ok());
      REQUIRE(spans.size() == static_cast<std::size_t>(c.count));
      CHECK(spans.front().start == c.start);
      CHECK(c.start >= start);
      start = c.start;
      for (const RowSpan& s : spans) reach = std::max(reach, s.end);
      CHECK(c.reach == reach);
    }
  }

  Store s;
  write(s, g);
  RowSpanReader reader = reader_of(*s.db);
  CHECK(reader.span() == g.span);
  const auto running = exact_running(g);
  const auto lines = exact_lines(g);
  for (std::int32_t r = 0; r < 40; ++r) {
    auto run = reader.read(r, RowSpanLayer::running, 0, g.span, 0.5);
    REQUIRE(run.ok());
    CHECK(run.value().level == 0);
    const auto it = running.find(r);
    CHECK(run.value().spans == (it == running.end() ? std::vector<RowSpan>{} : it->second));
    auto line = reader.read(r, RowSpanLayer::lines, 0, g.span, 0.5);
    REQUIRE(line.ok());
    CHECK(line.value().spans == lines.at(r));
  }
  // The busy row has coarser levels; a row of a few threads only level 0.
  auto levels = s.db->query_int("SELECT count(DISTINCT level) FROM row_spans WHERE row = 0");
  REQUIRE(levels.ok());
  CHECK(levels.value() >= 2);
  auto small = s.db->query_int("SELECT max(level) FROM row_spans WHERE row > 0");
  REQUIRE(small.ok());
  CHECK(small.value() == 0);
}

TEST_CASE(
    "Any level a frame reads marks the columns every item marks, and keeps labelled and pending "
    "threads") {
  const Generated g = generate(11, 6);
  Store s;
  write(s, g);
  RowSpanReader reader = reader_of(*s.db);
  const auto running = exact_running(g);
  const auto lines = exact_lines(g);
  std::mt19937_64 rng(3);
  int coarse_reads = 0;
  for (int trial = 0; trial < 300; ++trial) {
    // Windows of every scale (log-uniform), from 1 us to past the trace.
    const auto width_ns = static_cast<TimeNs>(std::exp(std::uniform_real_distribution<double>(
        std::log(1e3), std::log(1.1 * double(g.span)))(rng)));
    const TimeNs from =
        std::uniform_int_distribution<TimeNs>(-g.span / 20, g.span - width_ns / 2)(rng);
    const int width = std::uniform_int_distribution<int>(50, 2'000)(rng);
    const Frame f{from, double(width_ns) / width, width};
    const TimeNs to = from + width_ns;
    for (std::int32_t r = 0; r < 6; ++r) {
      INFO("trial " << trial << " row " << r << " from " << from << " to " << to << " width "
                    << width);
      auto run = reader.read(r, RowSpanLayer::running, std::max<TimeNs>(0, from), to, f.ns_per_px);
      REQUIRE(run.ok());
      if (run.value().level > 0) ++coarse_reads;
      CHECK(double(run.value().bucket) <= f.ns_per_px);
      const auto it = running.find(r);
      const std::vector<RowSpan> exact_run =
          it == running.end() ? std::vector<RowSpan>{} : it->second;
      CHECK(coverage(f, run.value().spans, false) == coverage(f, exact_run, false));

      auto line = reader.read(r, RowSpanLayer::lines, std::max<TimeNs>(0, from), to, f.ns_per_px);
      REQUIRE(line.ok());
      CHECK(coverage(f, line.value().spans, true) == coverage(f, lines.at(r), false));
      // Every thread a label fits on (36 px) and every pending one that
      // shows, whole, with its id.
      std::set<ThreadId> items;
      for (const RowSpan& sp : line.value().spans)
        if (sp.kind == RowSpanKind::item) items.insert(sp.thread);
      for (const RowSpan& t : lines.at(r)) {
        const bool shows = f.x(t.end) >= 0 && f.x(t.start) < width;
        if (shows && (f.x(t.end) - f.x(t.start) >= 36 || t.outcome == RowSpanOutcome::pending))
          CHECK(items.count(t.thread) == 1);
      }
      // Failure bars: in exactly the columns the items put them.
      std::vector<TimeNs> exact_ends, read_ends;
      for (const RowSpan& t : lines.at(r))
        if (t.outcome == RowSpanOutcome::fail) exact_ends.push_back(t.end);
      for (const RowSpan& sp : line.value().spans)
        if (sp.outcome == RowSpanOutcome::fail) read_ends.push_back(sp.end);
      CHECK(failure_columns(f, read_ends) == failure_columns(f, exact_ends));
    }
  }
  CHECK(coarse_reads > 50);
}

TEST_CASE("A frame of a whole busy row reads a bounded number of spans from a coarse level") {
  // One thread running 40,000 times for 10 ns, with gaps drawn from an
  // exponential law of mean 250 ns: each coarser bucket merges more of
  // them, so several levels are stored.
  std::mt19937_64 rng(9);
  std::exponential_distribution<double> gap(1.0 / 250);
  Generated g;
  std::vector<RowSpanActivation> activations;
  TimeNs at = 0;
  for (int k = 0; k < 40'000; ++k) {
    g.activations.push_back(RowSpanActivation{1, at, at + 10});
    at += 10 + 1 + static_cast<TimeNs>(gap(rng));
  }
  g.span = at;
  g.threads.push_back(RowSpanThread{1, 0, at, 0, RowSpanOutcome::ok});
  Store s;
  write(s, g);
  auto levels = s.db->query_int("SELECT count(DISTINCT level) FROM row_spans WHERE layer = 0");
  REQUIRE(levels.ok());
  CHECK(levels.value() >= 3);
  RowSpanReader reader = reader_of(*s.db);
  const std::vector<RowSpan> exact = exact_running(g).at(0);
  for (const int width : {400, 1'600, 4'000}) {
    const double ns_per_px = double(g.span) / width;
    auto run = reader.read(0, RowSpanLayer::running, 0, g.span, ns_per_px);
    REQUIRE(run.ok());
    INFO(width << " px: level " << run.value().level << ", " << run.value().spans.size()
               << " spans");
    CHECK(run.value().level >= 4);
    // Runs are at least a bucket apart, and the bucket read is more than a
    // quarter of a pixel, or the level holds at most kRowSpanSmallRow.
    const bool quarter = double(run.value().bucket) * 4 > ns_per_px;
    CHECK((quarter ? run.value().spans.size() <= 4 * static_cast<std::size_t>(width) + 1
                   : run.value().spans.size() <= kRowSpanSmallRow));
    const Frame f{0, ns_per_px, width};
    CHECK(coverage(f, run.value().spans, false) == coverage(f, exact, false));
  }
}

TEST_CASE("A damaged chunk of row_spans is refused naming it and the byte") {
  const Generated g = generate(1, 3);
  Store s;
  write(s, g);
  const auto read_fails = [&](const std::string& sql, const std::string& why) {
    REQUIRE(s.db->exec(sql).ok());
    RowSpanReader reader = reader_of(*s.db);
    auto r = reader.read(0, RowSpanLayer::lines, 0, g.span, 0.5);
    REQUIRE_FALSE(r.ok());
    const std::string message = r.error().to_string();
    INFO(message);
    CHECK(message.find("damaged Skein database: row_spans row (0, 1, 0, seq 0)") !=
          std::string::npos);
    CHECK(message.find(why) != std::string::npos);
  };
  SECTION("cut short") {
    read_fails(
        "UPDATE row_spans SET spans = substr(spans, 1, length(spans) - 1) WHERE row = 0 AND layer "
        "= 1 AND seq = 0",
        "end in the middle");
  }
  SECTION("a count past its bytes") {
    read_fails("UPDATE row_spans SET count = 1000000 WHERE row = 0 AND layer = 1 AND seq = 0",
               "a count of 1000000");
  }
  SECTION("bytes left over") {
    read_fails("UPDATE row_spans SET count = 1 WHERE row = 0 AND layer = 1 AND seq = 0",
               "bytes after the last");
  }
  SECTION("a time past the largest") {
    read_fails(
        "UPDATE row_spans SET spans = X'FFFFFFFFFFFFFFFF7F0000' , count = 1 WHERE row = 0 AND "
        "layer = 1 AND "
        "seq = 0",
        "past the largest time");
  }
  SECTION("a start of the wrong type") {
    read_fails("UPDATE row_spans SET start = 'x' WHERE row = 0 AND layer = 1 AND seq = 0",
               "wrong type");
  }
}

TEST_CASE("A database without row_spans, or with a table of that name not ours, gives no reader") {
  TempDir dir;
  auto db = SqliteDatabase::create_for_bulk_load(dir.file("n.db"));
  REQUIRE(db.ok());
  REQUIRE(db.value().exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value)").ok());
  auto none = RowSpanReader::open(db.value());
  REQUIRE(none.ok());
  CHECK_FALSE(none.value().has_value());
  REQUIRE(db.value()
              .exec("CREATE TABLE row_spans(row, layer, level, reach, seq, start, count, spans)")
              .ok());
  REQUIRE(db.value().exec("INSERT INTO meta VALUES ('row_spans_span', 100)").ok());
  auto other = RowSpanReader::open(db.value());
  REQUIRE(other.ok());
  CHECK_FALSE(other.value().has_value());
}

TEST_CASE("The activation log gives back each activation as added, whatever its values") {
  std::mt19937_64 rng(21);
  std::vector<RowSpanActivation> added;
  ActivationLog log;
  const std::vector<TimeNs> edges{0, 1, kMaxTime, kMaxTime - 1};
  for (int k = 0; k < 5'000; ++k) {
    RowSpanActivation a;
    a.thread = k % 97 == 0 ? std::numeric_limits<ThreadId>::max() - k : static_cast<ThreadId>(rng() % 2'000) - 1'000;
    a.start = k % 89 == 0 ? edges[static_cast<std::size_t>(k) % edges.size()]
                          : static_cast<TimeNs>(rng() % 1'000'000'000);
    // Ends before starts too: the log keeps them as given.
    a.end = k % 83 == 0 ? edges[static_cast<std::size_t>(k / 83) % edges.size()]
                        : a.start + static_cast<TimeNs>(rng() % 5'000) - 1'000;
    added.push_back(a);
    log.add(a.thread, a.start, a.end);
  }
  std::vector<RowSpanActivation> read;
  log.for_each([&](ThreadId thread, TimeNs start, TimeNs end) { read.push_back({thread, start, end}); });
  REQUIRE(read.size() == added.size());
  for (std::size_t i = 0; i < added.size(); ++i) {
    INFO(i);
    CHECK(read[i].thread == added[i].thread);
    CHECK(read[i].start == added[i].start);
    CHECK(read[i].end == added[i].end);
  }
  CHECK(log.bytes() < added.size() * 12);
}
