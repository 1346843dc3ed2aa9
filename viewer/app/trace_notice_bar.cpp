// trace_notice_bar.cpp — a styled QFrame holding a word-wrapped, selectable
// label and a × button wired to hide(). The bar starts hidden;
// set_notice() sets the text and shows the bar exactly when the text is
// non-empty, so a notice for the next trace brings it back after ×.
#include "viewer/app/trace_notice_bar.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace skein {

TraceNoticeBar::TraceNoticeBar(QWidget* parent) : QFrame(parent) {
  setObjectName(QStringLiteral("trace-notice"));
  setFrameShape(QFrame::NoFrame);
  setAutoFillBackground(true);
  // A warning's orange, light enough to read dark text on, and apart from
  // the pale yellow of the overview strip's visible range under it.
  setStyleSheet(QStringLiteral("#trace-notice { background: #ffedd5; border-left: 4px solid #f97316;"
                               " border-bottom: 1px solid #fdba74; }"
                               "#trace-notice QLabel { color: #7c2d12; }"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(8, 3, 4, 3);
  label_ = new QLabel(this);
  label_->setWordWrap(true);
  label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  close_ = new QToolButton(this);
  close_->setText(QStringLiteral("×"));
  close_->setAutoRaise(true);
  close_->setToolTip(QStringLiteral("Hide until the next trace"));
  close_->setFocusPolicy(Qt::NoFocus);
  layout->addWidget(label_, 1);
  layout->addWidget(close_, 0, Qt::AlignTop);
  connect(close_, &QToolButton::clicked, this, &QWidget::hide);
  hide();
}

void TraceNoticeBar::set_notice(const QString& text) {
  label_->setText(text);
  setVisible(!text.isEmpty());
}

QString TraceNoticeBar::notice() const { return label_->text(); }

}  // namespace skein
