// event_rows.hpp — records as rows of the events table, in batches that own
// their text, so that a parsing thread can hand them to the thread that
// writes the database (trace_import.cpp).
//
// The columns each head fills (SCHEMA.md, "events"): the actor (FORMAT.md's
// actor of the record), the target (the other thread it names), a value and
// a text. Absent fields are NULL.
//
// | head    | actor  | target   | value          | text    |
// | ------- | ------ | -------- | -------------- | ------- |
// | site    |        |          | SITE           |         |
// | spawn   | PARENT | CHILD    | SITE           | KIND    |
// | label   | THREAD |          |                | TEXT    |
// | switch  | THREAD |          |                |         |
// | wait    | WAITER | INPUT    |                |         |
// | read    | READER | INPUT    |                |         |
// | notify  | SENDER | RECEIVER |                | REASON  |
// | resolve | BY     | THREAD   | OUTCOME 0/1/2  | MESSAGE |
// | merge   | THREAD | INTO     |                |         |
// | counter |        |          | VALUE          | NAME    |
// | idle    |        |          |                |         |
// | gc      |        |          | DURATION       |         |
// | lost    |        |          | COUNT          |         |
// | end     |        |          |                |         |
// | return  | THREAD |          |                |         |
// | should-resolve | | THREAD  |                |         |
// | snapshot |       |          |                |         |
//
// A site record's file, line and function live in the sites table. A batch
// also carries the activations that closed while its events were parsed
// (ModelDerivation::take_activations), written with them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/store/model_derivation.hpp"
#include "recorder/format/record.hpp"

namespace skein {

struct EventRow {
  enum Present : std::uint8_t { kTime = 1, kActor = 2, kTarget = 4, kValue = 8, kText = 16 };

  TimeNs time = 0;
  std::int64_t actor = 0;
  std::int64_t target = 0;
  std::int64_t value = 0;
  std::uint32_t text_begin = 0;  // into EventBatch::texts
  std::uint32_t text_size = 0;
  std::uint8_t head = 0;
  std::uint8_t present = 0;
};

class EventBatch {
 public:
  void clear() {
    rows_.clear();
    texts_.clear();
    activations.clear();
  }
  void reserve(std::size_t rows) { rows_.reserve(rows); }
  void add(const Record& record);

  [[nodiscard]] std::size_t size() const { return rows_.size(); }
  [[nodiscard]] bool empty() const { return rows_.empty(); }
  [[nodiscard]] const std::vector<EventRow>& rows() const { return rows_; }
  [[nodiscard]] std::string_view text(const EventRow& row) const {
    return std::string_view(texts_).substr(row.text_begin, row.text_size);
  }
  [[nodiscard]] std::size_t text_bytes() const { return texts_.size(); }

  std::vector<ActivationRow> activations;

 private:
  std::vector<EventRow> rows_;
  std::string texts_;
};

}  // namespace skein
