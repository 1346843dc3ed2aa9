// search_bar.hpp — Ctrl+F (or `/`): a bar with a text field, a "Regex"
// check box, previous / next buttons and a match count, over ThreadSearch
// (viewer/timeline/thread_search.hpp: label, kind, site or id; substring or
// regular expression). The main window shows it and connects it:
//
//   shortcut -> bar->activate();                              // show, focus, select the text
//   connect(bar, &SearchBar::matches_changed, ...);           // highlight these threads
//   connect(bar, &SearchBar::current_changed, ...);           // select and scroll to it
//   connect(bar, &SearchBar::closed, ...);                    // drop the highlights
//
// Typing or toggling Regex searches at once and emits matches_changed
// (ids by (start, id); empty for no match or an invalid expression, whose
// message the count label shows). Return steps to the next match, Shift+
// Return to the previous one (wrapping), each emitting current_changed;
// Esc hides the bar and emits closed().
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "viewer/timeline/thread_search.hpp"
#include "viewer/timeline/timeline_data.hpp"

class QCheckBox;
class QLabel;
class QLineEdit;
class QToolButton;

namespace skein {

class SearchBar : public QWidget {
  Q_OBJECT

 public:
  explicit SearchBar(QWidget* parent = nullptr);

  // A new trace: the index is rebuilt and the current text searched again.
  void set_data(std::shared_ptr<const TimelineData> timeline);
  // The trace has gained what the search reads (its label lists, after
  // the first frame): the current text is searched again, when there is one.
  void search_again();
  // Shows the bar, focuses the field and selects its text.
  void activate();
  void find_next();
  void find_previous();

  [[nodiscard]] const ThreadSearch& search() const { return search_; }
  [[nodiscard]] QLineEdit* line_edit() const { return edit_; }
  [[nodiscard]] QCheckBox* regex_box() const { return regex_; }
  [[nodiscard]] QToolButton* next_button() const { return next_; }
  [[nodiscard]] QToolButton* previous_button() const { return previous_; }
  [[nodiscard]] QLabel* count_label() const { return count_; }

 signals:
  void matches_changed(std::vector<skein::ThreadId> ids);
  void current_changed(skein::ThreadId id);
  void closed();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void run();
  void step(int direction);
  void close_bar();
  void update_label();

  std::shared_ptr<const TimelineData> data_;
  ThreadSearch search_;
  QLineEdit* edit_ = nullptr;
  QCheckBox* regex_ = nullptr;
  QToolButton* previous_ = nullptr;
  QToolButton* next_ = nullptr;
  QLabel* count_ = nullptr;
};

}  // namespace skein
