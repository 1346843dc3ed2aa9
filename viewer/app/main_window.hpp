// main_window.hpp — skein-view's window: the timeline, the File menu
// (Open Ctrl+O, Open Recent from QSettings, Reopen Last), drag and drop of
// trace files, a cancellable progress dialog while a TraceLoader job runs,
// and an error dialog with the FILE:LINE:COL message when one fails (the
// previous trace stays open and usable). Only the latest job's result is
// shown: results of a job replaced meanwhile are dropped by id.
#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QProgressDialog>
#include <memory>
#include <optional>

#include "viewer/app/timeline_widget.hpp"
#include "viewer/app/trace_loader.hpp"

class QMenu;
class QLabel;

namespace skein {

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);

  void open(const QString& path);
  // After the next load, show [from, to] (ns since the first record)
  // instead of the whole trace: `skein-view TRACE --from T --to T`.
  void set_initial_window(std::optional<std::int64_t> from, std::optional<std::int64_t> to) {
    initial_from_ = from;
    initial_to_ = to;
  }
  [[nodiscard]] TimelineWidget* timeline() const { return timeline_; }
  [[nodiscard]] quint64 current_job() const { return job_; }

 signals:
  // After a load finished (or failed) and the window shows its outcome.
  void load_finished(bool ok);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void on_progress(quint64 job, double fraction, const QString& stage);
  void on_loaded(quint64 job, std::shared_ptr<const TimelineData> loaded);
  void on_failed(quint64 job, const QString& message, bool cancelled);
  void remember(const QString& path);
  void rebuild_recent_menu();
  void update_status();

  TimelineWidget* timeline_ = nullptr;
  TraceLoader loader_;
  quint64 job_ = 0;
  QString loading_path_;
  QString current_path_;
  QPointer<QProgressDialog> progress_;
  QMenu* recent_menu_ = nullptr;
  QLabel* status_ = nullptr;
  std::optional<std::int64_t> initial_from_, initial_to_;
};

}  // namespace skein
