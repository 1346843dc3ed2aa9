// lost_records.cpp — one note per `lost` record that lost something, in
// record order; lint_run.cpp adds to each what the other rules left out
// because of it.
#include "viewer/analysis/rules/lost_records.hpp"

namespace skein {
namespace {

// "27,008"
std::string grouped(std::int64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

class LostRecords final : public LintRule {
 public:
  [[nodiscard]] LintRuleId id() const override { return LintRuleId::lost_records; }
  [[nodiscard]] std::uint32_t observed_heads() const override { return head_mask({RecordHead::lost}); }
  void observe(const TraceEvent& e) override {
    if (!e.has_value || e.value <= 0) return;
    LintFinding f;
    f.rule = LintRuleId::lost_records;
    f.severity = LintSeverity::note;
    f.time = e.time;
    f.thread = kScheduler;
    f.event = e.id;
    f.message = grouped(e.value) + (e.value == 1 ? " record" : " records") + " lost at " + time_phrase(e.time) +
                ": causes across this gap are unknown";
    hand_on(std::move(f));
  }
  void finish(const LintTraceEnd&, std::vector<LintFinding>&) override {}
};

}  // namespace

std::unique_ptr<LintRule> make_lost_records_rule() { return std::make_unique<LostRecords>(); }

}  // namespace skein
