// model_derivation.cpp — the one-pass derivation of threads, activations,
// sites and the event block index; see
// model_derivation.hpp for the rules, numbered there and cited here.
#include "recorder/store/model_derivation.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/store_schema.hpp"
#include "recorder/store/thread_layout.hpp"

namespace skein {
namespace {

constexpr std::uint32_t kNone = 0xffffffffu;

// ThreadId -> index into the thread vector. Thread ids are looked up two or
// three times per record, so this is the derivation's hot path. Ids usually
// count up from 0 (Skein's runtime, the MirageOS traces): those index a
// vector directly, which keeps the threads of one moment in neighbouring
// memory (a hash would scatter them, a cache miss per lookup once the
// table outgrows the cache). Other ids (negative, or far beyond the thread
// count, as CTF's 64-bit ids may be) go to an open-addressing hash table,
// kept at most half full.
class ThreadIndex {
 public:
  ThreadIndex() { slots_.assign(1024, Slot{}); }

  [[nodiscard]] std::uint32_t find(ThreadId id) const {
    if (id >= 0 && static_cast<std::uint64_t>(id) < dense_.size()) {
      const std::uint32_t i = dense_[static_cast<std::size_t>(id)];
      // An id hashed before the vector reached it is in the table.
      if (i != kNone || hashed_ == 0) return i;
    }
    for (std::size_t i = hash(id) & mask();; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.index == kNone) return kNone;
      if (s.id == id) return s.index;
    }
  }

  // Adds an id known to be absent; `count` threads are known so far.
  void insert(ThreadId id, std::uint32_t index, std::size_t count) {
    // Dense while the vector stays within a few words per thread.
    if (id >= 0 && static_cast<std::uint64_t>(id) < std::min<std::uint64_t>(kDenseLimit, 4 * count + 4096)) {
      const auto at = static_cast<std::size_t>(id);
      if (at >= dense_.size()) dense_.resize(std::max(at + 1, dense_.size() * 2), kNone);
      dense_[at] = index;
      return;
    }
    if ((hashed_ + 1) * 2 > slots_.size()) grow();
    place(id, index);
    ++hashed_;
  }

 private:
  static constexpr std::uint64_t kDenseLimit = std::uint64_t{1} << 26;
  struct Slot {
    ThreadId id = 0;
    std::uint32_t index = kNone;
  };
  static std::size_t hash(ThreadId id) {
    auto x = static_cast<std::uint64_t>(id);  // splitmix64's finaliser
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return static_cast<std::size_t>(x);
  }
  [[nodiscard]] std::size_t mask() const { return slots_.size() - 1; }
  void place(ThreadId id, std::uint32_t index) {
    std::size_t i = hash(id) & mask();
    while (slots_[i].index != kNone) i = (i + 1) & mask();
    slots_[i] = Slot{id, index};
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old)
      if (s.index != kNone) place(s.id, s.index);
  }

  std::vector<std::uint32_t> dense_;
  std::vector<Slot> slots_;
  std::size_t hashed_ = 0;
};

}  // namespace

std::string_view derivation_warning_name(DerivationWarning kind) {
  switch (kind) {
    case DerivationWarning::implicit_thread: return "implicit-thread";
    case DerivationWarning::spawned_again: return "spawned-again";
    case DerivationWarning::resolved_again: return "resolved-again";
    case DerivationWarning::merge_cycle: return "merge-cycle";
    case DerivationWarning::time_backwards: return "time-backwards";
    case DerivationWarning::site_redeclared: return "site-redeclared";
  }
  return "unknown";
}

// ---------------------------------------------------------------- TextPool

struct TextPool::State {
  // Stable storage: a deque never moves its elements.
  std::deque<std::string> texts;
  std::unordered_map<std::string_view, TextId> ids;
};

TextPool::TextPool() : s_(std::make_unique<State>()) { s_->texts.emplace_back(); }
TextPool::~TextPool() = default;
TextPool::TextPool(TextPool&&) noexcept = default;
TextPool& TextPool::operator=(TextPool&&) noexcept = default;

