// thread_search_test.cpp — Ctrl+F's core on a hand-built trace: substring
// (ignoring case) and regular expression over labels, kinds and sites
// (file, file:line, function), ids, the (start, id) order of the results,
// the field selection, stepping with wrap-around, and an invalid regular
// expression reported as a message.
#include <catch2/catch.hpp>

#include "tests/viewer/timeline_from_text.hpp"
#include "viewer/timeline/thread_search.hpp"

using namespace skein;

namespace {

// Starts (the order of results): 0 and 1 at 100, 20 at 150, 2 at 200,
// 3 at 300, 12 at 400.
const char* const kTrace = R"((skein-trace 1 (process "search"))
(site 0 "src/net/tcp.cpp" 88 "tcp_read")
(site 1 "src/disk/blk.cpp" 7 "blk_poll")
(spawn 100 1 0 task 0)
(label 100 1 "TCP.read")
(spawn 150 20 0 io)
(label 150 20 "tcp.accept")
(spawn 200 2 0 bind 1)
(label 200 2 "blkfront.poll")
(spawn 300 3 0 map)
(label 300 3 "tcp.write")
(spawn 400 12 0 task 1)
(label 400 12 "Timer 12")
(end 1000)
)";

struct Loaded {
  test::TempDir dir;
  std::shared_ptr<const TimelineData> data;
  Loaded() {
    std::string error;
    data = test::timeline_from_text(kTrace, dir, &error);
    INFO(error);
    REQUIRE(data);
  }
  [[nodiscard]] std::vector<ThreadId> ids(const std::vector<std::uint32_t>& indexes) const {
    std::vector<ThreadId> out;
    for (std::uint32_t i : indexes) out.push_back(data->threads[i].id);
    return out;
  }
  [[nodiscard]] std::vector<ThreadId> find(const std::string& text, bool regex = false,
                                           unsigned fields = kSearchAllFields) const {
    ThreadSearchQuery q;
    q.text = text;
    q.regex = regex;
    q.fields = fields;
    const ThreadSearchResult r = search_threads(*data, q);
    INFO(r.error);
    CHECK(r.error.empty());
    return ids(r.matches);
  }
};

using Ids = std::vector<ThreadId>;

}  // namespace

TEST_CASE("search: substring ignores case, results by (start, id)", "[search]") {
  Loaded l;
  // Labels TCP.read, tcp.accept, tcp.write; site tcp.cpp (thread 1 only).
  CHECK(l.find("tcp") == Ids{1, 20, 3});
  CHECK(l.find("TCP") == Ids{1, 20, 3});
  CHECK(l.find("  tcp.w") == Ids{});  // spaces are part of a substring
  CHECK(l.find("tcp.w") == Ids{3});
  CHECK(l.find("bind") == Ids{2});        // a kind
  CHECK(l.find("task") == Ids{1, 12});    // thread 0 has no kind
  CHECK(l.find("zzz") == Ids{});
  CHECK(l.find("") == Ids{});
  CHECK(l.find("   ") == Ids{});
}

TEST_CASE("search: sites by file, file:line and function", "[search]") {
  Loaded l;
  CHECK(l.find("blk.cpp") == Ids{2, 12});
  CHECK(l.find("blk.cpp:7") == Ids{2, 12});
  CHECK(l.find("tcp.cpp:88") == Ids{1});
  CHECK(l.find("blk_poll") == Ids{2, 12});
  CHECK(l.find("src/disk") == Ids{2, 12});
}

TEST_CASE("search: ids, with or without '#'", "[search]") {
  Loaded l;
  CHECK(l.find("3") == Ids{3});
  CHECK(l.find("#3") == Ids{3});
  CHECK(l.find(" 20 ") == Ids{20});
  // "12": the id and the label "Timer 12" name the same thread.
  CHECK(l.find("12") == Ids{12});
  // "0": the id 0 only (no label, kind or site holds a 0).
  CHECK(l.find("0") == Ids{0});
  CHECK(l.find("99") == Ids{});
  // The id field alone.
  CHECK(l.find("1", false, kSearchId) == Ids{1});
}

