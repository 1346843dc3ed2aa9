// capture_buffer.hpp — the memory between the scheduler thread, which
// appends fixed-size binary records, and the writer thread, which turns them
// into text.
//
// Memory is a fixed set of chunks mapped at start (the budget, default
// 64 MiB; ChunkMemory), each holding kRecordsPerChunk records of 32 bytes.
// The mapping is made before the buffer, and a budget the process cannot
// have (its address space limit, or more than the machine will commit) is
// an error value then, which the capture reports, not an exception. The producer
// fills one chunk at a time through the runtime's record window
// (runtime/trace_record.hpp): the buffer opens the window on the chunk, the
// runtime's hooks store records there inline and publish each with a
// release store of the window's cursor, so a crash handler or a snapshot can
// see every whole record (published()); when the window is full, the hook's
// slow path reaches the buffer (claim_slow) through the CaptureSink, which
// hands the chunk over, stores its final count in the chunk, and opens the
// window on the next. Then, by mode:
//
//   stream  full chunks go to the writer through a single-producer,
//           single-consumer queue (FIFO: the file keeps the order) and come
//           back through a single-producer, single-consumer stack (LIFO: the
//           producer reuses the chunk freed last, so a writer that keeps up
//           keeps the working set to a few warm chunks, and untouched pages
//           of the budget are never faulted in). When no
//           chunk is free (the writer has fallen behind and the budget is
//           spent), records are dropped and counted; the first record of the
//           next chunk is (lost TIME COUNT), so a drop is never silent.
//           Dropping is as cheap as storing: the window opens on a small
//           drop area (kDropWindowRecords records, never read), and when it
//           is full the records it took are added to the count and the
//           free stack is looked at again. The (lost ...) carries the
//           window's last stamp, so times never decrease across it.
//   ring    (flight recorder) the producer cycles through the chunks,
//           overwriting the oldest; the records overwritten are counted and
//           reported as one (lost ...) at the start of what is written.
//
// Each chunk carries the sequence number of its filling (1, 2, 3, ...), which
// orders ring chunks and lets a concurrent snapshot detect a chunk that was
// overwritten while it was being copied.
//
// Invariants:
//   1. Only the producer writes records, counts and sequences; only the
//      writer (or, with the writer locked out, the crash handler) consumes.
//      A chunk's `count` is final once the producer has left the chunk; the
//      chunk the producer is in has its count in the window's cursor.
//   2. A chunk is in exactly one place: the producer's hands, the filled
//      queue, the writer's hands, or the free queue (stream mode).
//   3. dropped() counts every record not stored since the last lost record:
//      dropped_ plus the records in the drop area below the cursor while
//      the window is on it.
//   4. One CaptureBuffer at a time opens the runtime's window (the capture
//      allows one capture at a time); its destructor closes it.
//   5. Stream mode: while the writer is behind by backlog_limit() chunks or
//      more (a quarter of the budget), the producer does not take a chunk
//      the writer has not faulted in (prefault_ahead): it drops and counts
//      instead, and the writer hears of it at once; and the capture's
//      writer faults memory in only while it is not that far behind. Fresh
//      memory is the dearest thing a capture touches (zeroing, and on a
//      virtual machine the host's backing: up to several milliseconds for a
//      2 MiB page here), and a producer that keeps outrunning the writer
//      would only postpone its drops by taking all of it; so under a
//      sustained overload the producer goes round a quarter of the budget,
//      the chunks the writer gives back, and drops the rest. A burst that
//      fits in a quarter of the budget loses nothing, however slow the
//      writer.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "runtime/trace_record.hpp"

namespace skein::capture {

// One record as the scheduler thread stores it (the runtime's trace::Record):
// raw ticks and small integers; strings and sites are ids (string_arena.hpp,
// site_table.hpp); `head` is a skein::RecordHead.
using CapturedRecord = trace::Record;

// The runtime's record codes are the format's record heads.
#define SKEIN_SAME_HEAD(name) \
  static_assert(static_cast<int>(trace::RecordCode::name) == static_cast<int>(RecordHead::name))
SKEIN_SAME_HEAD(site);
SKEIN_SAME_HEAD(spawn);
SKEIN_SAME_HEAD(label);
SKEIN_SAME_HEAD(switch_);
SKEIN_SAME_HEAD(wait);
SKEIN_SAME_HEAD(read);
SKEIN_SAME_HEAD(notify);
SKEIN_SAME_HEAD(resolve);
SKEIN_SAME_HEAD(merge);
SKEIN_SAME_HEAD(counter);
SKEIN_SAME_HEAD(idle);
SKEIN_SAME_HEAD(gc);
SKEIN_SAME_HEAD(lost);
SKEIN_SAME_HEAD(end);
SKEIN_SAME_HEAD(return_);
SKEIN_SAME_HEAD(should_resolve);
SKEIN_SAME_HEAD(snapshot);
SKEIN_SAME_HEAD(drop);
SKEIN_SAME_HEAD(no_waiter);
SKEIN_SAME_HEAD(queued);
#undef SKEIN_SAME_HEAD
static_assert(static_cast<std::size_t>(trace::RecordCode::queued) + 1 == kRecordHeadCount,
              "every record head has its runtime code: a new head is added to both enums, at the end");

inline constexpr std::size_t kChunkBytes = 32 * 1024;
inline constexpr std::size_t kRecordsPerChunk = kChunkBytes / sizeof(CapturedRecord) - 1;

struct alignas(64) Chunk {
  std::atomic<std::uint32_t> count{0};     // records published
  std::atomic<std::uint64_t> sequence{0};  // 0: never filled
  CapturedRecord records[kRecordsPerChunk];
};

// A bounded single-producer single-consumer queue of chunk indexes.
class ChunkQueue {
 public:
  explicit ChunkQueue(std::size_t capacity);
  [[nodiscard]] bool push(std::uint32_t index) noexcept;  // false when full
  [[nodiscard]] bool pop(std::uint32_t& index) noexcept;  // false when empty
  [[nodiscard]] bool empty() const noexcept;
  [[nodiscard]] std::size_t size() const noexcept;

