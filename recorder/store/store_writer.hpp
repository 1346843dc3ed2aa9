// store_writer.hpp — writes one trace database (SCHEMA.md) in one
// transaction: the event blocks (each with its records packed) and the
// activations batch by batch as they are parsed and derived (and the
// counters table's rows run by run: counter_runs.hpp), then the rest of
// the derived model,
// the warnings and the meta, and last the stamp (user_version,
// application_id) that marks the file complete. Nothing here grows with
// the trace: a batch in, a batch written.
//
// Speed is the point here (the import's target is three million records a
// second end to end), so:
//   - records go in a block of kEventBlockSize at a time, one row each
//     (event_block_codec.hpp), not a row per record;
//   - every table is written in the order of its key, so every insert is
//     an append to the right edge of its B-tree: activations, event blocks
//     and threads by rowid, counters by their key in sorted runs (a
//     trace with more than one run appends each later run at the right edge
//     of each counter's range), the R*Tree packed in one go
//     (rtree_bulk_load.hpp);
//   - no CREATE INDEX runs: each query the viewer makes is served by a
//     table's own key (SCHEMA.md, "Indexes");
//   - rows go in through multi-row INSERTs (bulk_insert.hpp).
// The writer runs on one thread; StoreWriter is not shared.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/counter_runs.hpp"
#include "recorder/store/edge_bins.hpp"
#include "recorder/store/events_table.hpp"
#include "recorder/store/model_derivation.hpp"
#include "recorder/store/row_extents.hpp"
#include "recorder/store/row_spans.hpp"
#include "recorder/store/store_schema.hpp"

namespace skein {

class StoreWriter {
 public:
  // Creates the database at `path` (which must not exist), its schema, and
  // opens the transaction.
  [[nodiscard]] static Result<StoreWriter> create(const std::string& path, int page_size = kStorePageSize);
  StoreWriter(StoreWriter&&) noexcept;
  StoreWriter& operator=(StoreWriter&&) noexcept;
  ~StoreWriter();

  // A run of counter rows, sorted (counter_runs.hpp).
  [[nodiscard]] Status add_counters(const CounterRun& run);
  // Each counter's range over the trace (counter_ranges, derived_tables.hpp).
  [[nodiscard]] Status add_counter_ranges(const std::vector<CounterRange>& ranges);
  // Activations, in event order, continuing those already added (ids
  // 1, 2, ...): packed by blocks (activation_block_codec.hpp), each
  // written when full; add_threads writes the last and meta's count.
  [[nodiscard]] Status add_activations(const std::vector<ActivationRow>& activations);
  // Event blocks with their records, by id, continuing those already added.
  [[nodiscard]] Status add_blocks(const std::vector<EventBlockRow>& blocks);
  // Everything else derived, once every event is in (its activations and
  // blocks are the last ones): the threads, sites, head counts and the
  // blocks' reach (event_block_reach, derived_tables.hpp), then
  // the threads' placement (thread_spans and layout_v2). The import calls
  // the two halves apart, so that the placement is computed meanwhile.
  [[nodiscard]] Status add_model(const DerivedModel& model);
  [[nodiscard]] Status add_threads(const DerivedModel& model);
  [[nodiscard]] Status add_placement(const DerivedModel& model);
  // The rows' spans (row_spans.hpp), built from the placed model, with the
  // trace's span their buckets are cut from.
  [[nodiscard]] Status add_row_spans(const std::vector<RowSpanChunk>& chunks, TimeNs span);
  // The rows' extents (row_extents.hpp), from the same threads.
  [[nodiscard]] Status add_row_extents(const std::vector<RowExtent>& extents);
  // The whole trace's run time per bin (run_time_bins.hpp).
  [[nodiscard]] Status add_activity_bins(const ActivityBinning& binning, const std::vector<std::int64_t>& run_ns);
  // The run time per cell of the subsecond heat map (run_time_bins.hpp).
  [[nodiscard]] Status add_subsecond_bins(const ActivityBinning& binning, const std::vector<std::int64_t>& run_ns);
  // The edges per bin (edge_bins.hpp).
  [[nodiscard]] Status add_edge_bins(const EdgeBins& bins);
  [[nodiscard]] Status add_warning(std::string_view kind, std::optional<EventId> event,
                                   std::string_view message);
  [[nodiscard]] Status set_meta(std::string_view key, std::int64_t value);
  [[nodiscard]] Status set_meta(std::string_view key, std::string_view value);
  // Stamps the schema, commits and closes. The file is complete after this.
  [[nodiscard]] Status finish();

  // The records written so far: those of the blocks added.
  [[nodiscard]] std::uint64_t events_written() const;
  // True when the last failure was SQLite running out of memory.
  [[nodiscard]] bool out_of_memory() const;

 private:
  struct State;
  explicit StoreWriter(std::unique_ptr<State> s);
  // event_block_reach, from the blocks added so far (all of them, by then).
  [[nodiscard]] Status add_block_reach();
  // The activations' blocks: the one being packed, taken into the rows
  // to write; those rows written; and the last block with the count.
  void take_activation_block();
  [[nodiscard]] Status write_activation_blocks();
  [[nodiscard]] Status finish_activations();
  std::unique_ptr<State> s_;
};

}  // namespace skein
