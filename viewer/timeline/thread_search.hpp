// thread_search.hpp — the viewer's Ctrl+F: find threads by label, kind,
// creation site (file, "file:line" or function) or id, by substring or
// regular expression, and step through the matches. Plain code over
// TimelineData; no Qt.
//
// Fast on a million threads: labels and kinds are interned (TimelineData's
// `strings`) and sites are few, so a query tests each distinct label or
// kind string and each site ONCE, then one sequential pass over the
// threads looks their strings' verdicts up and marks the matches in a
// bitmap indexed by (start, id) rank (an order computed once per trace),
// read out in order. A query therefore costs O(distinct strings * match +
// threads), never a regex per thread, and needs no sort.
//
// Rules:
//   - substring matching ignores ASCII case unless case_sensitive; a
//     regular expression is ECMAScript (std::regex), searched anywhere in
//     the string, also ignoring case unless case_sensitive;
//   - a thread with several labels matches by any of them (all of
//     TimelineData::labels_of, not only the few its row shows), each
//     tested once per query, once they are read (label_lists);
//   - an id matches when the whole query (spaces trimmed, an optional
//     leading '#') is that decimal number, in both modes;
//   - an empty query matches nothing; an invalid regular expression matches
//     nothing and gives a message in `error` (nothing throws out);
//   - matches are thread indexes sorted by (start, id).
// Stepping (ThreadSearch): next() after a new query goes to the first
// match, previous() to the last; both wrap around the ends.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "viewer/timeline/timeline_data.hpp"

namespace skein {

enum ThreadSearchField : unsigned {
  kSearchLabel = 1u << 0,
  kSearchKind = 1u << 1,
  kSearchSite = 1u << 2,
  kSearchId = 1u << 3,
  kSearchAllFields = kSearchLabel | kSearchKind | kSearchSite | kSearchId,
};

struct ThreadSearchQuery {
  std::string text;
  bool regex = false;
  bool case_sensitive = false;
  unsigned fields = kSearchAllFields;
};

struct ThreadSearchResult {
  std::vector<std::uint32_t> matches;  // thread indexes, by (start, id)
  std::string error;                   // non-empty: the query is not a valid regular expression
};

// What a trace's searches share: the threads in (start, id) order and the
// strings used as labels or kinds. `data` must outlive the index.
class ThreadSearchIndex {
 public:
  explicit ThreadSearchIndex(const TimelineData& data);
  [[nodiscard]] ThreadSearchResult search(const ThreadSearchQuery& query) const;
  [[nodiscard]] const TimelineData& data() const { return *data_; }

 private:
  const TimelineData* data_;
  std::vector<std::uint32_t> by_start_;     // thread indexes by (start, id)
  std::vector<std::uint32_t> rank_;         // per thread index, its position in by_start_
  std::vector<std::uint32_t> name_strings_;  // distinct indexes into strings used as a label or kind
};

// One search over `data` (builds an index: for repeated searches keep a
// ThreadSearchIndex or a ThreadSearch).
[[nodiscard]] ThreadSearchResult search_threads(const TimelineData& data, const ThreadSearchQuery& query);

// The position after (direction > 0) or before `current` among `count`
// matches, wrapping; from no current position, the first or the last;
// nullopt when count is 0.
[[nodiscard]] std::optional<std::size_t> step_match(std::size_t count, std::optional<std::size_t> current,
                                                    int direction);

// A search with a current match: what the search bar drives.
class ThreadSearch {
 public:
  // Rebuilds the index (nullptr: no trace); clears the results.
  void set_data(const TimelineData* data);
  // Runs `query`; the current match is cleared.
  const ThreadSearchResult& run(const ThreadSearchQuery& query);
  void clear();

  [[nodiscard]] const std::vector<std::uint32_t>& matches() const { return result_.matches; }
  [[nodiscard]] const std::string& error() const { return result_.error; }
  // The current match's position in matches(), and its thread index.
  [[nodiscard]] std::optional<std::size_t> current() const { return current_; }
  [[nodiscard]] std::optional<std::uint32_t> current_thread() const;
  // Steps, wrapping; returns the new current thread (nullopt: no matches).
  std::optional<std::uint32_t> next();
  std::optional<std::uint32_t> previous();

 private:
  std::optional<ThreadSearchIndex> index_;
  ThreadSearchResult result_;
  std::optional<std::size_t> current_;
};

}  // namespace skein
