// rtree_bulk_load.cpp — packs entries bottom-up: sorted by (low, high, id)
// unless already so, cut into full leaves, then each level grouped in order
// into full parents until one root is left (at most depth 40). Nodes are then
// numbered from the root down, level by level, so every insert appends; the
// root row the module already made is UPDATEd, the others INSERTed, and the
// parent and rowid rows go in sorted through BulkInsert. A duplicate id is
// refused after packing; write_rtree first checks the root's blob size.
// The header documents the shadow-table layout these bytes follow.
#include "recorder/store/rtree_bulk_load.hpp"

#include "recorder/store/bulk_insert.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

namespace skein {
namespace {

constexpr std::size_t kCellBytes = 8 + 2 * 4;  // id, then min and max of one dimension
constexpr std::size_t kNodeHeaderBytes = 4;

float round_down(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) > v) f = std::nextafter(f, -INFINITY);
  return f;
}
float round_up(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) < v) f = std::nextafter(f, INFINITY);
  return f;
}

void put_u16(unsigned char* p, std::uint16_t v) {
  p[0] = static_cast<unsigned char>(v >> 8);
  p[1] = static_cast<unsigned char>(v);
}
void put_u32(unsigned char* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<unsigned char>(v >> (24 - 8 * i));
}
void put_u64(unsigned char* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (56 - 8 * i));
}

struct Cell {
  std::int64_t id;  // an entry's id, or a child's position in the level below
  float low;
  float high;
};

struct Node {
  std::vector<Cell> cells;
  std::int64_t number = 0;  // nodeno, assigned once the tree is built
  float low = 0;
  float high = 0;
};

Node make_node(std::vector<Cell> cells) {
  Node n;
  n.low = cells.front().low;
  n.high = cells.front().high;
  for (const Cell& c : cells) {
    n.low = std::min(n.low, c.low);
    n.high = std::max(n.high, c.high);
  }
  n.cells = std::move(cells);
  return n;
}

}  // namespace

Result<PackedRtree> pack_rtree(std::vector<RtreeEntry> entries, std::size_t node_bytes) {
  PackedRtree packed;
  packed.node_bytes = node_bytes;
  if (node_bytes < kNodeHeaderBytes + 2 * kCellBytes)
    return file_error("", "R*Tree nodes of " + std::to_string(node_bytes) + " bytes are too small");
  const std::size_t capacity = (node_bytes - kNodeHeaderBytes) / kCellBytes;
  if (entries.empty()) return packed;

  const auto by_low = [](const RtreeEntry& a, const RtreeEntry& b) {
    if (a.low != b.low) return a.low < b.low;
    if (a.high != b.high) return a.high < b.high;
    return a.id < b.id;
  };
  // Spans often come sorted already (threads created in time order).
  if (!std::is_sorted(entries.begin(), entries.end(), by_low))
    std::sort(entries.begin(), entries.end(), by_low);

  // levels[0] are the leaves; the last level has one node, the root.
  std::vector<std::vector<Node>> levels(1);
  for (std::size_t i = 0; i < entries.size(); i += capacity) {
    std::vector<Cell> cells;
    const std::size_t end = std::min(entries.size(), i + capacity);
    cells.reserve(end - i);
    for (std::size_t j = i; j < end; ++j)
      cells.push_back(Cell{entries[j].id, round_down(entries[j].low), round_up(entries[j].high)});
    levels[0].push_back(make_node(std::move(cells)));
  }
  while (levels.back().size() > 1) {
    const std::vector<Node>& below = levels.back();
    std::vector<Node> above;
    for (std::size_t i = 0; i < below.size(); i += capacity) {
      std::vector<Cell> cells;
      const std::size_t end = std::min(below.size(), i + capacity);
      for (std::size_t j = i; j < end; ++j)
        cells.push_back(Cell{static_cast<std::int64_t>(j), below[j].low, below[j].high});
      above.push_back(make_node(std::move(cells)));
    }
    levels.push_back(std::move(above));
  }
  const std::size_t depth = levels.size() - 1;
  if (depth > 40) return file_error("", "R*Tree too deep");  // rtree.c refuses more than 40

  // Number the nodes from the root down, level by level: the root is 1, and
  // nodes are written in number order, so every insert appends.
  std::int64_t next = 1;
  for (std::size_t level = levels.size(); level-- > 0;)
    for (Node& n : levels[level]) n.number = next++;

  const auto count = static_cast<std::size_t>(next - 1);
  packed.node_numbers.reserve(count);
  packed.nodes.assign(count * node_bytes, 0);
  unsigned char* blob = packed.nodes.data();
  for (std::size_t level = levels.size(); level-- > 0;) {
    for (const Node& n : levels[level]) {
      packed.node_numbers.push_back(n.number);
      if (n.number == 1) put_u16(blob, static_cast<std::uint16_t>(depth));
      put_u16(blob + 2, static_cast<std::uint16_t>(n.cells.size()));
      unsigned char* p = blob + kNodeHeaderBytes;
      for (const Cell& c : n.cells) {
        const std::int64_t id = level == 0 ? c.id : levels[level - 1][static_cast<std::size_t>(c.id)].number;
        put_u64(p, static_cast<std::uint64_t>(id));
        put_u32(p + 8, std::bit_cast<std::uint32_t>(c.low));
        put_u32(p + 12, std::bit_cast<std::uint32_t>(c.high));
        p += kCellBytes;
      }
      blob += node_bytes;
    }
    if (level + 1 < levels.size())
      for (const Node& parent : levels[level + 1])
        for (const Cell& c : parent.cells)
          packed.parents.emplace_back(levels[level][static_cast<std::size_t>(c.id)].number, parent.number);
  }
  std::sort(packed.parents.begin(), packed.parents.end());

  // Each entry's leaf, in id order so that the rowid table is appended to.
  packed.rowids.reserve(entries.size());
  for (const Node& leaf : levels[0])
    for (const Cell& c : leaf.cells) packed.rowids.emplace_back(c.id, leaf.number);
  if (!std::is_sorted(packed.rowids.begin(), packed.rowids.end()))
    std::sort(packed.rowids.begin(), packed.rowids.end());
  for (std::size_t i = 1; i < packed.rowids.size(); ++i)
    if (packed.rowids[i].first == packed.rowids[i - 1].first)
      return file_error("", "R*Tree id " + std::to_string(packed.rowids[i].first) + " given twice");
  return packed;
}

