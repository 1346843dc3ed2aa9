// search_bar.cpp — a thin widget over ThreadSearch, which holds the matches
// and the current one as thread indexes; the bar turns them into ids only
// when it emits. Every text edit or Regex toggle reruns the whole search
// synchronously on the UI thread. An event filter on the field takes Return
// / Shift+Return (step) and Esc (close) before QLineEdit sees them. The
// count label shows the search's error in red, else "N of M" or the count;
// the arrows are enabled only when there are matches.
#include "viewer/app/search_bar.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

namespace skein {

SearchBar::SearchBar(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("search-bar"));
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(4, 2, 4, 2);
  edit_ = new QLineEdit(this);
  edit_->setPlaceholderText(tr("Find threads by label, kind, site or id"));
  edit_->setClearButtonEnabled(true);
  edit_->installEventFilter(this);
  layout->addWidget(edit_, 1);
  regex_ = new QCheckBox(tr("Regex"), this);
  regex_->setToolTip(tr("Search with a regular expression (ECMAScript), ignoring case"));
  layout->addWidget(regex_);
  previous_ = new QToolButton(this);
  previous_->setArrowType(Qt::UpArrow);
  previous_->setToolTip(tr("Previous match (Shift+Return)"));
  layout->addWidget(previous_);
  next_ = new QToolButton(this);
  next_->setArrowType(Qt::DownArrow);
  next_->setToolTip(tr("Next match (Return)"));
  layout->addWidget(next_);
  count_ = new QLabel(this);
  count_->setMinimumWidth(count_->fontMetrics().horizontalAdvance(QStringLiteral("10,000 of 10,000")));
  layout->addWidget(count_);
  auto* close = new QToolButton(this);
  close->setText(QStringLiteral("✕"));
  close->setToolTip(tr("Close (Esc)"));
  close->setAutoRaise(true);
  layout->addWidget(close);

  connect(edit_, &QLineEdit::textChanged, this, &SearchBar::run);
  connect(regex_, &QCheckBox::toggled, this, &SearchBar::run);
  connect(next_, &QToolButton::clicked, this, &SearchBar::find_next);
  connect(previous_, &QToolButton::clicked, this, &SearchBar::find_previous);
  connect(close, &QToolButton::clicked, this, &SearchBar::close_bar);
  update_label();
}

void SearchBar::set_data(std::shared_ptr<const TimelineData> timeline) {
  data_ = std::move(timeline);
  search_.set_data(data_.get());
  run();
}

void SearchBar::search_again() {
  if (!edit_->text().isEmpty()) run();
}

void SearchBar::activate() {
  show();
  edit_->setFocus(Qt::ShortcutFocusReason);
  edit_->selectAll();
}

void SearchBar::run() {
  ThreadSearchQuery q;
  q.text = edit_->text().toStdString();
  q.regex = regex_->isChecked();
  search_.run(q);
  std::vector<ThreadId> ids;
  if (data_) {
    ids.reserve(search_.matches().size());
    for (std::uint32_t i : search_.matches()) ids.push_back(data_->threads[i].id);
  }
  update_label();
  emit matches_changed(ids);
}

void SearchBar::find_next() { step(+1); }
void SearchBar::find_previous() { step(-1); }

void SearchBar::step(int direction) {
  const auto thread = direction >= 0 ? search_.next() : search_.previous();
  update_label();
  if (thread && data_) emit current_changed(data_->threads[*thread].id);
}

void SearchBar::close_bar() {
  hide();
  emit closed();
}

void SearchBar::update_label() {
  const std::size_t n = search_.matches().size();
  QString text;
  if (!search_.error().empty()) text = QString::fromStdString(search_.error());
  else if (edit_->text().trimmed().isEmpty()) text.clear();
  else if (n == 0) text = tr("no matches");
  else if (search_.current()) text = tr("%1 of %2").arg(*search_.current() + 1).arg(n);
  else text = n == 1 ? tr("1 match") : tr("%1 matches").arg(n);
  count_->setText(text);
  count_->setStyleSheet(search_.error().empty() ? QString() : QStringLiteral("color: #c0392b"));
  edit_->setToolTip(QString::fromStdString(search_.error()));
  next_->setEnabled(n > 0);
  previous_->setEnabled(n > 0);
}

bool SearchBar::eventFilter(QObject* watched, QEvent* event) {
  if (watched == edit_ && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
      step(key->modifiers() & Qt::ShiftModifier ? -1 : +1);
      return true;
    }
    if (key->key() == Qt::Key_Escape) {
      close_bar();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void SearchBar::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape) {
    close_bar();
    return;
  }
  QWidget::keyPressEvent(event);
}

}  // namespace skein