TEST_CASE("search: regular expressions", "[search]") {
  Loaded l;
  CHECK(l.find("^tcp\\.(read|write)$", true) == Ids{1, 3});
  CHECK(l.find("poll$", true) == Ids{2, 12});  // a label and a site function
  CHECK(l.find("^Timer [0-9]+$", true) == Ids{12});
  CHECK(l.find("blk\\.cpp:7$", true) == Ids{2, 12});
  CHECK(l.find("3", true) == Ids{3});  // a number is also an id in regex mode
}

TEST_CASE("search: the fields to look in", "[search]") {
  Loaded l;
  CHECK(l.find("tcp", false, kSearchLabel) == Ids{1, 20, 3});
  CHECK(l.find("tcp", false, kSearchSite) == Ids{1});
  CHECK(l.find("io", false, kSearchKind) == Ids{20});
  CHECK(l.find("blk", false, kSearchLabel | kSearchKind) == Ids{2});
}

TEST_CASE("search: case-sensitive on request", "[search]") {
  Loaded l;
  ThreadSearchQuery q;
  q.text = "TCP";
  q.case_sensitive = true;
  CHECK(l.ids(search_threads(*l.data, q).matches) == Ids{1});
  q.text = "^tcp\\.";  // not the function tcp_read
  q.regex = true;
  CHECK(l.ids(search_threads(*l.data, q).matches) == Ids{20, 3});
}

TEST_CASE("search: an invalid regular expression is a message, not an exception", "[search]") {
  Loaded l;
  ThreadSearchQuery q;
  q.text = "tcp(";
  q.regex = true;
  ThreadSearchResult r;
  REQUIRE_NOTHROW(r = search_threads(*l.data, q));
  CHECK(r.matches.empty());
  CHECK(r.error.rfind("invalid regular expression: ", 0) == 0);
  CHECK(r.error.size() > std::string("invalid regular expression: ").size());
  // The same text as a substring is fine.
  q.regex = false;
  CHECK(search_threads(*l.data, q).error.empty());
}

TEST_CASE("search: next and previous step through the matches and wrap", "[search]") {
  Loaded l;
  ThreadSearch s;
  // Before any data or query: nothing to step to.
  CHECK_FALSE(s.next());
  s.set_data(l.data.get());
  ThreadSearchQuery q;
  q.text = "tcp";
  s.run(q);
  REQUIRE(l.ids(s.matches()) == Ids{1, 20, 3});
  CHECK_FALSE(s.current());
  const auto id = [&](std::optional<std::uint32_t> i) { return i ? l.data->threads[*i].id : ThreadId(-100); };
  CHECK(id(s.next()) == 1);
  CHECK(s.current() == 0u);
  CHECK(id(s.next()) == 20);
  CHECK(id(s.next()) == 3);
  CHECK(id(s.next()) == 1);  // wraps to the first
  CHECK(id(s.previous()) == 3);  // and back to the last
  CHECK(id(s.previous()) == 20);
  CHECK(id(s.current_thread()) == 20);
  // A new query clears the current match; previous() starts at the last.
  q.text = "blk";
  s.run(q);
  CHECK_FALSE(s.current_thread());
  CHECK(id(s.previous()) == 12);
  CHECK(id(s.previous()) == 2);
  CHECK(id(s.previous()) == 12);
  // No matches: nothing, no crash.
  q.text = "nothing";
  s.run(q);
  CHECK_FALSE(s.next());
  CHECK_FALSE(s.previous());
  s.set_data(nullptr);
  CHECK(s.matches().empty());
}

TEST_CASE("search: step_match arithmetic", "[search]") {
  CHECK_FALSE(step_match(0, std::nullopt, 1));
  CHECK_FALSE(step_match(0, 0, -1));
  CHECK(step_match(3, std::nullopt, 1) == 0u);
  CHECK(step_match(3, std::nullopt, -1) == 2u);
  CHECK(step_match(3, 2, 1) == 0u);
  CHECK(step_match(3, 0, -1) == 2u);
  CHECK(step_match(3, 1, 1) == 2u);
  CHECK(step_match(3, 7, 1) == 0u);  // out of range: restart
}
