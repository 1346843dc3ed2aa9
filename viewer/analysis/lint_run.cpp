// lint_run.cpp — the lint pass, plus the helpers lint_rule.hpp declares
// (rule factory, phrases, header semantics). Rules are sorted and deduped;
// each event goes only to the rules that observe its head, and the replay
// runs only when a rule observes transfers or they are kept, its verdicts
// reaching those rules right after the event that settled them. A rule's
// findings go to its group as they come (kept, or spooled); at the end the
// groups are stable-sorted by group severity, and their findings numbered
// from 1 (spooled ones as they are read back). lint_store() reads the facts from the heads and meta tables and
// the events from a prefetch thread; lint_events() derives them in a scan.
#include "viewer/analysis/lint_run.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>

#include "viewer/analysis/rules/blocking_activation.hpp"
#include "viewer/analysis/rules/late_notify.hpp"
#include "viewer/analysis/rules/lost_records.hpp"
#include "viewer/analysis/rules/missing_notification.hpp"
#include "viewer/analysis/rules/pending_at_end.hpp"
#include "viewer/analysis/rules/self_wake.hpp"
#include "viewer/analysis/trace_event_prefetch.hpp"
#include "viewer/analysis/transfer_table.hpp"
#include "viewer/analysis/rules/unread_failure.hpp"

namespace skein {

std::unique_ptr<LintRule> make_lint_rule(LintRuleId rule, const LintSettings& settings) {
  switch (rule) {
    case LintRuleId::missing_notification: return make_missing_notification_rule();
    case LintRuleId::unread_failure: return make_unread_failure_rule();
    case LintRuleId::pending_at_end: return make_pending_at_end_rule(settings);
    case LintRuleId::late_notify: return make_late_notify_rule();
    case LintRuleId::blocking_activation: return make_blocking_activation_rule(settings);
    case LintRuleId::self_wake: return make_self_wake_rule(settings);
    case LintRuleId::lost_records: return make_lost_records_rule();
  }
  return nullptr;
}

std::string thread_phrase(ThreadId t) {
  if (t == kScheduler) return "the scheduler";
  if (t == kNoThread) return "nobody";
  return "thread " + std::to_string(t);
}

std::string time_phrase(TimeNs t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6f ms", static_cast<double>(t) / 1e6);
  return buf;
}

TraceSemantics semantics_from_header(const std::string* scheduler_thread, const std::string* source_format) {
  TraceSemantics s;
  if (scheduler_thread != nullptr) {
    ThreadId id = 0;
    const char* first = scheduler_thread->data();
    const char* last = first + scheduler_thread->size();
    if (auto [end, ec] = std::from_chars(first, last, id); ec == std::errc{} && end == last && id >= kScheduler)
      s.scheduler_thread = id;
  }
  if (source_format != nullptr && (*source_format == "mirage-sexp" || *source_format == "mirage-ctf"))
    s.reads_are_of_resolved = false;
  return s;
}

namespace {

constexpr std::string_view kLintCancelled = "the lint was cancelled";

using LeftOut = std::map<std::int64_t, std::array<std::uint64_t, kLintRuleCount>>;

// A rule's findings as it hands them on: kept as they are when the report
// holds them in memory, else spooled; except those that rest on a `lost`
// gap, which are left out and counted for the gap's note
// (rules/lost_records.hpp). And the group's severity, its most severe
// finding's.
class RuleGroup final : public FindingSink {
 public:
  RuleGroup(LeftOut& left_out, bool in_memory, std::size_t segment_bytes)
      : spool(segment_bytes), in_memory_(in_memory), left_out_(left_out) {}
  void add(LintFinding&& f) override {
    if (f.gap != 0) {
      ++left_out_[f.gap][static_cast<std::size_t>(f.rule)];
      return;
    }
    worst = std::min(worst, f.severity);
    if (in_memory_) kept.push_back(std::move(f));
    else spool.add(f);
  }
  [[nodiscard]] std::uint64_t size() const { return in_memory_ ? kept.size() : spool.size(); }

  std::vector<LintFinding> kept;
  FindingSpool spool;
  LintSeverity worst = LintSeverity::note;

