// tree_model.hpp — the index/parent/rowCount plumbing of a Qt item model
// that is a tree of depth 2: top rows, each with child rows that have no
// children. A derived model says how many top rows there are
// (top_row_count()), how many children a top row has (child_row_count()),
// its columnCount(), and its data; flags() gives every item Enabled and
// Selectable and child rows ItemNeverHasChildren, for a derived model to
// extend. Qt Core only; header-only, so it has no Q_OBJECT (no signals or
// properties of its own).
//
// Internal ids: a top row's is 0; a child row's is its top row + 1, so
// parent() needs no lookup and no pointers into the derived model's
// storage (internalPointer() is never used). Only column 0 of a top row
// has children.
//
// Invariants: index() returns an invalid index for a negative row or
// column, a column at or past columnCount(), a row past the parent's
// rowCount(), and a parent that is a child row or not in column 0;
// parent() of a top row (or an invalid index) is invalid; rowCount() of a
// child row or of a top row's column other than 0 is 0. These hold for any
// derived model, which QAbstractItemModelTester checks.
#pragma once

#include <QAbstractItemModel>

namespace skein {

class TreeModel : public QAbstractItemModel {
 public:
  using QAbstractItemModel::QAbstractItemModel;
  using QObject::parent;

  [[nodiscard]] QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override {
    if (row < 0 || column < 0 || column >= columnCount(parent)) return {};
    if (!parent.isValid()) {
      if (row >= top_row_count()) return {};
      return top_index(row, column);
    }
    if (!is_top_row(parent) || parent.column() != 0) return {};
    const int top = parent.row();
    if (top >= top_row_count() || row >= child_row_count(top)) return {};
    return child_index(top, row, column);
  }

  [[nodiscard]] QModelIndex parent(const QModelIndex& child) const override {
    if (!child.isValid() || is_top_row(child)) return {};
    return top_index(top_row_of(child), 0);
  }

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override {
    if (!parent.isValid()) return top_row_count();
    if (!is_top_row(parent) || parent.column() != 0) return 0;
    const int top = parent.row();
    return top < top_row_count() ? child_row_count(top) : 0;
  }

  [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override {
    if (!index.isValid()) return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (!is_top_row(index)) f |= Qt::ItemNeverHasChildren;
    return f;
  }

 protected:
  // The number of top rows.
  [[nodiscard]] virtual int top_row_count() const = 0;
  // The number of child rows under top row `top` (0 <= top < top_row_count()).
  [[nodiscard]] virtual int child_row_count(int top) const = 0;

  // Whether a valid index is a top row (else it is a child row).
  [[nodiscard]] static bool is_top_row(const QModelIndex& index) { return index.internalId() == 0; }
  // The top row an index belongs to: its own row for a top row, its parent's for a child row.
  [[nodiscard]] static int top_row_of(const QModelIndex& index) {
    return is_top_row(index) ? index.row() : static_cast<int>(index.internalId() - 1);
  }
  // Indexes made without bounds checks, for dataChanged and lookups by key.
  [[nodiscard]] QModelIndex top_index(int row, int column) const { return createIndex(row, column, quintptr(0)); }
  [[nodiscard]] QModelIndex child_index(int top, int row, int column) const {
    return createIndex(row, column, static_cast<quintptr>(top) + 1);
  }
};

}  // namespace skein
