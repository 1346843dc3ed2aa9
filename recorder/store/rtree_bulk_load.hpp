// rtree_bulk_load.hpp — fills an empty one-dimensional SQLite R*Tree in one
// pass by writing its shadow tables, instead of inserting entry by entry.
//
// Why. The rtree module inserts an entry in about 10 µs on the reference
// machine (choose a leaf, split, reinsert), which for the threads of a
// million-record trace is two seconds, more than the rest of the import.
// Packing sorted entries into full nodes costs well under a microsecond
// each, and gives a tree at least as good for interval queries.
//
// The on-disk layout written here is the one SQLite's rtree module
// documents at the top of its source (ext/rtree/rtree.c) and has kept since
// 2008: for a virtual table T,
//   T_node(nodeno INTEGER PRIMARY KEY, data): node 1 is the root; a node
//     is 2 bytes of tree depth (root only; 0 elsewhere), 2 bytes of cell
//     count, then cells of an 8-byte id and, per dimension, a 4-byte
//     minimum and maximum, all big-endian; coordinates of an `rtree` are
//     IEEE floats. Every node has the size of the root's blob.
//   T_parent(nodeno INTEGER PRIMARY KEY, parentnode): every node but the root.
//   T_rowid(rowid INTEGER PRIMARY KEY, nodeno): every entry's leaf.
// Coordinates are rounded outwards to floats (the minimum down, the maximum
// up), as the module does, so a query never misses an entry; callers check
// exact bounds in their own table. `SELECT rtreecheck('T')` verifies the
// result (the tests run it).
//
// The algorithm: sort entries by minimum (then maximum, id), cut into full
// leaves, then group each level's nodes in order into full parents until one
// node, the root, is left. For one dimension this is Sort-Tile-Recursive
// packing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

struct RtreeEntry {
  std::int64_t id = 0;
  double low = 0;
  double high = 0;  // >= low
};

// The shadow tables' rows, ready to insert: packing (the sort and the node
// building) is plain computation, so the import does it on its parsing
// thread while the writing thread is busy.
struct PackedRtree {
  std::size_t node_bytes = 0;
  std::vector<std::int64_t> node_numbers;    // nodes[i]'s nodeno; the root (1) first
  std::vector<unsigned char> nodes;          // node_numbers.size() blobs of node_bytes
  std::vector<std::pair<std::int64_t, std::int64_t>> parents;  // (nodeno, parent), by nodeno
  std::vector<std::pair<std::int64_t, std::int64_t>> rowids;   // (entry id, leaf nodeno), by id
};

// The node size SQLite's rtree module gives a new one-dimensional table in
// a database of `page_size` bytes a page: the page less 64 bytes, capped
// at 51 cells.
[[nodiscard]] constexpr std::size_t rtree_node_bytes(std::size_t page_size) {
  constexpr std::size_t kMaxCells = 51, kCellBytes = 16, kHeaderBytes = 4;
  return std::min(page_size - 64, kHeaderBytes + kMaxCells * kCellBytes);
}

// Packs `entries` into nodes of `node_bytes`; refuses an id given twice.
[[nodiscard]] Result<PackedRtree> pack_rtree(std::vector<RtreeEntry> entries, std::size_t node_bytes);

// Writes a packed tree into the empty one-dimensional rtree `table`, which
// must have nodes of packed.node_bytes; `db` must not be defensive (shadow
// tables are written).
[[nodiscard]] Status write_rtree(SqliteDatabase& db, std::string_view table, const PackedRtree& packed);

// Both, with the node size read from the table.
[[nodiscard]] Status bulk_load_rtree(SqliteDatabase& db, std::string_view table,
                                     std::vector<RtreeEntry> entries);

}  // namespace skein
