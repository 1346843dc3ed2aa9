// thread_details_model.cpp — show_thread() computes the ThreadDetails once
// and rebuild() turns them into all the rows up front, each a formatted
// (field, value) pair plus an optional thread index or site URL, so data()
// only reads. Sections come in a fixed order: Thread, Timing, then the list
// sections, each capped at kMaxRowsPerSection rows plus one "… N more" row.
// Sections are TreeModel's top rows (internalId 0); a section's rows are
// its child rows (internalId section + 1), so no index points into the
// storage.
#include "viewer/models/thread_details_model.hpp"

#include <QDir>
#include <QFileInfo>

#include "viewer/analysis/units.hpp"

namespace skein {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString duration(TimeNs ns) { return qs(format_duration_ns(ns)); }

}  // namespace

ThreadDetailsModel::ThreadDetailsModel(QObject* parent) : TreeModel(parent) {}

QString ThreadDetailsModel::section_title(Section section) {
  switch (section) {
    case Section::thread: return tr("Thread");
    case Section::timing: return tr("Timing");
    case Section::parent_chain: return tr("Parent chain");
    case Section::children: return tr("Children");
    case Section::waits_on: return tr("Waits on");
    case Section::read_by: return tr("Read by");
    case Section::resolved_by: return tr("Resolved by");
    case Section::notified_by: return tr("Notified by");
    case Section::edges: return tr("Edges");
    case Section::labels: return tr("Labels");
  }
  return {};
}

void ThreadDetailsModel::set_data(std::shared_ptr<const TimelineData> data) {
  beginResetModel();
  data_ = std::move(data);
  thread_.reset();
  details_ = {};
  sections_.clear();
  endResetModel();
}

void ThreadDetailsModel::show_thread(std::optional<std::uint32_t> index) {
  beginResetModel();
  thread_.reset();
  details_ = {};
  sections_.clear();
  if (data_ && index && *index < data_->threads.size()) {
    thread_ = index;
    details_ = thread_details(*data_, *index);
    rebuild();
  }
  endResetModel();
}

QString ThreadDetailsModel::details_text() const {
  if (!data_ || !thread_) return {};
  return qs(thread_details_text(*data_, details_));
}

QUrl ThreadDetailsModel::site_url() const {
  if (!thread_ || !details_.has_site) return {};
  const QString file = qs(details_.site_file);
  return QUrl::fromLocalFile(QFileInfo(file).isAbsolute() ? file : QDir::current().absoluteFilePath(file));
}

ThreadDetailsModel::Row ThreadDetailsModel::thread_row(std::int32_t index, QString value) const {
  Row r;
  r.field = qs(thread_display_name(*data_, index));
  r.value = std::move(value);
  r.thread = index >= 0 && static_cast<std::size_t>(index) < data_->threads.size() ? index : -1;
  return r;
}