 private:
  std::unique_ptr<std::uint32_t[]> slots_;
  std::size_t mask_;
  alignas(64) std::atomic<std::size_t> head_{0};  // next to pop
  alignas(64) std::atomic<std::size_t> tail_{0};  // next to push
};

// A single-producer (the writer, giving chunks back), single-consumer (the
// scheduler thread, taking them) stack of chunk indexes. With one popper, a
// popped index cannot come back between the popper's two reads, so there is
// no ABA problem.
class ChunkStack {
 public:
  explicit ChunkStack(std::size_t capacity);
  void push(std::uint32_t index) noexcept;
  [[nodiscard]] bool pop(std::uint32_t& index) noexcept;
  // The index pop() would return now, or kEmpty; the popper only (a push
  // may put another on top meanwhile).
  [[nodiscard]] std::uint32_t top() const noexcept { return head_.load(std::memory_order_acquire); }
  static constexpr std::uint32_t kEmpty = 0xffffffffu;

 private:
  std::unique_ptr<std::atomic<std::uint32_t>[]> next_;
  alignas(64) std::atomic<std::uint32_t> head_{kEmpty};
};

enum class CaptureMode { stream, ring };

// The memory a CaptureBuffer's chunks live in: one anonymous mapping whose
// chunks start on a 2 MiB boundary, unmapped when this is destroyed. The
// chunks are raw memory until the buffer constructs them.
class ChunkMemory {
 public:
  // Room for as many chunks as `budget_bytes` holds, at least 2. Fails,
  // saying how much was asked for and why, when the mapping cannot be had.
  [[nodiscard]] static Result<ChunkMemory> map(std::size_t budget_bytes);

  ChunkMemory(ChunkMemory&& other) noexcept;
  ChunkMemory& operator=(ChunkMemory&& other) = delete;
  ChunkMemory(const ChunkMemory&) = delete;
  ChunkMemory& operator=(const ChunkMemory&) = delete;
  ~ChunkMemory();

  [[nodiscard]] Chunk* chunks() const noexcept { return chunks_; }
  [[nodiscard]] std::size_t count() const noexcept { return count_; }

 private:
  ChunkMemory(void* mapping, std::size_t mapping_bytes, Chunk* chunks, std::size_t count) noexcept
      : mapping_(mapping), mapping_bytes_(mapping_bytes), chunks_(chunks), count_(count) {}

  void* mapping_ = nullptr;  // null once moved from
  std::size_t mapping_bytes_ = 0;
  Chunk* chunks_ = nullptr;
  std::size_t count_ = 0;
};

class CaptureBuffer {
 public:
  CaptureBuffer(ChunkMemory memory, CaptureMode mode);
  ~CaptureBuffer();
  CaptureBuffer(const CaptureBuffer&) = delete;
  CaptureBuffer& operator=(const CaptureBuffer&) = delete;

  // --- producer (the scheduler thread) ---

  // Makes the window ready for the next record (a fresh chunk, or the drop
  // area when nothing is free, where the record is counted as dropped); the
  // caller then stores it through the window (trace::detail::write_record).
  // False only if no window could be opened (the record is then lost
  // uncounted; claim_slow always opens one).
  [[nodiscard]] bool make_room() noexcept {
    const trace::RecordWindow& w = trace::detail::g_record_window;
    if (w.cursor.load(std::memory_order_relaxed) != w.end) [[likely]] return true;
    return claim_slow() != nullptr;
  }
  // Hands the current chunk to the writer even if it is not full (stop,
  // flush). Stream mode only.
  void hand_over_current() noexcept;
  [[nodiscard]] std::uint64_t dropped() const noexcept {
    const CapturedRecord* cursor = trace::detail::g_record_window.cursor.load(std::memory_order_acquire);
    if (cursor >= drop_area_ && cursor <= drop_area_ + kDropWindowRecords)
      return dropped_ + static_cast<std::uint64_t>(cursor - drop_area_);
    return dropped_;
  }
  // Records overwritten in ring mode since the start.
  [[nodiscard]] std::uint64_t overwritten() const noexcept { return overwritten_.load(std::memory_order_acquire); }
  // Called by the producer's owner when a chunk was handed over (the capture
  // decides whether that is worth waking the writer for), with `starved`
  // true when no free chunk could be taken for the next records (none
  // left, or invariant 5); set by the capture.
  void (*on_chunk_filled)(void* context, bool starved) = nullptr;
  // The most chunks prefault_ahead faults in a call (2 MiB).
  static constexpr std::uint32_t kPrefaultStep = 64;
  // The writer's backlog, in filled chunks, from which invariant 5 holds: a
  // quarter of the budget, at least kMinBacklogChunks.
  [[nodiscard]] std::size_t backlog_limit() const noexcept { return backlog_limit_; }
  static constexpr std::size_t kMinBacklogChunks = 32;
  void* on_chunk_filled_context = nullptr;

