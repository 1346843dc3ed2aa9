// thread_details_dock.cpp — all state is in ThreadDetailsModel; the dock
// re-derives its widgets on every model reset: placeholder or tree, Copy
// enabled when a thread is shown, Open when the model has a site URL (its
// local path as tooltip), the tree fully expanded. A click emits
// thread_activated only for rows carrying ThreadIdRole; activation opens
// the editor only for rows carrying FileUrlRole, through opener_.
#include "viewer/app/thread_details_dock.hpp"

#include <QApplication>
#include <QClipboard>
#include <QDesktopServices>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace skein {

ThreadDetailsDock::ThreadDetailsDock(QWidget* parent)
    : QDockWidget(tr("Thread details"), parent),
      model_(new ThreadDetailsModel(this)),
      opener_([](const QUrl& url) { return QDesktopServices::openUrl(url); }) {
  setObjectName(QStringLiteral("thread-details-dock"));
  auto* body = new QWidget(this);
  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(4, 4, 4, 4);

  placeholder_ = new QLabel(tr("Click a thread on the timeline to see its details."), body);
  placeholder_->setWordWrap(true);
  layout->addWidget(placeholder_);

  view_ = new QTreeView(body);
  view_->setModel(model_);
  view_->setUniformRowHeights(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view_->header()->setSectionResizeMode(ThreadDetailsModel::FieldColumn, QHeaderView::ResizeToContents);
  view_->header()->setStretchLastSection(true);
  layout->addWidget(view_, 1);

  auto* buttons = new QHBoxLayout;
  copy_ = new QPushButton(tr("Copy details"), body);
  open_ = new QPushButton(tr("Open in editor"), body);
  buttons->addWidget(copy_);
  buttons->addWidget(open_);
  buttons->addStretch(1);
  layout->addLayout(buttons);
  setWidget(body);

  connect(copy_, &QPushButton::clicked, this, &ThreadDetailsDock::copy_details);
  connect(open_, &QPushButton::clicked, this, [this] { (void)open_in_editor(); });
  connect(view_, &QTreeView::clicked, this, &ThreadDetailsDock::on_clicked);
  connect(view_, &QTreeView::activated, this, &ThreadDetailsDock::on_activated);
  connect(model_, &QAbstractItemModel::modelReset, this, &ThreadDetailsDock::model_reset);
  model_reset();
}

void ThreadDetailsDock::set_data(std::shared_ptr<const TimelineData> timeline) { model_->set_data(std::move(timeline)); }

void ThreadDetailsDock::show_thread(std::optional<std::uint32_t> index) { model_->show_thread(index); }

void ThreadDetailsDock::refresh() { model_->show_thread(model_->thread()); }

void ThreadDetailsDock::model_reset() {
  const bool shown = model_->thread().has_value();
  placeholder_->setVisible(!shown);
  view_->setVisible(shown);
  copy_->setEnabled(shown);
  open_->setEnabled(!model_->site_url().isEmpty());
  open_->setToolTip(model_->site_url().toLocalFile());
  view_->expandAll();
}

void ThreadDetailsDock::copy_details() {
  const QString text = model_->details_text();
  if (text.isEmpty()) return;
  QApplication::clipboard()->setText(text);
}

bool ThreadDetailsDock::open_in_editor() {
  const QUrl url = model_->site_url();
  if (url.isEmpty() || !opener_) return false;
  return opener_(url);
}

void ThreadDetailsDock::on_clicked(const QModelIndex& index) {
  const QVariant id = index.data(ThreadDetailsModel::ThreadIdRole);
  if (id.isValid()) emit thread_activated(static_cast<ThreadId>(id.toLongLong()));
}

void ThreadDetailsDock::on_activated(const QModelIndex& index) {
  if (index.data(ThreadDetailsModel::FileUrlRole).isValid()) (void)open_in_editor();
}

}  // namespace skein
