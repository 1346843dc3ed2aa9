// main_window.cpp — the built-in dock layout is captured before the saved
// one (versioned by kLayoutVersion) is restored, so Reset Layout can return
// to it. Every loader signal and notice result is checked against job_ and
// dropped when stale. On a load: clear the notice, post its read to the
// notice reader (background_worker.hpp), hand the trace to
// Inspection, then apply in order what reload() kept, --from/--to,
// --select/--why and --finding. In batch mode errors go to stderr.
#include "viewer/app/main_window.hpp"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <cstdio>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QVBoxLayout>

#include "recorder/output/output_not_input.hpp"
#include "viewer/app/anomaly_dock.hpp"
#include "viewer/app/trace_analysis.hpp"
#include "viewer/app/why_dock.hpp"
#include "viewer/timeline/trace_completeness.hpp"
#include "viewer/analysis/units.hpp"
#include "viewer/render/timeline_image.hpp"

namespace skein {
namespace {

constexpr int kRecentCount = 8;
const char* const kRecentKey = "recent";
const char* const kLayoutKey = "layout";
// Bumped when the docks change, so an older saved layout is ignored.
constexpr int kLayoutVersion = 1;

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(QStringLiteral("Skein"));
  setAcceptDrops(true);
  timeline_ = new TimelineWidget(this);
  inspection_ = new Inspection(this, timeline_);
  // The notice bar above everything the inspection puts around the timeline.
  auto* central = new QWidget(this);
  auto* column = new QVBoxLayout(central);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(0);
  notice_ = new TraceNoticeBar(central);
  column->addWidget(notice_);
  column->addWidget(inspection_->central(), 1);
  setCentralWidget(central);
  connect(inspection_, &Inspection::filter_applied, this, &MainWindow::update_status);
  connect(inspection_, &Inspection::finding_not_found, this,
          [this](qint64 number) { report_missing_finding(number); });
  connect(timeline_, &TimelineWidget::context_requested, this, &MainWindow::show_context_menu);
  status_ = new QLabel(this);
  statusBar()->addWidget(status_, 1);
  findings_ = new QLabel(this);
  findings_->setObjectName(QStringLiteral("findings-status"));
  statusBar()->addPermanentWidget(findings_);
  findings_->setText(inspection_->anomalies()->tally());
  connect(inspection_->anomalies(), &AnomalyDock::tally_changed, findings_, &QLabel::setText);
  connect(timeline_, &TimelineWidget::view_changed, this, &MainWindow::update_status);
  connect(timeline_, &TimelineWidget::selection_changed, this, &MainWindow::update_status);

  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  QAction* open_action = file->addAction(QStringLiteral("&Open…"), this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, QStringLiteral("Open a trace"), QString(),
        QStringLiteral("Traces (*.sexp *.sexp.gz *.ctf *.skein *.db);;All files (*)"));
    if (!path.isEmpty()) open(path);
  });
  open_action->setShortcut(QKeySequence::Open);
  recent_menu_ = file->addMenu(QStringLiteral("Open &Recent"));
  file->addAction(QStringLiteral("Reopen &Last"), this, &MainWindow::reopen_last);
  file->addSeparator();
  QMenu* export_menu = file->addMenu(QStringLiteral("&Export View"));
  const auto export_as = [this](const QString& suffix, const QString& filter) {
    QString path = QFileDialog::getSaveFileName(this, QStringLiteral("Export the view"),
                                                QStringLiteral("timeline.%1").arg(suffix), filter);
    if (path.isEmpty()) return;
    if (!path.endsWith(QLatin1Char('.') + suffix, Qt::CaseInsensitive)) path += QLatin1Char('.') + suffix;
    export_view(path);
  };
  export_menu->addAction(QStringLiteral("As &PNG…"), this,
                         [export_as] { export_as(QStringLiteral("png"), QStringLiteral("PNG images (*.png)")); });
  export_menu->addAction(QStringLiteral("As &SVG…"), this,
                         [export_as] { export_as(QStringLiteral("svg"), QStringLiteral("SVG images (*.svg)")); });
  file->addSeparator();
  QAction* quit = file->addAction(QStringLiteral("&Quit"), qApp, &QApplication::closeAllWindows);
  quit->setShortcut(QKeySequence::Quit);
  rebuild_recent_menu();

  QMenu* edit = menuBar()->addMenu(QStringLiteral("&Edit"));
  QAction* find = edit->addAction(QStringLiteral("&Find…"), inspection_, &Inspection::show_search);
  find->setShortcuts({QKeySequence::Find, QKeySequence(Qt::Key_Slash)});
  find->setShortcutContext(Qt::WindowShortcut);
  QAction* copy = edit->addAction(QStringLiteral("&Copy Details"), this, &MainWindow::copy_details);
  copy->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));

  QMenu* view = menuBar()->addMenu(QStringLiteral("&View"));
  QAction* reload_action = view->addAction(QStringLiteral("&Reload"), this, &MainWindow::reload);
  reload_action->setShortcut(QKeySequence(Qt::Key_F5));
  view->addSeparator();
  // The timeline's own keys (shown, not shortcuts: the search field needs
  // Backspace and the arrows).
  view->addAction(QStringLiteral("Fit the Whole Trace\tHome"), timeline_, &TimelineWidget::fit);
  view->addAction(QStringLiteral("Show the End\tEnd"), timeline_, &TimelineWidget::show_end);
  view->addAction(QStringLiteral("Back\tBackspace"), timeline_, &TimelineWidget::go_back);
  view->addAction(QStringLiteral("Forward\tAlt+Right"), timeline_, &TimelineWidget::go_forward);
  view->addSeparator();
  auto* folding = new QActionGroup(this);
  const std::pair<const char*, RowFolding> modes[] = {{"Fold Quiet Rows", RowFolding::quiet},
                                                      {"Fold Empty Rows", RowFolding::empty},
                                                      {"Show Every Row", RowFolding::none}};
  for (const auto& [name, mode] : modes) {
    QAction* a = view->addAction(QString::fromLatin1(name), this, [this, m = mode] { timeline_->set_folding(m); });
    a->setCheckable(true);
    a->setChecked(mode == RowFolding::quiet);
    folding->addAction(a);
  }
  view->addSeparator();
  QAction* simplify = view->addAction(QStringLiteral("Simplify &Binds"));
  simplify->setCheckable(true);
  simplify->setShortcut(QKeySequence(Qt::Key_B));
  simplify->setToolTip(QStringLiteral("Hide bind, map and catch threads whose only job is to read one input"));
  connect(simplify, &QAction::toggled, inspection_, &Inspection::set_simplify_binds);
  QAction* fold = view->addAction(QStringLiteral("&Fold Subtree of the Selection"), this, [this] {
    if (auto id = inspection_->selected_id()) inspection_->toggle_fold(*id);
  });
  fold->setShortcut(QKeySequence(Qt::Key_F));
  view->addAction(QStringLiteral("&Unfold All"), inspection_, &Inspection::unfold_all);
  view->addSeparator();
  QMenu* panels = view->addMenu(QStringLiteral("&Panels"));
  for (QDockWidget* dock : inspection_->docks()) panels->addAction(dock->toggleViewAction());
  panels->addSeparator();
  panels->addAction(QStringLiteral("&Reset Layout"), this, &MainWindow::reset_layout);
  QMenu* help = menuBar()->addMenu(QStringLiteral("&Help"));
  help->addAction(QStringLiteral("&Keys and Mouse"), this, [this] {
    QMessageBox::information(
        this, QStringLiteral("Keys and mouse"),
        QStringLiteral("<table>"
                       "<tr><td>Wheel, Ctrl+wheel</td><td>zoom around the pointer</td></tr>"
                       "<tr><td>Shift+wheel</td><td>scroll rows</td></tr>"
                       "<tr><td>Drag</td><td>pan</td></tr>"
                       "<tr><td>Shift-drag</td><td>zoom into a range</td></tr>"
                       "<tr><td>W / S, + / −</td><td>zoom in / out</td></tr>"
                       "<tr><td>A / D, ← / →</td><td>pan left / right (Shift+← →: further)</td></tr>"
                       "<tr><td>↑ ↓ PgUp PgDn</td><td>scroll rows</td></tr>"
                       "<tr><td>Home</td><td>fit the whole trace</td></tr>"
                       "<tr><td>End</td><td>the end of the trace, same zoom</td></tr>"
                       "<tr><td>Backspace, Alt+←</td><td>back to the previous window</td></tr>"
                       "<tr><td>Alt+→</td><td>forward again</td></tr>"
                       "<tr><td>F5</td><td>reload the trace</td></tr>"
                       "<tr><td>Click</td><td>select a thread, its merge chain and its edges</td></tr>"
                       "<tr><td>Esc</td><td>clear the selection</td></tr>"
                       "<tr><td>Right click</td><td>Why?, What did it cause?, fold a subtree</td></tr>"
                       "<tr><td>Ctrl+F or /</td><td>search labels, sites and ids</td></tr>"
                       "<tr><td>B</td><td>simplify binds</td></tr>"
                       "<tr><td>F</td><td>fold the selection's subtree into its row</td></tr>"
                       "<tr><td>Ctrl+Shift+C</td><td>copy the selection's details</td></tr></table>"));
  });

  default_layout_ = saveState(kLayoutVersion);
  restoreState(QSettings().value(QLatin1String(kLayoutKey)).toByteArray(), kLayoutVersion);

  connect(&loader_, &TraceLoader::progress, this, &MainWindow::on_progress);
  connect(&loader_, &TraceLoader::first_frame, this, &MainWindow::on_first_frame);
  connect(&loader_, &TraceLoader::loaded, this, &MainWindow::on_loaded);
  connect(&loader_, &TraceLoader::failed, this, &MainWindow::on_failed);
  update_status();
}

