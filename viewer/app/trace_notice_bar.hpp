// trace_notice_bar.hpp — the thin bar above the timeline that says what is
// missing from the open trace (viewer/timeline/trace_completeness.hpp: no end
// record, records the recorder dropped, a ring buffer's lost start). Not
// modal: it takes one line, the timeline stays usable under it, and its ×
// hides it until the next trace. Hidden while there is nothing to say.
#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

namespace skein {

class TraceNoticeBar : public QFrame {
  Q_OBJECT

 public:
  explicit TraceNoticeBar(QWidget* parent = nullptr);

  // Shows `text`, or hides the bar when it is empty.
  void set_notice(const QString& text);
  [[nodiscard]] QString notice() const;
  [[nodiscard]] QToolButton* close_button() const { return close_; }

 private:
  QLabel* label_ = nullptr;
  QToolButton* close_ = nullptr;
};

}  // namespace skein
