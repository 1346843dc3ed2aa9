// why_dock.hpp — the Why? panel: "why did this happen?" and "what did it
// cause?" for the thread selected on the timeline, at the time clicked (or
// its end). The answer is a causal path (viewer/core/causal_path.hpp)
// shown as a step list (CausalPathModel) with the time each step took, and
// handed to the window through path_changed() so the timeline highlights
// it. A click on a step emits step_activated() with the step's effect.
//
// The walk needs the trace's records in order, which the timeline does not
// keep; the panel reads them from the trace database the first time a
// question is asked, on a worker thread (the UI says so meanwhile), and
// keeps them until another trace is opened. A question asked while they
// load is answered when they arrive; results for a trace replaced
// meanwhile are dropped.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>
#include <thread>

#include "viewer/core/trace_event.hpp"
#include "viewer/models/causal_path_model.hpp"

class QLabel;
class QPushButton;
class QTableView;

namespace skein {

class WhyDock : public QWidget {
  Q_OBJECT

 public:
  explicit WhyDock(QWidget* parent = nullptr);
  ~WhyDock() override;

  // The loaded trace (not a filtered view of it: ids are what matter).
  void set_data(std::shared_ptr<const TimelineData> loaded);
  // Records to walk, instead of reading them from data->source.
  void set_events(std::shared_ptr<const TraceEventList> events);
  // What the buttons ask about; nullopt disables them.
  void set_subject(std::optional<ThreadId> thread, TimeNs at);
  // Asks about the subject now.
  void ask(CausalDirection direction);

  [[nodiscard]] CausalPathModel* model() const { return model_; }
  [[nodiscard]] bool loading() const { return loading_; }
  [[nodiscard]] QString status_text() const;

 signals:
  // The model holds a new answer (maybe empty: no recorded cause).
  void path_changed();
  // A step was clicked: its effect's thread at the effect's time.
  void step_activated(skein::ThreadId thread, skein::TimeNs time);

 private:
  void answer();
  void start_loading();
  void events_loaded(quint64 generation, std::shared_ptr<const TraceEventList> events, const QString& error);

  std::shared_ptr<const TimelineData> data_;
  std::shared_ptr<const TraceEventList> events_;
  CausalPathModel* model_ = nullptr;
  QLabel* subject_label_ = nullptr;
  QLabel* status_ = nullptr;
  QPushButton* why_ = nullptr;
  QPushButton* caused_ = nullptr;
  QTableView* table_ = nullptr;
  std::optional<ThreadId> subject_;
  TimeNs at_ = 0;
  std::optional<CausalDirection> pending_;  // asked while loading
  bool loading_ = false;
  QString error_;
  quint64 generation_ = 0;
  std::thread loader_;
};

}  // namespace skein