MainWindow::~MainWindow() = default;

void MainWindow::reload() {
  if (current_path_.isEmpty()) return;
  Reloading keep;
  const TimelineViewState& v = timeline_->view();
  keep.from = v.mapping.t_of(0);
  keep.to = v.mapping.t_of(timeline_->width());
  if (const TimelineData* d = timeline_->data(); d && v.selected) keep.selected = d->threads[*v.selected].id;
  reloading_ = keep;
  open(current_path_);
}

void MainWindow::read_notice(quint64 job, std::shared_ptr<TraceDatabase> database) {
  notice_reader_.post([this, job, database] {
    // A database that cannot be read (within the patience) shows no notice.
    QString text;
    if (database)
      if (auto read = read_trace_completeness(*database))
        text = QString::fromStdString(trace_completeness_notice(read.value()));
    notice_reader_.deliver([this, job, text] {
      if (job != job_) return;  // a stale job
      notice_->set_notice(text);
      emit notice_ready(text);
    });
  });
}

void MainWindow::open(const QString& path) {
  loading_path_ = path;
  // The shown trace's analysis lets go of its database first: this load
  // may replace it (a reload of a trace changed on disk).
  job_ = loader_.load(path, QString(), inspection_->analysis()->close(), timeline_->size());
  if (!progress_) {
    progress_ = new QProgressDialog(this);
    progress_->setWindowTitle(QStringLiteral("Opening"));
    progress_->setMinimumDuration(300);
    progress_->setAutoClose(false);
    progress_->setAutoReset(false);
    connect(progress_, &QProgressDialog::canceled, &loader_, &TraceLoader::cancel);
  }
  progress_->setLabelText(QStringLiteral("Opening %1…").arg(QFileInfo(path).fileName()));
  progress_->setRange(0, 0);
  progress_->setValue(0);
}