  // --- consumer (the writer thread, or the crash handler) ---

  [[nodiscard]] bool pop_filled(std::uint32_t& index) noexcept { return filled_.pop(index); }
  [[nodiscard]] bool has_filled() const noexcept { return !filled_.empty(); }
  // Chunks handed over and not yet popped. Any thread.
  [[nodiscard]] std::size_t filled_count() const noexcept { return filled_.size(); }
  void give_back(std::uint32_t index) noexcept;
  [[nodiscard]] Chunk& chunk(std::uint32_t index) noexcept { return chunks_[index]; }
  [[nodiscard]] std::uint32_t chunk_count() const noexcept { return static_cast<std::uint32_t>(count_); }
  // The records of `chunk` that are complete: its final count, or for the
  // chunk the producer is in, up to the window's cursor. Any thread.
  [[nodiscard]] std::uint32_t published(const Chunk& chunk) const noexcept {
    const CapturedRecord* cursor = trace::detail::g_record_window.cursor.load(std::memory_order_acquire);
    if (cursor >= chunk.records && cursor <= chunk.records + kRecordsPerChunk)
      return static_cast<std::uint32_t>(cursor - chunk.records);
    return chunk.count.load(std::memory_order_acquire);
  }
  // The chunk the producer is filling (see published()), or -1.
  [[nodiscard]] std::int64_t current_index() const noexcept { return current_index_.load(std::memory_order_acquire); }
  [[nodiscard]] CaptureMode mode() const noexcept { return mode_; }
  // Faults in the pages of every chunk ahead of use (ring mode, which cycles
  // through all of them), a chunk at a time until `stop` turns true. Does not
  // change their contents, so it may run while the producer writes.
  void prefault(const std::atomic<bool>& stop) noexcept;
  // Stream mode: faults in the chunks the producer will take next, up to
  // `ahead` chunks past the highest it has taken (or, once it has taken
  // more than `ahead`, as many again as it has taken), so the scheduler
  // thread does not take page faults (a few microseconds each, zeroing
  // included) while the pages of the budget it never reaches stay
  // untouched. The chunks in use are always a prefix 0..frontier-1 of the
  // array (the free stack hands them out in index order at first, and reuse
  // is LIFO), so "ahead" is simply the next indexes. At most kPrefaultStep
  // chunks a call; stops early when `stop` turns true. Writer thread only.
  void prefault_ahead(std::uint32_t ahead, const std::atomic<bool>& stop) noexcept;
  // Chunks 0..prefaulted()-1 are faulted in (or cannot be, and fault on
  // use). Any thread (the producer, for invariant 5).
  [[nodiscard]] std::uint32_t prefaulted() const noexcept { return prefaulted_.load(std::memory_order_relaxed); }

 private:
  CapturedRecord* claim_slow() noexcept;
  bool take_free_chunk() noexcept;
  void start_chunk(std::uint32_t index) noexcept;
  // Stores the final count of the chunk the producer is in and closes the
  // window.
  void leave_chunk() noexcept;
  // Stream mode, nothing free: the window takes records into the drop area.
  void open_drop_window() noexcept;

  // Records the drop area holds; also how often a dropping producer looks
  // for a free chunk.
  static constexpr std::size_t kDropWindowRecords = 64;

  ChunkMemory memory_;
  CaptureMode mode_;
  std::size_t count_;
  std::size_t backlog_limit_;
  Chunk* chunks_;  // count_ chunks, in memory_
  ChunkQueue filled_;
  ChunkStack free_;

  // Producer state (the cursor is the runtime's window).
  Chunk* current_ = nullptr;
  std::atomic<std::int64_t> current_index_{-1};
  std::uint64_t next_sequence_ = 1;
  std::uint64_t dropped_ = 0;                  // not counting the drop area's
  alignas(64) CapturedRecord drop_area_[kDropWindowRecords];
  std::atomic<std::uint64_t> overwritten_{0};
  std::uint32_t ring_next_ = 0;
  std::uint32_t frontier_seen_ = 0;            // producer: 1 + the highest chunk index taken
  std::atomic<std::uint32_t> frontier_{0};     // the same, published for the writer
  std::atomic<std::uint32_t> prefaulted_{0};   // writer: chunks 0..prefaulted_-1 are faulted in
};

}  // namespace skein::capture
