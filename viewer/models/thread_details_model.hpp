// thread_details_model.hpp — the "Thread details" dock's tree: one thread's
// facts (viewer/timeline/thread_details.hpp) as sections "Thread", "Timing",
// "Parent chain", "Children", "Waits on", "Read by", "Resolved by",
// "Notified by" and "Edges", each with its rows, two columns (field,
// value). Qt Core/Gui only, so it is tested without widgets.
//
// Roles: a row about another thread (parent, merged into, a parent-chain
// entry, a child, a relation, an edge's other end) carries that thread's id
// in ThreadIdRole (qlonglong) and index in ThreadIndexRole (uint), in both
// columns, so the dock makes it clickable; rows about the scheduler or no
// thread carry neither. The site row carries FileUrlRole (QUrl from
// QUrl::fromLocalFile; a relative file resolves against the current
// directory) and SiteLineRole (int) for "Open in editor".
//
// Invariants: the model is a tree of depth 2 (a TreeModel: sections are
// its top rows, their rows its child rows, which have no children); every change is a model reset (a thread is shown or
// the data changes), so views and proxies never see partial updates;
// with no data or no thread there are no rows. A section lists at most
// kMaxRowsPerSection rows, then one "… N more" row (the copied text has
// them all).
#pragma once

#include <QString>
#include <QUrl>
#include <memory>
#include <optional>
#include <vector>

#include "viewer/models/tree_model.hpp"
#include "viewer/timeline/thread_details.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

class ThreadDetailsModel : public TreeModel {
  Q_OBJECT

 public:
  enum Role {
    ThreadIdRole = Qt::UserRole + 1,  // qlonglong: the related thread's id
    ThreadIndexRole,                  // uint: its index into data.threads
    FileUrlRole,                      // QUrl: the creation site's file (site row only)
    SiteLineRole,                     // int: the creation site's line (site row only)
    SectionRole,                      // int (Section): the section a row or section header belongs to
  };
  enum Column { FieldColumn, ValueColumn, ColumnCount };
  // `labels` lists every distinct label (the thread section's "label" row
  // shows the first few); it comes second, after `thread`.
  enum class Section { thread, timing, parent_chain, children, waits_on, read_by, resolved_by, notified_by, edges, labels };
  static constexpr int kSectionCount = 10;
  static constexpr std::size_t kMaxRowsPerSection = 5000;

  explicit ThreadDetailsModel(QObject* parent = nullptr);

  // Replaces the data (nullptr: none) and clears the thread shown.
  void set_data(std::shared_ptr<const TimelineData> data);
  // Shows a thread (an index into data.threads; nullopt or out of range: none).
  void show_thread(std::optional<std::uint32_t> index);
  [[nodiscard]] std::optional<std::uint32_t> thread() const { return thread_; }
  [[nodiscard]] const ThreadDetails* details() const { return thread_ ? &details_ : nullptr; }
  // The "Copy details" text ("" when no thread is shown).
  [[nodiscard]] QString details_text() const;
  // The site's file URL (empty when the thread has no site).
  [[nodiscard]] QUrl site_url() const;
  [[nodiscard]] QModelIndex section_index(Section section) const;
  [[nodiscard]] static QString section_title(Section section);

  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
 protected:
  [[nodiscard]] int top_row_count() const override;
  [[nodiscard]] int child_row_count(int section) const override;

 private:
  struct Row {
    QString field;
    QString value;
    std::int32_t thread = -1;  // index into threads; -1: none
    QUrl url;
    int line = 0;
  };
  struct SectionRows {
    Section section = Section::thread;
    QString value;  // shown beside the title: a count, or ""
    std::vector<Row> rows;
  };

  void rebuild();
  [[nodiscard]] Row thread_row(std::int32_t index, QString value) const;

  std::shared_ptr<const TimelineData> data_;
  std::optional<std::uint32_t> thread_;
  ThreadDetails details_;
  std::vector<SectionRows> sections_;
};

}  // namespace skein