void MainWindow::on_progress(quint64 job, double fraction, const QString& stage) {
  if (job != job_ || !progress_) return;  // a stale job
  progress_->setLabelText(stage);
  if (fraction < 0) {
    progress_->setRange(0, 0);
  } else {
    progress_->setRange(0, 1000);
    progress_->setValue(static_cast<int>(fraction * 1000));
  }
}

void MainWindow::on_first_frame(quint64 job, std::shared_ptr<const TimelineFirstFrame> frame) {
  // A trace on show stays until the next one is read whole.
  if (job != job_ || timeline_->data()) return;
  if (progress_) progress_->deleteLater();
  setWindowTitle(QStringLiteral("%1 — Skein").arg(QFileInfo(loading_path_).fileName()));
  timeline_->show_first_frame(std::move(frame));
  status_->setText(QStringLiteral("%1   ·   reading the whole trace: the first frame comes from the levels "
                                  "the import stored, and answers once it is read")
                       .arg(QFileInfo(loading_path_).fileName()));
}

void MainWindow::on_loaded(quint64 job, std::shared_ptr<const TimelineData> loaded) {
  if (job != job_) return;  // a stale job: the user opened something else since
  if (progress_) progress_->deleteLater();
  current_path_ = loading_path_;
  remember(current_path_);
  setWindowTitle(QStringLiteral("%1 — Skein").arg(QFileInfo(current_path_).fileName()));
  notice_->set_notice(QString());
  read_notice(job, loaded->database);
  inspection_->set_data(std::move(loaded));
  if (reloading_) {
    // The window and the selection of before, where they still exist.
    const TimelineData& d = *timeline_->data();
    if (reloading_->to > double(d.first_time) && reloading_->from < double(d.end_time))
      timeline_->show_window(reloading_->from, reloading_->to);
    if (reloading_->selected)
      if (const auto i = d.thread_index(*reloading_->selected)) {
        timeline_->select(*i);
        timeline_->scroll_to_row(d.threads[*i].row);
      }
    reloading_.reset();
  }
  if (initial_from_ || initial_to_) {
    const TimelineData& d = *timeline_->data();
    // Record times, as the ruler reads them; --from alone starts there.
    const double from = initial_from_ ? double(*initial_from_) : double(d.first_time);
    const double to = initial_to_ ? double(*initial_to_) : double(d.end_time);
    timeline_->show_window(from, std::max(to, from + 1));
    initial_from_.reset();
    initial_to_.reset();
  }
  if (initial_select_) {
    inspection_->go_to_thread(*initial_select_);
    if (initial_why_) {
      for (QDockWidget* dock : inspection_->docks())
        if (dock->widget() == inspection_->why()) dock->raise();
      inspection_->why()->ask(CausalDirection::why);
    }
    initial_select_.reset();
  }
  if (initial_finding_) {
    const std::int64_t n = *initial_finding_;
    initial_finding_.reset();
    if (!inspection_->show_finding(n)) report_missing_finding(n);
  }
  timeline_->setFocus();
  update_status();
  emit load_finished(true);
}

