// thread_search.cpp — the index keeps the (start, id) order (the identity
// when starts already grow with ids, else one sort), its inverse rank, and
// the interned strings in use as a label or kind. search() builds one
// matcher (std::regex, or a substring search over ASCII-lowercased
// copies), tests each such string and each site (function, file,
// "file:line") once, then passes over the threads in id order, setting a
// bitmap by rank, and reads it out in rank order. A regex that fails to
// compile or to search ends the query with a message, never an exception.
#include "viewer/timeline/thread_search.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <regex>

namespace skein {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The id the query names: the whole (trimmed) text, an optional '#', digits.
std::optional<ThreadId> query_id(std::string_view text) {
  text = trimmed(text);
  if (!text.empty() && text.front() == '#') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  ThreadId id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return id;
}

}  // namespace

ThreadSearchIndex::ThreadSearchIndex(const TimelineData& data) : data_(&data) {
  const std::size_t n = data.threads.size();
  by_start_.resize(n);
  rank_.resize(n);
  // Threads are sorted by id, so (start, index) gives (start, id). Usually
  // ids grow with time and this is the identity: checked first.
  const bool sorted = std::is_sorted(data.threads.begin(), data.threads.end(),
                                     [](const TimelineThread& a, const TimelineThread& b) { return a.start < b.start; });
  if (sorted) {
    for (std::size_t i = 0; i < n; ++i) by_start_[i] = static_cast<std::uint32_t>(i);
  } else {
    std::vector<std::pair<TimeNs, std::uint32_t>> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = {data.threads[i].start, static_cast<std::uint32_t>(i)};
    std::sort(keys.begin(), keys.end());
    for (std::size_t p = 0; p < n; ++p) by_start_[p] = keys[p].second;
  }
  for (std::size_t p = 0; p < n; ++p) rank_[by_start_[p]] = static_cast<std::uint32_t>(p);
  std::vector<bool> used(data.strings.size(), false);
  for (const TimelineThread& t : data.threads) {
    if (t.label < used.size()) used[t.label] = true;
    if (t.kind < used.size()) used[t.kind] = true;
  }
  for (std::size_t s = 1; s < used.size(); ++s)
    if (used[s]) name_strings_.push_back(static_cast<std::uint32_t>(s));
}

ThreadSearchResult ThreadSearchIndex::search(const ThreadSearchQuery& query) const {
  ThreadSearchResult result;
  if (trimmed(query.text).empty()) return result;
  const TimelineData& data = *data_;

  // The one matcher, substring or regex.
  std::function<bool(std::string_view)> matches;
  std::optional<std::regex> re;
  std::string needle;
  if (query.regex) {
    try {
      auto flags = std::regex::ECMAScript | std::regex::optimize;
      if (!query.case_sensitive) flags |= std::regex::icase;
      re.emplace(query.text, flags);
    } catch (const std::regex_error& e) {
      result.error = std::string("invalid regular expression: ") + e.what();
      return result;
    }
    matches = [&](std::string_view s) { return std::regex_search(s.begin(), s.end(), *re); };
  } else {
    needle = query.case_sensitive ? query.text : lowered(query.text);
    matches = [&](std::string_view s) {
      if (query.case_sensitive) return s.find(needle) != std::string_view::npos;
      return lowered(s).find(needle) != std::string::npos;
    };
  }

  // Each distinct string and site once. regex_search may throw on
  // pathological patterns (error_complexity, error_stack): that is an error
  // message too.
  std::vector<bool> string_matches(data.strings.size(), false);
  std::vector<std::int64_t> site_matches;  // matching site ids, sorted (sites are by id)
  try {
    if (query.fields & (kSearchLabel | kSearchKind))
      for (std::uint32_t s : name_strings_) string_matches[s] = matches(data.strings[s]);
    if (query.fields & kSearchSite)
      for (const StoredSite& site : data.sites)
        if (matches(site.function) || matches(site.file) ||
            matches(site.file + ":" + std::to_string(site.line)))
          site_matches.push_back(site.id);
  } catch (const std::regex_error& e) {
    result.error = std::string("regular expression too complex: ") + e.what();
    return result;
  }
  std::sort(site_matches.begin(), site_matches.end());
  const std::optional<ThreadId> id = (query.fields & kSearchId) ? query_id(query.text) : std::nullopt;
  const bool by_label = (query.fields & kSearchLabel) != 0;
  const bool by_kind = (query.fields & kSearchKind) != 0;

  // The threads in id order (sequential reads), marking their positions in
  // (start, id) order in a bitmap (n / 8 bytes: cache-resident), then the
  // bitmap in order: no random reads of threads, no sort.
  std::vector<bool> hit(data.threads.size(), false);
  std::size_t count = 0;
  // A thread with several labels matches by any of them.
  // (read after the first frame in skein-view: until then, by its row's).
  if (by_label && data.label_lists) try {
      for (const auto& [thread_id, labels] : *data.label_lists) {
        const auto i = data.thread_index(thread_id);
        if (!i || hit[rank_[*i]]) continue;
        for (const std::string& l : labels)
          if (matches(l)) {
            hit[rank_[*i]] = true;
            ++count;
            break;
          }
      }
    } catch (const std::regex_error& e) {
      result.error = std::string("regular expression too complex: ") + e.what();
      return result;
    }
  for (std::size_t i = 0; i < data.threads.size(); ++i) {
    const TimelineThread& t = data.threads[i];
    const bool match = (by_label && t.label < string_matches.size() && string_matches[t.label]) ||
                       (by_kind && t.kind < string_matches.size() && string_matches[t.kind]) ||
                       (id && t.id == *id) ||
                       (!site_matches.empty() && t.site >= 0 &&
                        std::binary_search(site_matches.begin(), site_matches.end(), t.site));
    if (match && !hit[rank_[i]]) {
      hit[rank_[i]] = true;
      ++count;
    }
  }
  result.matches.reserve(count);
  for (std::size_t p = 0; p < hit.size() && result.matches.size() < count; ++p)
    if (hit[p]) result.matches.push_back(by_start_[p]);
  return result;
}

ThreadSearchResult search_threads(const TimelineData& data, const ThreadSearchQuery& query) {
  return ThreadSearchIndex(data).search(query);
}

std::optional<std::size_t> step_match(std::size_t count, std::optional<std::size_t> current, int direction) {
  if (count == 0) return std::nullopt;
  if (!current || *current >= count) return direction >= 0 ? 0 : count - 1;
  if (direction >= 0) return (*current + 1) % count;
  return *current == 0 ? count - 1 : *current - 1;
}

void ThreadSearch::set_data(const TimelineData* data) {
  index_.reset();
  if (data) index_.emplace(*data);
  clear();
}

const ThreadSearchResult& ThreadSearch::run(const ThreadSearchQuery& query) {
  current_.reset();
  result_ = index_ ? index_->search(query) : ThreadSearchResult{};
  return result_;
}

void ThreadSearch::clear() {
  result_ = {};
  current_.reset();
}

std::optional<std::uint32_t> ThreadSearch::current_thread() const {
  if (!current_) return std::nullopt;
  return result_.matches[*current_];
}

std::optional<std::uint32_t> ThreadSearch::next() {
  current_ = step_match(result_.matches.size(), current_, +1);
  return current_thread();
}

std::optional<std::uint32_t> ThreadSearch::previous() {
  current_ = step_match(result_.matches.size(), current_, -1);
  return current_thread();
}

}  // namespace skein