TextId TextPool::intern(std::string_view text) {
  if (auto it = s_->ids.find(text); it != s_->ids.end()) return it->second;
  const auto id = static_cast<TextId>(s_->texts.size());
  const std::string& stored = s_->texts.emplace_back(text);
  s_->ids.emplace(std::string_view(stored), id);
  return id;
}

std::string_view TextPool::get(TextId id) const {
  return id < s_->texts.size() ? std::string_view(s_->texts[id]) : std::string_view();
}

std::size_t TextPool::size() const { return s_->texts.size() - 1; }

// ---------------------------------------------------------- ModelDerivation

struct ModelDerivation::State {
  explicit State(Locate l) : locate(std::move(l)) {}

  Locate locate;
  DerivedModel model;
  ThreadIndex index;
  std::vector<ThreadRow> threads;
  // Union-find over thread indexes for merge groups (rule 4): following
  // uf from any member leads to the group's representative.
  std::vector<std::uint32_t> uf;
  std::map<SiteId, SiteRow> sites;
  std::vector<DerivationWarningRow> warnings;
  std::uint64_t warning_count = 0;
  // Rule 6: each distinct label a thread is given after its first (thread
  // index, text), in the order first given, and the pairs seen so far.
  std::vector<std::pair<std::uint32_t, TextId>> later_labels;
  std::unordered_set<std::uint64_t> later_label_seen;

  // Rule 2: the running thread (kNone: nobody) since when, by which record,
  // as which activation.
  std::uint32_t running = kNone;
  TimeNs running_since = 0;
  EventId running_event = 0;
  std::int64_t running_activation = 0;
  std::int64_t activations_started = 0;

  EventId event = 0;  // the record being added
  TimeNs previous_time = kNoTime;

  EventBlockRow block;

  void warn(DerivationWarning kind, std::string message) {
    ++warning_count;
    ++model.warning_counts[static_cast<std::size_t>(kind)];
    if (warnings.size() >= kMaxKeptWarnings) return;
    Diagnostic d = locate ? locate() : Diagnostic{};
    d.severity = Severity::warning;
    d.message += "event " + std::to_string(event) + ": " + message;
    warnings.push_back(DerivationWarningRow{kind, event, std::move(d)});
  }

  std::uint32_t create(ThreadId id, TimeNs time) {
    const auto i = static_cast<std::uint32_t>(threads.size());
    ThreadRow t;
    t.id = id;
    t.created = time;
    t.first_event = t.last_event = event;
    threads.push_back(t);
    uf.push_back(i);
    index.insert(id, i, threads.size());
    return i;
  }

  // Rule 1: the index of a thread a record names, created implicitly when
  // unknown; kNone for the scheduler.
  std::uint32_t mention(ThreadId id, TimeNs time) {
    if (id == kScheduler) return kNone;
    std::uint32_t i = index.find(id);
    if (i != kNone) {
      threads[i].last_event = event;
      return i;
    }
    i = create(id, time);
    threads[i].implicit = true;
    if (id != kMainThread)
      warn(DerivationWarning::implicit_thread,
           "thread " + std::to_string(id) + " is named before any spawn created it: created implicitly");
    return i;
  }

  // Rule 2.
  void run(std::uint32_t actor, TimeNs time) {
    if (actor == running) return;
    close_activation(time);
    running = actor;
    if (actor == kNone) return;
    running_since = time;
    running_event = event;
    // Numbered as it starts: activations end in the order they start.
    running_activation = ++activations_started;
    ThreadRow& t = threads[actor];
    if (t.first_run == kNoTime) t.first_run = time;
    if (t.first_activation == 0) t.first_activation = running_activation;
    t.last_activation = running_activation;
    if (block.first_activation == 0) block.first_activation = running_activation;
    block.last_activation = running_activation;
  }

  void close_activation(TimeNs time) {
    if (running == kNone) return;
    ThreadRow& t = threads[running];
    const TimeNs end = std::max(time, running_since);
    model.activations.push_back(ActivationRow{running_activation, t.id, running_since, end, running_event});
    // Activations do not overlap unless time went backwards; then their
    // sum may pass any bound, and is held at the largest time.
    t.run_time = std::min(saturating_add(t.run_time, end - running_since), kMaxTime);
    running = kNone;
  }

