// why_dock.hpp — the Why? panel: "why did this happen?" and "what did it
// cause?" for a subject: the thread selected on the timeline at the time
// clicked on it (the turn clicked, on a merged row), or a lint finding's
// record. Backwards, the answer is the chain of recorded causes
// (viewer/analysis/why_answer.hpp) back to its root, or to "no recorded
// cause", named in red with the suspect; forwards, what the record went on
// to cause (causal_path.hpp). Steps are a table (CausalPathModel) with µs
// times since the trace's origin, handed to the window through
// path_changed() so the timeline draws them; a click on a step emits
// step_activated() so the timeline moves to it.
//
// In step with the selection: once a question has been asked, a new
// subject is asked the same question at once; until then a new subject
// clears the table.
//
// Which question: a thread at a time is asked what woke the turn it runs
// in then, or, when it waits then, what ended the wait (why_answer.hpp,
// WhyAsk). The status line says which was answered, and a button asks the
// other about the same subject; a new subject is asked the automatic
// question again.
//
// A question that comes from a lint finding (a click in the Anomalies
// dock, --finding N) shows the finding above the answer: its sentence and
// what to do about it (set_finding()), since raising this dock hides the
// Anomalies dock it is tabbed with. Any other subject drops it.
//
// Off the UI thread: the answers need SQL (the `transfer_blocks` table the lint
// stores) and, forwards, the records in order; they run on the trace's
// analysis worker (trace_analysis.hpp), which lints a trace never linted
// first. Answers for a trace replaced meanwhile, or for a question asked
// again meanwhile, are dropped.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "recorder/store/events_table.hpp"
#include "viewer/analysis/why_answer.hpp"
#include "viewer/models/causal_path_model.hpp"

class QLabel;
class QPushButton;
class QTableView;

namespace skein {

class TraceAnalysis;

class WhyDock : public QWidget {
  Q_OBJECT

 public:
  // `analysis` runs the questions; it must outlive the dock.
  explicit WhyDock(TraceAnalysis* analysis, QWidget* parent = nullptr);

  // The loaded trace (not a filtered view of it: ids are what matter).
  void set_data(std::shared_ptr<const TimelineData> loaded);
  // What the buttons ask about: a thread at a time (its last record at or
  // before it), or a record; nullopt disables them.
  void set_subject(std::optional<ThreadId> thread, TimeNs at);
  void set_subject_record(ThreadId thread, std::int64_t event, TimeNs at);
  // A thread still waiting at the end: what ended (or could never end)
  // its wait (a pending-at-end finding's question).
  void set_subject_waiting(ThreadId thread, TimeNs shown_at);
  // The subject set last is lint finding `html` (rich text: the
  // Anomalies dock's explanation_html()); shown until the subject changes.
  void set_finding(const QString& html);
  // Asks about the subject now.
  void ask(CausalDirection direction);

  // Asks the other question (what woke it / what ended its wait) about
  // the subject, when the last answer was about a thread at a time.
  void ask_other_question();
  [[nodiscard]] QPushButton* other_question_button() const { return other_; }

  [[nodiscard]] CausalPathModel* model() const { return model_; }
  [[nodiscard]] bool loading() const { return pending_ != 0; }
  [[nodiscard]] QString status_text() const;
  // The finding shown above the answer (hidden when the subject is not one).
  [[nodiscard]] QLabel* finding_label() const { return finding_label_; }
  // The latest answer backwards (empty before one).
  [[nodiscard]] const std::optional<WhyAnswer>& answer() const { return answer_; }

 signals:
  // The model holds a new answer (maybe empty).
  void path_changed();
  // A step was clicked: the effect's thread, and the step's span.
  void step_activated(skein::ThreadId thread, skein::TimeNs from, skein::TimeNs to);

 private:
  void answered(quint64 question, std::optional<WhyAnswer> answer, std::vector<WhyStep> forwards,
                const QString& error);
  void show_subject();
  [[nodiscard]] QString answer_status(const WhyAnswer& a, const QString& steps, const QString& total) const;

  std::shared_ptr<const TimelineData> data_;
  CausalPathModel* model_ = nullptr;
  QLabel* subject_label_ = nullptr;
  QLabel* finding_label_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* why_ = nullptr;
  QPushButton* caused_ = nullptr;
  QPushButton* other_ = nullptr;  // asks the other question about the same subject
  QTableView* table_ = nullptr;
  std::optional<ThreadId> subject_;
  std::optional<std::int64_t> subject_event_;
  TimeNs at_ = 0;
  std::optional<CausalDirection> asked_;  // the last question's direction: new subjects get it too
  WhyAsk ask_ = WhyAsk::automatic;        // which question about a thread at a time (reset by a new subject)
  bool at_end_ = false;                   // asked about the thread at the trace's end (set_subject_waiting)
  std::optional<WhyAnswer> answer_;
  QString error_;
  quint64 next_question_ = 0;
  quint64 pending_ = 0;  // the question in flight (0: none)
  TraceAnalysis* analysis_;
};

}  // namespace skein
