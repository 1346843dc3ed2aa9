// activations_table.cpp — the count from meta, and one block at a time
// through a prepared point lookup of activation_blocks' key.
#include "recorder/store/activations_table.hpp"

#include <string>

namespace skein {

ActivationReader::ActivationReader(SqliteDatabase& db, SqliteStatement block_q, std::int64_t count)
    : db_(&db), block_q_(std::move(block_q)), count_(count) {}

Result<ActivationReader> ActivationReader::open(SqliteDatabase& db) {
  auto count_q = db.prepare("SELECT value FROM meta WHERE key = ?1");
  if (!count_q) return count_q.error();
  count_q.value().bind(1, kActivationsKey);
  auto row = count_q.value().step();
  if (!row) return row.error();
  if (!row.value() || count_q.value().storage(0) != SqliteStatement::Storage::integer ||
      count_q.value().int64(0) < 0)
    return file_error(db.name(), "damaged Skein database: meta's " + std::string(kActivationsKey) +
                                     " is not a count of activations");
  const std::int64_t count = count_q.value().int64(0);
  auto block_q = db.prepare(
      "SELECT first_activation, last_activation, activations FROM activation_blocks WHERE id = ?1");
  if (!block_q) return block_q.error();
  return ActivationReader(db, std::move(block_q).value(), count);
}

Status ActivationReader::load(std::int64_t block) {
  if (block == loaded_) return {};
  loaded_ = 0;
  block_q_.bind(1, block);
  auto row = block_q_.step();
  const auto fail = [&](const std::string& why) {
    block_q_.reset();
    return file_error(db_->name(), "damaged Skein database: activation_blocks row " + std::to_string(block) + ": " + why);
  };
  if (!row) {
    block_q_.reset();
    return row.error();
  }
  const std::int64_t first = (block - 1) * kActivationBlockSize + 1;
  if (!row.value())
    return fail("missing, though meta counts " + std::to_string(count_) + " activations and it holds those from " +
                std::to_string(first));
  if (block_q_.storage(0) != SqliteStatement::Storage::integer ||
      block_q_.storage(1) != SqliteStatement::Storage::integer || !block_q_.is_blob(2))
    return fail("not two integers and a blob");
  const ActivationBlockPlace place{db_->name(), block, block_q_.int64(0), block_q_.int64(1)};
  Status decoded = decode_activation_block(block_q_.blob(2), place, block_);
  block_q_.reset();
  if (!decoded.ok()) return decoded;
  // Every block below the count's is full, and the last reaches it.
  const std::int64_t expected_last = std::min(first + kActivationBlockSize - 1, count_);
  if (place.last != expected_last)
    return fail("ends at activation " + std::to_string(place.last) + ", where meta's count of " +
                std::to_string(count_) + " puts its end at " + std::to_string(expected_last));
  loaded_ = block;
  return {};
}

}  // namespace skein