  // The representative of i's merge group, halving the path as it goes.
  std::uint32_t group_of(std::uint32_t i) {
    while (uf[i] != i) {
      uf[i] = uf[uf[i]];
      i = uf[i];
    }
    return i;
  }

  void time_of_record(TimeNs time) {
    if (previous_time != kNoTime && time < previous_time)
      warn(DerivationWarning::time_backwards, "time goes backwards: " + std::to_string(time) +
                                                  " ns after " + std::to_string(previous_time) + " ns");
    previous_time = time;
    if (model.first_time == kNoTime) model.first_time = time;
    if (model.end_time == kNoTime || time > model.end_time) model.end_time = time;
    if (block.start == kNoTime || time < block.start) block.start = time;
    if (block.end == kNoTime || time > block.end) block.end = time;
  }

  void flush_block() {
    if (block.first_event == 0) return;
    model.blocks.push_back(block);
    block = EventBlockRow{};
  }

  void on(const SiteRecord& r) {
    if (const auto it = sites.find(r.site); it != sites.end()) {
      // Compared, not interned: a site declared again keeps nothing.
      const SiteRow& first = it->second;
      if (model.texts.get(first.file) != r.file || first.line != r.line ||
          model.texts.get(first.function) != r.function)
        warn(DerivationWarning::site_redeclared,
             "site " + std::to_string(r.site) + " declared again with other contents: the first is kept");
      return;
    }
    sites.emplace(r.site, SiteRow{r.site, model.texts.intern(r.file), r.line, model.texts.intern(r.function)});
  }

  void on(const SpawnRecord& r) {
    const std::uint32_t parent = mention(r.parent, r.time);
    run(parent, r.time);
    if (r.child == kScheduler) return;
    std::uint32_t child = index.find(r.child);
    if (child == kNone) {
      child = create(r.child, r.time);
    } else {
      threads[child].last_event = event;
      if (threads[child].spawned) {
        warn(DerivationWarning::spawned_again,
             "thread " + std::to_string(r.child) + " spawned again: the first spawn is kept");
        return;
      }
    }
    ThreadRow& t = threads[child];
    t.spawned = true;
    t.has_parent = true;
    t.parent = r.parent;
    t.kind = model.texts.intern(r.kind);
    t.has_site = r.site.has_value();
    t.site = r.site.value_or(0);
  }

  void on(const LabelRecord& r) {
    const std::uint32_t t = mention(r.thread, r.time);
    if (t == kNone) return;
    const TextId text = model.texts.intern(r.text);
    TextId& first = threads[t].label;
    if (first == kNoText) first = text;
    else if (text != first && later_label_seen.insert((std::uint64_t{t} << 32) | text).second)
      later_labels.emplace_back(t, text);
  }

  // Rule 6's rows, by thread id then position.
  std::vector<ThreadLabelRow> thread_label_rows() {
    std::stable_sort(later_labels.begin(), later_labels.end(),
                     [&](const auto& a, const auto& b) { return threads[a.first].id < threads[b.first].id; });
    std::vector<ThreadLabelRow> rows;
    rows.reserve(later_labels.size() + later_labels.size() / 2);
    for (std::size_t k = 0; k < later_labels.size(); ++k) {
      const ThreadRow& t = threads[later_labels[k].first];
      if (k == 0 || later_labels[k - 1].first != later_labels[k].first) rows.push_back({t.id, 0, t.label});
      rows.push_back({t.id, rows.back().position + 1, later_labels[k].second});
    }
    later_labels = {};
    later_label_seen = {};
    return rows;
  }

  void on(const SwitchRecord& r) { run(mention(r.thread, r.time), r.time); }
  void on(const ReturnRecord& r) { run(mention(r.thread, r.time), r.time); }
  void on(const ShouldResolveRecord& r) { mention(r.thread, r.time); }
  void on(const SnapshotRecord& r) { run(kNone, r.time); }
  // Rule 2: named, not run.
  void on(const DropRecord& r) {
    mention(r.by, r.time);
    mention(r.thread, r.time);
  }
  void on(const NoWaiterRecord& r) { mention(r.sender, r.time); }
  void on(const QueuedRecord& r) { mention(r.waiter, r.time); }