void ThreadDetailsModel::rebuild() {
  const TimelineData& data = *data_;
  const ThreadDetails& d = details_;
  const auto index_of = [&](ThreadId id) -> std::int32_t {
    const auto i = data.thread_index(id);
    return i ? static_cast<std::int32_t>(*i) : -1;
  };
  const auto kind_of = [&](std::int32_t i) {
    return i >= 0 ? qs(data.text(data.threads[static_cast<std::size_t>(i)].kind)) : QString();
  };

  SectionRows thread{Section::thread, {}, {}};
  thread.rows.push_back({tr("id"), QString::number(d.id), -1, {}, 0});
  thread.rows.push_back({tr("label"), d.label.empty() ? QStringLiteral("-") : qs(d.label), -1, {}, 0});
  thread.rows.push_back({tr("kind"), d.kind.empty() ? QStringLiteral("-") : qs(d.kind), -1, {}, 0});
  if (d.has_site) {
    Row site{tr("site"),
             qs(d.site_file) + QLatin1Char(':') + QString::number(d.site_line) + QStringLiteral(" (") +
                 qs(d.site_function) + QLatin1Char(')'),
             -1, site_url(), static_cast<int>(d.site_line)};
    thread.rows.push_back(std::move(site));
  } else {
    thread.rows.push_back({tr("site"), QStringLiteral("-"), -1, {}, 0});
  }
  QString outcome = qs(std::string(thread_outcome_name(d.outcome)));
  if (!d.failure.empty()) outcome += QStringLiteral(": ") + qs(d.failure);
  thread.rows.push_back({tr("outcome"), outcome, -1, {}, 0});
  if (d.parent >= 0) {
    const std::int32_t p = index_of(d.parent);
    Row r = p >= 0 ? thread_row(p, {}) : Row{};
    r.value = p >= 0 ? r.field : tr("thread %1 (not in the trace)").arg(d.parent);
    r.field = tr("parent");
    thread.rows.push_back(std::move(r));
  }
  if (d.merged_into >= 0) {
    const std::int32_t m = index_of(d.merged_into);
    Row r = m >= 0 ? thread_row(m, {}) : Row{};
    r.value = m >= 0 ? r.field : tr("thread %1").arg(d.merged_into);
    r.field = tr("merged into");
    thread.rows.push_back(std::move(r));
  }
  sections_.push_back(std::move(thread));
  // Every label, numbered in the order first given (the thread section's
  // "label" row shows the first few).
  {
    const std::size_t count = d.labels.empty() ? d.label_count : d.labels.size();
    SectionRows labels{Section::labels, count == 0 ? tr("none") : QString::number(count), {}};
    if (d.labels_pending) labels.rows.push_back({tr("…"), tr("still being read"), -1, {}, 0});
    if (!d.labels_error.empty()) labels.rows.push_back({tr("error"), qs(d.labels_error), -1, {}, 0});
    const std::size_t shown = std::min(d.labels.size(), kMaxRowsPerSection);
    for (std::size_t k = 0; k < shown; ++k) labels.rows.push_back({QString::number(k + 1), qs(d.labels[k]), -1, {}, 0});
    if (d.labels.size() > shown)
      labels.rows.push_back({tr("… %1 more").arg(d.labels.size() - shown), tr("Copy details lists them all"), -1, {}, 0});
    sections_.push_back(std::move(labels));
  }

  SectionRows timing{Section::timing, {}, {}};
  timing.rows.push_back({tr("created"), duration(d.created), -1, {}, 0});
  timing.rows.push_back({tr("first run"), d.first_run ? duration(*d.first_run) : tr("never ran"), -1, {}, 0});
  timing.rows.push_back({tr("resolved"), d.resolved ? duration(*d.resolved) : tr("pending at the end"), -1, {}, 0});
  timing.rows.push_back({tr("lifetime"), duration(d.lifetime), -1, {}, 0});
  timing.rows.push_back({tr("run time"), duration(d.run_time), -1, {}, 0});
  sections_.push_back(std::move(timing));

  // A list section: at most kMaxRowsPerSection rows, then "… N more".
  const auto list = [&](Section section, std::size_t count, const auto& row_of) {
    SectionRows s{section, count == 0 ? tr("none") : QString::number(count), {}};
    const std::size_t shown = std::min(count, kMaxRowsPerSection);
    s.rows.reserve(shown + 1);
    for (std::size_t k = 0; k < shown; ++k) s.rows.push_back(row_of(k));
    if (count > shown) s.rows.push_back({tr("… %1 more").arg(count - shown), tr("Copy details lists them all"), -1, {}, 0});
    sections_.push_back(std::move(s));
  };
  const auto threads = [&](Section section, const std::vector<std::uint32_t>& v) {
    list(section, v.size(), [&](std::size_t k) {
      const auto i = static_cast<std::int32_t>(v[k]);
      return thread_row(i, kind_of(i));
    });
  };
  threads(Section::parent_chain, d.parent_chain);
  threads(Section::children, d.children);
  const auto relations = [&](Section section, const std::vector<ThreadRelation>& v) {
    list(section, v.size(), [&](std::size_t k) {
      const ThreadRelation& r = v[k];
      QString when = tr("at %1").arg(duration(r.first_time));
      if (r.count > 1) when += tr(", %1 times").arg(r.count);
      return thread_row(r.thread, when);
    });
  };
  relations(Section::waits_on, d.waits_on);
  relations(Section::read_by, d.read_by);
  relations(Section::resolved_by, d.resolved_by);
  relations(Section::notified_by, d.notified_by);
  list(Section::edges, d.edges.size(), [&](std::size_t k) {
    const ThreadEdgeItem& e = d.edges[k];
    Row r = thread_row(e.other, {});
    r.field = duration(e.time);
    r.value = qs(std::string(edge_kind_name(e.kind))) + QStringLiteral(": ") + qs(describe_thread_edge(data, e));
    return r;
  });
}

QModelIndex ThreadDetailsModel::section_index(Section section) const {
  for (std::size_t s = 0; s < sections_.size(); ++s)
    if (sections_[s].section == section) return top_index(static_cast<int>(s), 0);
  return {};
}

int ThreadDetailsModel::top_row_count() const { return static_cast<int>(sections_.size()); }

int ThreadDetailsModel::child_row_count(int section) const {
  return static_cast<int>(sections_[static_cast<std::size_t>(section)].rows.size());
}

int ThreadDetailsModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant ThreadDetailsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !data_) return {};
  const auto s = static_cast<std::size_t>(top_row_of(index));
  if (is_top_row(index)) {
    if (s >= sections_.size()) return {};
    const SectionRows& section = sections_[s];
    switch (role) {
      case Qt::DisplayRole: return index.column() == FieldColumn ? section_title(section.section) : section.value;
      case SectionRole: return static_cast<int>(section.section);
      default: return {};
    }
  }
  if (s >= sections_.size() || static_cast<std::size_t>(index.row()) >= sections_[s].rows.size()) return {};
  const Row& row = sections_[s].rows[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole: return index.column() == FieldColumn ? row.field : row.value;
    case Qt::ToolTipRole:
      if (row.thread >= 0) return tr("Click to show %1").arg(qs(thread_display_name(*data_, row.thread)));
      if (!row.url.isEmpty()) return tr("Double-click to open %1 in an editor").arg(row.url.toLocalFile());
      return {};
    case ThreadIdRole:
      if (row.thread < 0) return {};
      return QVariant::fromValue<qlonglong>(data_->threads[static_cast<std::size_t>(row.thread)].id);
    case ThreadIndexRole:
      if (row.thread < 0) return {};
      return QVariant::fromValue<uint>(static_cast<uint>(row.thread));
    case FileUrlRole: return row.url.isEmpty() ? QVariant() : QVariant(row.url);
    case SiteLineRole: return row.url.isEmpty() ? QVariant() : QVariant(row.line);
    case SectionRole: return static_cast<int>(sections_[s].section);
    default: return {};
  }
}

QVariant ThreadDetailsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  if (section == FieldColumn) return tr("Field");
  if (section == ValueColumn) return tr("Value");
  return {};
}

}  // namespace skein