 private:
  bool in_memory_;
  LeftOut& left_out_;
};

// The note of a `lost` record, told how many findings rest on it.
void note_left_out(LintFinding& note, const LeftOut& left_out) {
  const auto it = note.event ? left_out.find(*note.event) : left_out.end();
  if (it == left_out.end()) return;
  std::string parts;
  std::uint64_t total = 0;
  std::size_t kinds = 0;
  for (const LintRuleId r : all_lint_rules()) kinds += it->second[static_cast<std::size_t>(r)] != 0 ? 1 : 0;
  std::size_t k = 0;
  for (const LintRuleId r : all_lint_rules()) {
    const std::uint64_t n = it->second[static_cast<std::size_t>(r)];
    if (n == 0) continue;
    total += n;
    parts += k == 0 ? "" : (k + 1 == kinds ? " and " : ", ");
    parts += std::to_string(n) + " " + std::string(lint_rule_name(r));
    ++k;
  }
  note.message += "; " + parts + (total == 1 ? " finding that depends on it is" : " findings that depend on it are") +
                  " left out";
}

Status for_each_spooled(const SpooledFindings& spooled, const std::function<bool(const LintFinding&)>& visit) {
  std::uint32_t number = 0;
  bool go_on = true;
  for (const FindingSpool& group : spooled.groups) {
    Status s = group.for_each([&](LintFinding& f) {
      f.number = ++number;
      if (f.rule == LintRuleId::lost_records) note_left_out(f, spooled.left_out);
      go_on = visit(f);
      return go_on;
    });
    if (!s.ok() || !go_on) return s;
  }
  return {};
}

// One pass: each event goes to the rules that observe its head, and the
// replay's verdicts reach the rules right after the event that settled them.
class LintPass {
 public:
  LintPass(const LintOptions& options, CausalityReplayOptions replay, std::optional<MergeGroups> keys = std::nullopt)
      : replay_(replay),
        keep_transfers_(options.keep_transfers),
        in_memory_(options.findings_in_memory),
        keys_(std::move(keys)) {
    std::vector<LintRuleId> rules = options.rules.empty()
                                        ? std::vector<LintRuleId>(all_lint_rules().begin(), all_lint_rules().end())
                                        : options.rules;
    std::sort(rules.begin(), rules.end());
    rules.erase(std::unique(rules.begin(), rules.end()), rules.end());
    for (const LintRuleId r : rules) {
      report_.rules.push_back(r);
      rules_.push_back(make_lint_rule(r, options.settings));
      groups_.push_back(std::make_unique<RuleGroup>(left_out_, in_memory_, options.spool_segment_bytes));
      LintRule* rule = rules_.back().get();
      rule->attach(*groups_.back());
      for (std::size_t h = 0; h < kRecordHeadCount; ++h)
        if ((rule->observed_heads() & (1u << h)) != 0) by_head_[h].push_back(rule);
      if (rule->observes_transfers()) transfer_rules_.push_back(rule);
    }
  }
  void feed(const TraceEvent& e) {
    for (LintRule* r : by_head_[static_cast<std::size_t>(e.head)]) r->observe(e);
    if (transfer_rules_.empty() && !keep_transfers_) return;
    verdicts_.clear();
    replay_.step(e, verdicts_);
    for (const auto& v : verdicts_)
      for (LintRule* r : transfer_rules_) r->observe_transfer(v);
    if (keep_transfers_) keep(verdicts_);
  }

  LintReport finish(const LintTraceEnd& end) {
    if (!transfer_rules_.empty() || keep_transfers_) {
      verdicts_.clear();
      replay_.finish(verdicts_);
      for (const auto& v : verdicts_)
        for (LintRule* r : transfer_rules_) r->observe_transfer(v);
      if (keep_transfers_) keep(verdicts_);
    }
    std::vector<LintFinding> at_end;
    for (std::size_t i = 0; i < rules_.size(); ++i) {
      at_end.clear();
      rules_[i]->finish(end, at_end);
      for (LintFinding& f : at_end) groups_[i]->add(std::move(f));
    }
    // Each rule's findings stay together, in the rule's order; groups go
    // most severe first (a group's severity is its most severe finding),
    // ties in LintRuleId order.
    std::vector<std::size_t> order(rules_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return groups_[a]->worst < groups_[b]->worst; });
    std::uint64_t total = 0;
    for (const std::size_t i : order) {
      report_.counts[static_cast<std::size_t>(rules_[i]->id())] = groups_[i]->size();
      total += groups_[i]->size();
    }
    if (in_memory_) {
      report_.findings.reserve(static_cast<std::size_t>(total));
      std::uint32_t number = 0;
      for (const std::size_t i : order)
        for (LintFinding& f : groups_[i]->kept) {
          f.number = ++number;
          if (f.rule == LintRuleId::lost_records) note_left_out(f, left_out_);
          report_.findings.push_back(std::move(f));
        }
      return std::move(report_);
    }
    auto spooled = std::make_shared<SpooledFindings>();
    for (const std::size_t i : order) spooled->groups.push_back(std::move(groups_[i]->spool));
    spooled->left_out = std::move(left_out_);
    report_.spooled = std::move(spooled);
    return std::move(report_);
  }

 private:
  void keep(const std::vector<ControlTransfer>& verdicts) {
    if (!keys_) {
      report_.transfers.insert(report_.transfers.end(), verdicts.begin(), verdicts.end());
      return;
    }
    for (const ControlTransfer& t : verdicts)
      if (auto v = keyed_transfer(t, *keys_)) report_.keyed_transfers.push_back(*v);
  }

