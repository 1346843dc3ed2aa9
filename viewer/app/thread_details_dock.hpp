// thread_details_dock.hpp — the "Thread details" dock: a tree view on a
// ThreadDetailsModel (viewer/models/thread_details_model.hpp) with "Copy
// details" and "Open in editor" buttons. It only shows and reports; the
// main window connects it to the timeline:
//
//   dock->set_data(data);                        // a new trace
//   dock->show_thread(index);                    // the timeline's selection
//   connect(dock, &ThreadDetailsDock::thread_activated, ...);  // select that thread
//
// A click on a row about another thread (parent, chain, child, relation,
// edge) emits thread_activated with that thread's id; activating the site
// row (double-click or Enter) or the button opens the site's file through
// the URL opener (QDesktopServices::openUrl unless a test sets another);
// "Copy details" puts thread_details_text() on the clipboard.
#pragma once

#include <QDockWidget>
#include <functional>
#include <memory>
#include <optional>

#include "viewer/timeline/timeline_data.hpp"
#include "viewer/models/thread_details_model.hpp"

class QLabel;
class QPushButton;
class QTreeView;

namespace skein {

class ThreadDetailsDock : public QDockWidget {
  Q_OBJECT

 public:
  explicit ThreadDetailsDock(QWidget* parent = nullptr);

  void set_data(std::shared_ptr<const TimelineData> timeline);
  // Shows a thread (index into data.threads), or nothing.
  void show_thread(std::optional<std::uint32_t> index);
  // The thread shown, read again (the trace has gained its label lists).
  void refresh();

  // Copies the details text to the clipboard (nothing when no thread).
  void copy_details();
  // Opens the creation site's file; false when there is none or it failed.
  bool open_in_editor();
  // Replaces how URLs are opened (tests); the default is QDesktopServices::openUrl.
  void set_url_opener(std::function<bool(const QUrl&)> opener) { opener_ = std::move(opener); }

  [[nodiscard]] ThreadDetailsModel* model() const { return model_; }
  [[nodiscard]] QTreeView* view() const { return view_; }
  [[nodiscard]] QPushButton* copy_button() const { return copy_; }
  [[nodiscard]] QPushButton* open_button() const { return open_; }

 signals:
  void thread_activated(skein::ThreadId id);

 private:
  void on_clicked(const QModelIndex& index);
  void on_activated(const QModelIndex& index);
  void model_reset();

  ThreadDetailsModel* model_ = nullptr;
  QTreeView* view_ = nullptr;
  QLabel* placeholder_ = nullptr;
  QPushButton* copy_ = nullptr;
  QPushButton* open_ = nullptr;
  std::function<bool(const QUrl&)> opener_;
};

}  // namespace skein
