// main_window.hpp — skein-view's window: the timeline, the File menu
// (Open Ctrl+O, Open Recent from QSettings, Reopen Last), drag and drop of
// trace files, a cancellable progress dialog while a TraceLoader job runs,
// and an error dialog with the FILE:LINE:COL message when one fails (the
// previous trace stays open and usable). Only the latest job's result is
// shown: results of a job replaced meanwhile are dropped by id.
//
// Inspection (inspection.hpp) owns the docks and links them with the
// timeline; the window adds the menus that reach them: View ▸ Simplify
// Binds, Fold Subtree, Unfold All, the docks' toggles; Edit ▸ Find (Ctrl+F
// or /), Copy Details; File ▸ Export View as PNG or SVG (the view as it is
// on screen, labels as text in SVG); and the timeline's context menu (Why?,
// What Did It Cause?, Fold Subtree, Copy Details).
//
// The docks' layout (which are shown, where, how large) is kept between
// sessions in QSettings, written when the window closes; View ▸ Panels ▸
// Reset Layout returns to the built-in one.
//
// The status bar: the file, its threads, the window and the selection at
// the left; at the right, the lints' tally from the Anomalies dock ("16
// findings: 16 notes", "No findings", "Running the lints…"), updated when
// the lints finish and on every load.
//
// View ▸ Reload (F5) opens the current trace again (its cache notices a
// changed trace by its stamp and imports it again), keeping the time
// window and the selected thread when they still exist in it. After every
// load, a worker reads what the trace database says is missing from the
// trace (viewer/timeline/trace_completeness.hpp), and the bar above the
// timeline (trace_notice_bar.hpp) says it: no end record, dropped records,
// a ring buffer's lost start. A stale job's notice is dropped like its
// timeline.
#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QProgressDialog>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "viewer/app/inspection.hpp"
#include "viewer/app/timeline_widget.hpp"
#include "viewer/app/background_worker.hpp"
#include "viewer/app/trace_loader.hpp"
#include "viewer/app/trace_notice_bar.hpp"

class QMenu;
class QLabel;

namespace skein {

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  void open(const QString& path);
  // View ▸ Reload: open(the current trace), keeping the window and the
  // selection; nothing when no trace is open.
  void reload();
  // File ▸ Reopen Last: the most recent trace other than the one open.
  void reopen_last();
  [[nodiscard]] QString current_path() const { return current_path_; }
  [[nodiscard]] TraceNoticeBar* trace_notice() const { return notice_; }
  // The status bar's left text and its findings tally.
  [[nodiscard]] QLabel* status_label() const { return status_; }
  [[nodiscard]] QLabel* findings_label() const { return findings_; }
  // After the next load, show [from, to] (record times, ns from the
  // trace's origin) instead of the whole trace: `skein-view TRACE --from T
  // --to T`.
  void set_initial_window(std::optional<std::int64_t> from, std::optional<std::int64_t> to) {
    initial_from_ = from;
    initial_to_ = to;
  }
  // After the next load, select thread `id` and, with `why`, answer "why?"
  // for it: `skein-view TRACE --select ID [--why]`.
  void set_initial_selection(std::optional<ThreadId> id, bool why) {
    initial_select_ = id;
    initial_why_ = why;
  }
  // After the next load, open lint finding #N once the lints are done
  // (Inspection::show_finding): `skein-view TRACE --finding N`.
  void set_initial_finding(std::optional<std::int64_t> number) { initial_finding_ = number; }
  // Batch use (`--export-view`): errors go to stderr, never to a dialog.
  void set_batch(bool on) { batch_ = on; }
  [[nodiscard]] TimelineWidget* timeline() const { return timeline_; }
  [[nodiscard]] Inspection* inspection() const { return inspection_; }
  // File ▸ Export View: writes the timeline as shown, PNG or SVG by the
  // name's extension; false (with a message box unless quiet) on failure.
  bool export_view(const QString& path, bool quiet = false);
  // The same, its error returned (naming the file). Never over the trace
  // shown or its database (recorder/output/output_not_input.hpp), and
  // always atomically (viewer/render/timeline_image.hpp).
  [[nodiscard]] Status write_view(const QString& path) const;
  // Edit ▸ Copy Details: the selected thread's details to the clipboard.
  void copy_details();
  // View ▸ Panels ▸ Reset Layout: the docks as a first start shows them.
  void reset_layout();
  [[nodiscard]] quint64 current_job() const { return job_; }

 signals:
  // After a load finished (or failed) and the window shows its outcome.
  void load_finished(bool ok);
  // --finding N named a number the trace's lints do not have.
  void finding_missing(qint64 number);
  // The notice about the loaded trace is known ("" when it is complete).
  void notice_ready(const QString& text);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void on_progress(quint64 job, double fraction, const QString& stage);
  void on_first_frame(quint64 job, std::shared_ptr<const TimelineFirstFrame> frame);
  void on_loaded(quint64 job, std::shared_ptr<const TimelineData> loaded);
  void on_failed(quint64 job, const QString& message, bool cancelled, const QString& replaced);
  void remember(const QString& path);
  void rebuild_recent_menu();
  void update_status();
  void report_missing_finding(std::int64_t number);
  void read_notice(quint64 job, std::shared_ptr<TraceDatabase> database);

  void show_context_menu(std::uint32_t thread, QPoint global);

  TimelineWidget* timeline_ = nullptr;
  Inspection* inspection_ = nullptr;
  TraceLoader loader_;
  quint64 job_ = 0;
  QString loading_path_;
  QString current_path_;
  QPointer<QProgressDialog> progress_;
  QMenu* recent_menu_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* findings_ = nullptr;
  QByteArray default_layout_;
  std::optional<std::int64_t> initial_from_, initial_to_;
  std::optional<ThreadId> initial_select_;
  bool initial_why_ = false;
  std::optional<std::int64_t> initial_finding_;
  bool batch_ = false;
  // What reload() keeps for the load it started.
  struct Reloading {
    double from = 0, to = 0;  // the window, ns (the store's times)
    std::optional<ThreadId> selected;
  };
  std::optional<Reloading> reloading_;
  TraceNoticeBar* notice_ = nullptr;
  // Reads each trace's completeness notice. Last, so it goes first: a read
  // under way finishes and its result is not delivered.
  BackgroundWorker notice_reader_;
};

}  // namespace skein