  void on(const WaitRecord& r) {
    run(mention(r.waiter, r.time), r.time);
    mention(r.input, r.time);
  }
  void on(const ReadRecord& r) {
    run(mention(r.reader, r.time), r.time);
    mention(r.input, r.time);
  }
  void on(const NotifyRecord& r) {
    run(mention(r.sender, r.time), r.time);
    mention(r.receiver, r.time);
  }

  void on(const ResolveRecord& r) {
    run(mention(r.by, r.time), r.time);
    const std::uint32_t i = mention(r.thread, r.time);
    if (i == kNone) return;
    ThreadRow& t = threads[i];
    if (t.resolved != kNoTime) {
      warn(DerivationWarning::resolved_again,
           "thread " + std::to_string(r.thread) + " resolved again (first at " + std::to_string(t.resolved) +
               " ns): the first resolution is kept");
      return;
    }
    t.resolved = r.time;
    t.resolve_event = event;
    t.outcome = r.outcome;
    t.failure = r.message ? model.texts.intern(*r.message) : kNoText;
  }

  void on(const MergeRecord& r) {
    const std::uint32_t from = mention(r.thread, r.time);
    run(from, r.time);
    const std::uint32_t into = mention(r.into, r.time);
    if (from == kNone || into == kNone) return;  // the scheduler takes no part in merges
    const std::uint32_t a = group_of(from);
    const std::uint32_t b = group_of(into);
    if (a == b) {
      warn(DerivationWarning::merge_cycle,
           "merging thread " + std::to_string(r.thread) + " into " + std::to_string(r.into) +
               " would close a cycle of merges (they are merged already): ignored");
      return;
    }
    ThreadRow& t = threads[from];
    t.merged = true;
    t.merged_into = r.into;
    uf[std::max(a, b)] = std::min(a, b);  // the older thread represents the group
  }

  // The counters table is the counter records as they are (counter_runs.hpp).
  void on(const CounterRecord&) {}
  void on(const IdleRecord& r) { run(kNone, r.time); }
  void on(const GcRecord&) {}
  // Held at INT64_MAX, the largest a meta value holds, and marked when
  // the true sum is larger.
  // (Counts are >= 0, record.hpp: a sum only overflows upwards.)
  void on(const LostRecord& r) {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(static_cast<std::int64_t>(model.lost_records), r.count, &sum)) {
      sum = std::numeric_limits<std::int64_t>::max();
      model.lost_records_saturated = true;
    }
    model.lost_records = static_cast<std::uint64_t>(sum);
  }
  void on(const EndRecord& r) {
    run(kNone, r.time);
    model.ended = true;
  }

  // Rule 4: a thread without its own resolution takes its merge group's,
  // the group's first resolve record (by event).
  void settle_merged_threads() {
    std::vector<std::uint32_t> first(threads.size(), kNone);  // per representative
    for (std::uint32_t i = 0; i < threads.size(); ++i) {
      if (threads[i].resolved == kNoTime) continue;
      std::uint32_t& f = first[group_of(i)];
      if (f == kNone || threads[i].resolve_event < threads[f].resolve_event) f = i;
    }
    for (std::uint32_t i = 0; i < threads.size(); ++i) {
      ThreadRow& t = threads[i];
      if (t.resolved != kNoTime) continue;
      const std::uint32_t f = first[group_of(i)];
      if (f == kNone) continue;
      const ThreadRow& by = threads[f];
      t.resolved = by.resolved;
      t.resolve_event = by.resolve_event;
      t.outcome = by.outcome;
      t.failure = by.failure;
      t.resolved_by_group = true;
    }
  }
};

ModelDerivation::ModelDerivation(Locate locate) : s_(std::make_unique<State>(std::move(locate))) {}
ModelDerivation::~ModelDerivation() = default;