void MainWindow::on_failed(quint64 job, const QString& message, bool cancelled, const QString& replaced) {
  if (job != job_) return;
  reloading_.reset();
  if (!timeline_->data()) {
    timeline_->show_first_frame(nullptr);
    update_status();
  }
  inspection_->resume_analysis(replaced);
  if (progress_) progress_->deleteLater();
  if (!cancelled) {
    if (batch_) std::fprintf(stderr, "skein-view: %s\n", qPrintable(message));
    else QMessageBox::critical(this, QStringLiteral("Cannot open the trace"), message);
  }
  emit load_finished(false);
}

Status MainWindow::write_view(const QString& path) const {
  const TimelineData* d = timeline_->data();
  if (d == nullptr) return file_error(path.toStdString(), "no trace is open");
  // Never over the trace shown, nor the database it is read from.
  if (Status s = check_output_is_not_an_input(path.toStdString(), OutputContent::stream,
                                              {current_path_.toStdString(), d->source});
      !s.ok())
    return s;
  return write_timeline_view(*d, timeline_->view(), timeline_->width(), timeline_->height(), path.toStdString());
}

void MainWindow::report_missing_finding(std::int64_t number) {
  const QString text = QStringLiteral("This trace has no finding #%1 (skein lint numbers them).").arg(number);
  if (batch_) std::fprintf(stderr, "skein-view: no finding #%lld (skein lint numbers them)\n", static_cast<long long>(number));
  else statusBar()->showMessage(text, 10000);
  emit finding_missing(number);
}

bool MainWindow::export_view(const QString& path, bool quiet) {
  const Status s = write_view(path);
  if (!s.ok() && !quiet && !batch_)
    QMessageBox::critical(this, QStringLiteral("Cannot export the view"), QString::fromStdString(s.error().to_string()));
  return s.ok();
}

void MainWindow::copy_details() {
  const QString text = inspection_->selected_details_text();
  if (!text.isEmpty()) QGuiApplication::clipboard()->setText(text);
}

