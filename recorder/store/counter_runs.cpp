// counter_runs.cpp — gathering and sorting the counters table's rows; see
// counter_runs.hpp.
#include "recorder/store/counter_runs.hpp"

#include <algorithm>
#include <utility>

namespace skein {
namespace {

// What the pool spends on a name besides its text: the string, its slot in
// the deque and its hash entry, about.
constexpr std::size_t kNameOverheadBytes = 96;

}  // namespace

CounterRuns::CounterRuns(std::size_t max_bytes)
    : max_bytes_(max_bytes), run_(std::make_unique<CounterRun>()) {}

void CounterRuns::add(std::string_view name, TimeNs time, std::int64_t value, EventId event) {
  if (!run_->rows.empty() && (run_->rows.size() + 1) * sizeof(CounterRow) + text_bytes_ > max_bytes_)
    full_.push_back(take_sorted());
  const std::size_t names_before = run_->names.size();
  const TextId id = run_->names.intern(name);
  if (run_->names.size() != names_before) text_bytes_ += name.size() + kNameOverheadBytes;
  run_->rows.push_back(CounterRow{id, time, value, event});
  if (auto it = ranges_.find(name); it != ranges_.end()) {
    it->second.first = std::min(it->second.first, value);
    it->second.second = std::max(it->second.second, value);
  } else {
    ranges_.emplace(std::string(name), std::make_pair(value, value));
  }
}

std::vector<CounterRange> CounterRuns::ranges() const {
  std::vector<CounterRange> out;
  for (const auto& [name, range] : ranges_) out.push_back(CounterRange{name, range.first, range.second});
  return out;
}

std::vector<std::unique_ptr<CounterRun>> CounterRuns::take_full() { return std::exchange(full_, {}); }

std::vector<std::unique_ptr<CounterRun>> CounterRuns::finish() {
  std::vector<std::unique_ptr<CounterRun>> runs = take_full();
  runs.push_back(take_sorted());
  return runs;
}

std::unique_ptr<CounterRun> CounterRuns::take_sorted() {
  std::unique_ptr<CounterRun> run = std::exchange(run_, std::make_unique<CounterRun>());
  text_bytes_ = 0;
  const TextPool& names = run->names;
  std::sort(run->rows.begin(), run->rows.end(), [&names](const CounterRow& a, const CounterRow& b) {
    if (a.name != b.name) return names.get(a.name) < names.get(b.name);
    if (a.time != b.time) return a.time < b.time;
    if (a.value != b.value) return a.value < b.value;
    return a.event < b.event;
  });
  return run;
}

}  // namespace skein