void ModelDerivation::add(const Record& record) {
  State& s = *s_;
  const EventId e = ++s.event;
  ++s.model.records;
  ++s.model.records_per_head[record.index()];
  if ((e - 1) % kEventBlockSize == 0) {
    s.flush_block();
    s.block.id = event_block_of(e);
    s.block.first_event = e;
  }
  s.block.last_event = e;
  if (const auto time = time_of(record)) s.time_of_record(*time);
  if (const auto* gc = std::get_if<GcRecord>(&record)) s.model.longest_gc = std::max(s.model.longest_gc, gc->duration);
  std::visit([&](const auto& r) { s.on(r); }, record);
}

std::uint64_t ModelDerivation::records() const { return s_->model.records; }

void ModelDerivation::take_activations(std::vector<ActivationRow>& into) {
  std::vector<ActivationRow>& a = s_->model.activations;
  into.insert(into.end(), a.begin(), a.end());
  a.clear();
}
void ModelDerivation::take_blocks(std::vector<EventBlockRow>& into) {
  std::vector<EventBlockRow>& b = s_->model.blocks;
  into.insert(into.end(), b.begin(), b.end());
  b.clear();
}
std::uint64_t ModelDerivation::warning_count() const { return s_->warning_count; }
const std::vector<DerivationWarningRow>& ModelDerivation::warnings() const { return s_->warnings; }

namespace {

// What the layout reads of each thread, as the viewer reads it from the
// threads table: the parent, the creation, the end (the resolution, or the
// trace's end while pending), the merge, and whether its first label is a
// non-empty text.
std::vector<LayoutThread> layout_input(const DerivedModel& m) {
  const TimeNs trace_end = m.end_time != kNoTime ? m.end_time : m.first_time != kNoTime ? m.first_time : 0;
  std::vector<LayoutThread> input;
  input.reserve(m.threads.size());
  for (const ThreadRow& t : m.threads) {
    LayoutThread l;
    l.id = t.id;
    if (t.has_parent) l.parent = t.parent;
    l.start = t.created;
    l.end = std::max(t.created, t.resolved != kNoTime ? t.resolved : trace_end);
    if (t.merged) l.merged_into = t.merged_into;
    l.labelled = t.label != kNoText && !m.text(t.label).empty();
    input.push_back(l);
  }
  return input;
}

}  // namespace

DerivedModel ModelDerivation::finish(std::size_t span_node_bytes) {
  DerivedModel m = finish_threads();
  place_threads(m, span_node_bytes);
  return m;
}

DerivedModel ModelDerivation::finish_threads() {
  State& s = *s_;
  s.close_activation(s.model.end_time == kNoTime ? 0 : s.model.end_time);
  s.flush_block();
  s.settle_merged_threads();

  DerivedModel& m = s.model;
  m.thread_labels = s.thread_label_rows();
  m.threads = std::move(s.threads);
  // Threads are usually created in the order of their ids: then there is
  // nothing to sort (and sorting a million rows is not free on this, the
  // import's critical path).
  const auto by_id = [](const ThreadRow& a, const ThreadRow& b) { return a.id < b.id; };
  if (!std::is_sorted(m.threads.begin(), m.threads.end(), by_id))
    std::sort(m.threads.begin(), m.threads.end(), by_id);
  // Activations were closed in the order they started, blocks in the order
  // of their events: by id already.
  m.sites.reserve(s.sites.size());
  for (const auto& [id, row] : s.sites) m.sites.push_back(row);
  return std::move(s.model);
}

void place_threads(DerivedModel& m, std::size_t span_node_bytes) {
  // The spans, for window queries. A trace whose time goes backwards may
  // resolve a thread before it creates it: the span is then the other way.
  std::vector<RtreeEntry> spans;
  spans.reserve(m.threads.size());
  for (const ThreadRow& t : m.threads) {
    const TimeNs end = t.resolved != kNoTime ? t.resolved : std::max(m.end_time, t.created);
    spans.push_back(RtreeEntry{t.id, static_cast<double>(std::min(t.created, end)),
                               static_cast<double>(std::max(t.created, end))});
  }
  auto packed = pack_rtree(std::move(spans), span_node_bytes);
  // Thread ids are unique and node sizes come from rtree_node_bytes: packing
  // cannot fail; if it did, the writer reports the size mismatch.
  if (packed) m.thread_spans = std::move(packed).value();
  m.layout_rows = layout_threads(layout_input(m)).rows;
}

}  // namespace skein