Status write_rtree(SqliteDatabase& db, std::string_view table, const PackedRtree& packed) {
  const std::string t(table);
  auto size = db.query_int("SELECT length(data) FROM \"" + t + "_node\" WHERE nodeno = 1");
  if (!size) return size.error();
  if (static_cast<std::size_t>(size.value()) != packed.node_bytes)
    return file_error(db.name(), "the R*Tree '" + t + "' has nodes of " + std::to_string(size.value()) +
                                     " bytes, not the " + std::to_string(packed.node_bytes) +
                                     " it was packed for");
  if (packed.node_numbers.empty()) return {};

  auto update_root = db.prepare("UPDATE \"" + t + "_node\" SET data = ?1 WHERE nodeno = 1");
  if (!update_root) return update_root.error();
  auto insert_node = db.prepare("INSERT INTO \"" + t + "_node\"(nodeno, data) VALUES (?1, ?2)");
  if (!insert_node) return insert_node.error();
  for (std::size_t i = 0; i < packed.node_numbers.size(); ++i) {
    const unsigned char* blob = packed.nodes.data() + i * packed.node_bytes;
    if (packed.node_numbers[i] == 1) {
      update_root.value().bind_blob(1, blob, packed.node_bytes);
      if (Status s = update_root.value().run(); !s.ok()) return s;
    } else {
      insert_node.value().bind(1, packed.node_numbers[i]);
      insert_node.value().bind_blob(2, blob, packed.node_bytes);
      if (Status s = insert_node.value().run(); !s.ok()) return s;
    }
  }
  // Both go in key order (sorted above), so dense keys are SQLite's to number.
  using Pair = std::pair<std::int64_t, std::int64_t>;
  const auto key = [](const Pair& row) { return row.first; };
  const auto bind_value = [](SqliteStatement& q, int p, const Pair& row) { q.bind(p, row.second); };
  auto parents = RowidBulkInsert::prepare(db, "\"" + t + "_parent\"", "nodeno", "(parentnode)", 1);
  if (!parents) return parents.error();
  if (Status s = parents.value().insert(std::span<const Pair>(packed.parents), key, bind_value); !s.ok())
    return s;
  auto rowids = RowidBulkInsert::prepare(db, "\"" + t + "_rowid\"", "rowid", "(nodeno)", 1);
  if (!rowids) return rowids.error();
  return rowids.value().insert(std::span<const Pair>(packed.rowids), key, bind_value);
}

Status bulk_load_rtree(SqliteDatabase& db, std::string_view table, std::vector<RtreeEntry> entries) {
  auto size = db.query_int("SELECT length(data) FROM \"" + std::string(table) + "_node\" WHERE nodeno = 1");
  if (!size) return size.error();
  auto packed = pack_rtree(std::move(entries), static_cast<std::size_t>(size.value()));
  if (!packed) {
    Diagnostic d = packed.error();
    d.file = db.name();
    return d;
  }
  return write_rtree(db, table, packed.value());
}

}  // namespace skein
