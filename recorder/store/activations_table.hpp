// activations_table.hpp — the store's activations read back (SCHEMA.md,
// "activation_blocks"): one per time a thread ran, from the switch to it
// to the switch away, numbered from 1 in start order, packed by blocks of
// kActivationBlockSize (activation_block_codec.hpp).
//
// Invariants:
//   1. meta's `activations` is their count; block N holds activations
//      (N-1)*kActivationBlockSize+1 to the block's last_activation, every
//      block full but the last. A block missing below the count, a count
//      absent or not an integer, or a block that does not decode is a
//      damaged database: "FILE: damaged Skein database: activation_blocks
//      row N: ...", and the walk stops with it.
//   2. Every activation a caller sees has an event of 1 or more, a thread
//      other than kReservedThreadId and times of 0..kMaxTime (the decoder
//      checks them). An end before its start is the caller's to clamp:
//      the table does not promise it, and nothing here computes with the
//      two together.
//   3. One block is decoded at a time and kept until another is needed,
//      so a walk costs a block's blob a thousand activations, and lookups
//      near one another decode nothing again.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "recorder/store/activation_block_codec.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

// The meta key that holds the number of activations.
inline constexpr std::string_view kActivationsKey = "activations";

class ActivationReader {
 public:
  // Reads the count from meta and prepares the block lookup.
  [[nodiscard]] static Result<ActivationReader> open(SqliteDatabase& db);

  [[nodiscard]] std::int64_t count() const { return count_; }

  // Calls on_activation(const StoredActivation&) for each activation with
  // an id in [first, last] (within 1..count), in id order. on_activation
  // returns void, or Status to stop the walk with an error.
  template <class OnActivation>
  [[nodiscard]] Status for_each(std::int64_t first, std::int64_t last, OnActivation&& on_activation) {
    first = std::max<std::int64_t>(first, 1);
    last = std::min(last, count_);
    for (std::int64_t id = first; id <= last;) {
      if (Status s = load(activation_block_of(id)); !s.ok()) return s;
      const std::int64_t block_first = block_.front().id;
      for (auto k = static_cast<std::size_t>(id - block_first); k < block_.size() && id <= last; ++k, ++id) {
        if constexpr (std::is_void_v<decltype(on_activation(block_[k]))>) {
          on_activation(block_[k]);
        } else {
          if (Status s = on_activation(block_[k]); !s.ok()) return s;
        }
      }
    }
    return {};
  }

  // Calls on_activation(const StoredActivation&) for the activations from
  // `from` (within 1..count) down to 1, latest first, while it returns
  // true.
  template <class OnActivation>
  [[nodiscard]] Status backward(std::int64_t from, OnActivation&& on_activation) {
    for (std::int64_t id = std::min(from, count_); id >= 1;) {
      if (Status s = load(activation_block_of(id)); !s.ok()) return s;
      const std::int64_t block_first = block_.front().id;
      for (auto k = static_cast<std::size_t>(id - block_first) + 1; k-- > 0; --id)
        if (!on_activation(block_[k])) return {};
    }
    return {};
  }

 private:
  ActivationReader(SqliteDatabase& db, SqliteStatement block_q, std::int64_t count);
  // Decodes block `block` into block_, unless it is there already.
  [[nodiscard]] Status load(std::int64_t block);

  SqliteDatabase* db_;
  SqliteStatement block_q_;
  std::int64_t count_ = 0;
  std::int64_t loaded_ = 0;  // the block in block_; 0 for none
  std::vector<StoredActivation> block_;
};

// Every activation with an id in [first, last], in id order, through a
// reader of its own (see ActivationReader::for_each).
template <class OnActivation>
[[nodiscard]] Status for_each_activation(SqliteDatabase& db, std::int64_t first, std::int64_t last,
                                         OnActivation&& on_activation) {
  auto reader = ActivationReader::open(db);
  if (!reader) return reader.error();
  return reader.value().for_each(first, last, std::forward<OnActivation>(on_activation));
}

// Every activation, in id order.
template <class OnActivation>
[[nodiscard]] Status for_each_activation(SqliteDatabase& db, OnActivation&& on_activation) {
  return for_each_activation(db, 1, std::numeric_limits<std::int64_t>::max(),
                             std::forward<OnActivation>(on_activation));
}

}  // namespace skein