void MainWindow::show_context_menu(std::uint32_t thread, QPoint global) {
  const TimelineData* d = timeline_->data();
  if (!d || thread >= d->threads.size()) return;
  const ThreadId id = d->threads[thread].id;
  QMenu menu(this);
  menu.addAction(QStringLiteral("Why?"), this, [this] {
    inspection_->why()->ask(CausalDirection::why);
    for (QDockWidget* dock : inspection_->docks())
      if (dock->widget() == inspection_->why()) dock->raise();
  });
  menu.addAction(QStringLiteral("What Did It Cause?"), this, [this] {
    inspection_->why()->ask(CausalDirection::caused);
    for (QDockWidget* dock : inspection_->docks())
      if (dock->widget() == inspection_->why()) dock->raise();
  });
  menu.addSeparator();
  const bool folded = std::find(inspection_->filter().folded.begin(), inspection_->filter().folded.end(), id) !=
                      inspection_->filter().folded.end();
  menu.addAction(folded ? QStringLiteral("Unfold Subtree") : QStringLiteral("Fold Subtree"), this,
                 [this, id] { inspection_->toggle_fold(id); });
  menu.addAction(QStringLiteral("Copy Details"), this, &MainWindow::copy_details);
  menu.exec(global);
}

void MainWindow::reopen_last() {
  // The most recent trace other than the one shown (that one is View ▸
  // Reload): the recent list starts with the open trace once it loaded.
  const QString shown = current_path_.isEmpty() ? QString() : QFileInfo(current_path_).absoluteFilePath();
  for (const QString& path : QSettings().value(QLatin1String(kRecentKey)).toStringList())
    if (path != shown) {
      open(path);
      return;
    }
}

void MainWindow::remember(const QString& path) {
  QSettings settings;
  QStringList recent = settings.value(QLatin1String(kRecentKey)).toStringList();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > kRecentCount) recent.removeLast();
  settings.setValue(QLatin1String(kRecentKey), recent);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value(QLatin1String(kRecentKey)).toStringList();
  for (const QString& path : recent) recent_menu_->addAction(path, this, [this, path] { open(path); });
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::update_status() {
  const TimelineData* d = timeline_->data();
  if (!d) {
    status_->setText(QStringLiteral("No trace open"));
    return;
  }
  const TimelineViewState& v = timeline_->view();
  const double t0 = v.mapping.t_of(0);
  const double t1 = v.mapping.t_of(timeline_->width());
  QString text = QStringLiteral("%1   ·   %2   ·   window %3 – %4 (%5)")
                     .arg(QFileInfo(current_path_).fileName(),
                          QString::fromStdString(counted(d->threads.size(), "thread")))
                     .arg(QString::fromStdString(format_duration_ns(static_cast<std::int64_t>(t0))),
                          QString::fromStdString(format_duration_ns(static_cast<std::int64_t>(t1))),
                          QString::fromStdString(format_duration_ns(static_cast<std::int64_t>(t1 - t0))));
  if (const FilteredTimeline* f = inspection_->filtered())
    text += QStringLiteral("   ·   hidden: %1, %2 folded, %3 short")
                .arg(QString::fromStdString(counted(f->plumbing, "bind")),
                     QString::fromStdString(group_thousands(static_cast<std::int64_t>(f->folded))),
                     QString::fromStdString(group_thousands(static_cast<std::int64_t>(f->short_lived))));
  if (v.selected) {
    const TimelineThread& t = d->threads[*v.selected];
    text += QStringLiteral("   ·   selected #%1 (%2 in its merge chain, %3)")
                .arg(t.id)
                .arg(v.selected_chain.size())
                .arg(QString::fromStdString(counted(v.selected_edges.size(), "edge")));
  }
  status_->setText(text);
}

void MainWindow::reset_layout() { restoreState(default_layout_, kLayoutVersion); }

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings().setValue(QLatin1String(kLayoutKey), saveState(kLayoutVersion));
  QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (!urls.isEmpty() && urls.first().isLocalFile()) {
    open(urls.first().toLocalFile());
    event->acceptProposedAction();
  }
}

}  // namespace skein