  CausalityReplay replay_;
  bool keep_transfers_;
  bool in_memory_;
  std::optional<MergeGroups> keys_;  // with keyed transfers: the store's merge groups
  std::vector<std::unique_ptr<LintRule>> rules_;
  LeftOut left_out_;
  std::vector<std::unique_ptr<RuleGroup>> groups_;  // index for index with rules_
  std::array<std::vector<LintRule*>, kRecordHeadCount> by_head_;  // who observes each head
  std::vector<LintRule*> transfer_rules_;  // the replay runs only for these
  std::vector<ControlTransfer> verdicts_;
  LintReport report_;
};

}  // namespace

LintReport lint_events(const std::vector<TraceEvent>& events, const LintOptions& options) {
  bool has_notify = false;
  bool has_wait = false;
  bool has_return = false;
  LintTraceEnd end;
  for (const TraceEvent& e : events) {
    has_notify = has_notify || e.head == RecordHead::notify;
    has_wait = has_wait || e.head == RecordHead::wait;
    has_return = has_return || e.head == RecordHead::return_;
    end.ended_cleanly = end.ended_cleanly || e.head == RecordHead::end;
    if (e.has_time) end.end_time = std::max(end.end_time, e.time);
  }
  LintPass pass(options, CausalityReplayOptions{has_notify, has_wait && options.settings.semantics.reads_are_of_resolved,
                                                has_return});
  for (const TraceEvent& e : events) pass.feed(e);
  return pass.finish(end);
}

Status for_each_finding(const LintReport& report, const std::function<bool(const LintFinding&)>& visit) {
  if (report.spooled) return for_each_spooled(*report.spooled, visit);
  for (const LintFinding& f : report.findings)
    if (!visit(f)) break;
  return {};
}

std::uint64_t finding_count(const LintReport& report) {
  std::uint64_t n = 0;
  for (const std::uint64_t c : report.counts) n += c;
  return n;
}

bool lint_cancelled(const Diagnostic& error) { return error.message == kLintCancelled; }

Result<LintReport> lint_store(TraceStore& store, LintOptions options) {
  SqliteDatabase& db = store.database();
  auto head_count = db.prepare("SELECT records FROM heads WHERE id = ?1");
  if (!head_count) return head_count.error();
  const auto has_head = [&](RecordHead head) -> Result<bool> {
    head_count.value().bind(1, static_cast<std::int64_t>(head));
    auto row = head_count.value().step();
    if (!row) return row.error();
    const bool present = row.value() && head_count.value().int64(0) > 0;
    head_count.value().reset();
    return present;
  };
  const auto has_notify = has_head(RecordHead::notify);
  if (!has_notify) return has_notify.error();
  const auto has_wait = has_head(RecordHead::wait);
  if (!has_wait) return has_wait.error();
  const auto has_return = has_head(RecordHead::return_);
  if (!has_return) return has_return.error();

  if (!options.settings.site_name) {
    auto sites = store.sites();
    if (!sites) return sites.error();
    auto names = std::make_shared<std::map<std::int64_t, std::string>>();
    for (const StoredSite& s : sites.value())
      (*names)[s.id] = s.function + " (" + s.file + ":" + std::to_string(s.line) + ")";
    options.settings.site_name = [names](std::int64_t site) {
      const auto it = names->find(site);
      return it != names->end() ? it->second : "site " + std::to_string(site);
    };
  }
  LintTraceEnd end;
  end.end_time = store.meta_int("end_time").value_or(0);
  end.ended_cleanly = store.meta_int("ended").value_or(0) == 1;
  {
    const auto scheduler = store.meta_text("header.scheduler-thread");
    const auto format = store.meta_text("header.source-format");
    options.settings.semantics = semantics_from_header(scheduler ? &*scheduler : nullptr, format ? &*format : nullptr);
  }

  std::optional<MergeGroups> keys;
  if (options.keep_transfers && options.keyed_transfers) {
    auto groups = merge_group_roots(db);
    if (!groups) return groups.error();
    keys = std::move(groups).value();
  }
  LintPass pass(options,
                CausalityReplayOptions{has_notify.value(),
                                       has_wait.value() && options.settings.semantics.reads_are_of_resolved,
                                       has_return.value()},
                std::move(keys));
  TraceEventPrefetch prefetch(db);
  prefetch.start();
  while (const TraceEventList* batch = prefetch.next()) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed))
      return file_error(db.name(), std::string(kLintCancelled));
    for (const TraceEvent& e : batch->events()) pass.feed(e);
  }
  if (prefetch.error()) return *prefetch.error();
  return pass.finish(end);
}

}  // namespace skein
