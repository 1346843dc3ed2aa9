// capture_buffer.cpp — the chunks' mapping, the lock-free chunk queue and
// stack, and the producer's chunk hand-over. All chunks live in one anonymous
// mmap aligned to 2 MiB (first 2 MiB MADV_NOHUGEPAGE, the rest
// MADV_HUGEPAGE); a failed mmap is the error ChunkMemory::map returns; ring mode
// constructs every chunk up front, stream mode each on first take. A chunk's
// count and sequence are reset before the window's cursor enters it, so
// published() never pairs a stale count with it. A dropped run is reported
// as a (lost ...) record written first into the next chunk taken.
// Prefaulting uses MADV_POPULATE_WRITE, and is a no-op where it is missing.
#include "recorder/capture/capture_buffer.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "recorder/format/record.hpp"

namespace skein::capture {
namespace {

constexpr std::uintptr_t kHugePageBytes = std::uintptr_t{2} << 20;

std::size_t round_up_pow2(std::size_t n) {
  std::size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

}  // namespace

ChunkQueue::ChunkQueue(std::size_t capacity)
    : slots_(new std::uint32_t[round_up_pow2(capacity + 1)]), mask_(round_up_pow2(capacity + 1) - 1) {}

bool ChunkQueue::push(std::uint32_t index) noexcept {
  const std::size_t tail = tail_.load(std::memory_order_relaxed);
  if (tail - head_.load(std::memory_order_acquire) > mask_) return false;
  slots_[tail & mask_] = index;
  tail_.store(tail + 1, std::memory_order_release);
  return true;
}

bool ChunkQueue::pop(std::uint32_t& index) noexcept {
  const std::size_t head = head_.load(std::memory_order_relaxed);
  if (head == tail_.load(std::memory_order_acquire)) return false;
  index = slots_[head & mask_];
  head_.store(head + 1, std::memory_order_release);
  return true;
}

bool ChunkQueue::empty() const noexcept {
  return head_.load(std::memory_order_acquire) == tail_.load(std::memory_order_acquire);
}

std::size_t ChunkQueue::size() const noexcept {
  const std::size_t head = head_.load(std::memory_order_acquire);
  return tail_.load(std::memory_order_acquire) - head;
}

ChunkStack::ChunkStack(std::size_t capacity) : next_(new std::atomic<std::uint32_t>[capacity]) {}

void ChunkStack::push(std::uint32_t index) noexcept {
  std::uint32_t head = head_.load(std::memory_order_relaxed);
  do {
    next_[index].store(head, std::memory_order_relaxed);
  } while (!head_.compare_exchange_weak(head, index, std::memory_order_release, std::memory_order_relaxed));
}

bool ChunkStack::pop(std::uint32_t& index) noexcept {
  std::uint32_t head = head_.load(std::memory_order_acquire);
  while (head != kEmpty) {
    const std::uint32_t next = next_[head].load(std::memory_order_relaxed);
    if (head_.compare_exchange_weak(head, next, std::memory_order_acquire, std::memory_order_acquire)) {
      index = head;
      return true;
    }
  }
  return false;
}

namespace {

// "30000 MiB", or the bytes when the budget is not a whole number of MiB.
std::string describe_budget(std::size_t budget_bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  if (budget_bytes % kMiB == 0) return std::to_string(budget_bytes / kMiB) + " MiB";
  return std::to_string(budget_bytes) + " bytes";
}

}  // namespace

Result<ChunkMemory> ChunkMemory::map(std::size_t budget_bytes) {
  const std::size_t count = budget_bytes / sizeof(Chunk) < 2 ? 2 : budget_bytes / sizeof(Chunk);
  // mmap: page-aligned, zero pages until touched, so an unused budget costs
  // address space, not memory.
  // The chunks start on a 2 MiB boundary and are offered to the kernel as
  // transparent huge pages: the budget then faults in 2 MiB at a time, a
  // few dozen faults for 64 MiB instead of sixteen thousand (zeroing
  // included, they were the largest cost of a busy capture after the
  // records themselves). Where huge pages are off, nothing changes.
  const std::size_t bytes = count * sizeof(Chunk);
  const std::size_t mapping_bytes = bytes + kHugePageBytes;
  void* mapping = mmap(nullptr, mapping_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) {
    const int error = errno;
    return file_error("capture buffer of " + describe_budget(budget_bytes),
                      std::string("cannot be mapped: ") + std::strerror(error) +
                          " (more than this process's address space limit or the machine's memory allows; "
                          "SKEIN_TRACE_BUFFER_MB sets its size)");
  }
  const auto start = (reinterpret_cast<std::uintptr_t>(mapping) + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  auto* chunks = reinterpret_cast<Chunk*>(start);
  // Except the first 2 MiB, which a capture always touches (chunk 0, at
  // start, on the program's thread) and a light program never leaves: a
  // huge page there would cost every capture a 2 MiB fault at start, from a
  // few hundred microseconds to several milliseconds on a virtual machine.
#if defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
  const std::size_t small = bytes < kHugePageBytes ? bytes : kHugePageBytes;
  (void)madvise(chunks, small, MADV_NOHUGEPAGE);
  if (bytes > small) (void)madvise(reinterpret_cast<char*>(chunks) + small, bytes - small, MADV_HUGEPAGE);
#endif
  return ChunkMemory(mapping, mapping_bytes, chunks, count);
}

ChunkMemory::ChunkMemory(ChunkMemory&& other) noexcept
    : mapping_(other.mapping_), mapping_bytes_(other.mapping_bytes_), chunks_(other.chunks_), count_(other.count_) {
  other.mapping_ = nullptr;
  other.chunks_ = nullptr;
  other.count_ = 0;
}

ChunkMemory::~ChunkMemory() {
  if (mapping_ != nullptr) munmap(mapping_, mapping_bytes_);
}

CaptureBuffer::CaptureBuffer(ChunkMemory memory, CaptureMode mode)
    : memory_(std::move(memory)),
      mode_(mode),
      count_(memory_.count()),
      backlog_limit_(count_ / 4 < kMinBacklogChunks ? kMinBacklogChunks : count_ / 4),
      chunks_(memory_.chunks()),
      filled_(count_),
      free_(count_) {
  // Ring mode reads every chunk's sequence, so every chunk is constructed
  // now; stream mode only ever looks at chunks the producer has taken, and
  // constructs each on first use (start_chunk), so starting a capture does
  // not fault in one page of every chunk.
  if (mode_ == CaptureMode::ring)
    for (std::size_t i = 0; i < count_; ++i) ::new (&chunks_[i]) Chunk;
  if (mode_ == CaptureMode::stream) {
    // Pushed last to first, so they come out 1, 2, 3, ... at the start.
    for (std::uint32_t i = static_cast<std::uint32_t>(count_) - 1; i >= 1; --i) free_.push(i);
  }
  start_chunk(0);
}

CaptureBuffer::~CaptureBuffer() {
  // Close the runtime's window (invariant 4).
  trace::RecordWindow& w = trace::detail::g_record_window;
  w.cursor.store(nullptr, std::memory_order_release);
  w.end = nullptr;
  const std::size_t constructed = mode_ == CaptureMode::ring ? count_ : frontier_seen_;
  for (std::size_t i = 0; i < constructed; ++i) chunks_[i].~Chunk();
}

void CaptureBuffer::start_chunk(std::uint32_t index) noexcept {
  if (mode_ == CaptureMode::stream && index >= frontier_seen_) ::new (&chunks_[index]) Chunk;
  current_ = &chunks_[index];
  current_->count.store(0, std::memory_order_relaxed);
  current_->sequence.store(next_sequence_++, std::memory_order_release);
  current_index_.store(index, std::memory_order_release);
  // Open the window on it: the count above is reset before the cursor
  // enters the chunk, so published() never pairs a stale count with it.
  trace::RecordWindow& w = trace::detail::g_record_window;
  w.end = current_->records + kRecordsPerChunk;
  w.cursor.store(current_->records, std::memory_order_release);
  if (index >= frontier_seen_) {
    frontier_seen_ = index + 1;
    frontier_.store(frontier_seen_, std::memory_order_relaxed);
  }
}

bool CaptureBuffer::take_free_chunk() noexcept {
  std::uint32_t index = 0;
  const std::uint32_t top = free_.top();
  if (top != ChunkStack::kEmpty && top >= prefaulted_.load(std::memory_order_relaxed) &&
      filled_.size() >= backlog_limit_)
    return false;  // invariant 5: not fresh memory while the writer is behind
  if (!free_.pop(index)) return false;
  start_chunk(index);
  if (dropped_ > 0) {
    // The first record of the new chunk says how many were dropped.
    trace::RecordWindow& w = trace::detail::g_record_window;
    CapturedRecord* r = w.cursor.load(std::memory_order_relaxed);
    // Its time is the producer's last stamp, that of the last record made
    // (stored or dropped): no earlier than any record before it, and no
    // later than the record that found this chunk, which is stamped next,
    // from the same stamp or a later reading (FORMAT.md, "Times written by
    // the capture"). A fresh reading here would be later than that record
    // whenever it carries the stamp before, as most records do.
    r->ticks = w.last_ticks;
    r->a = static_cast<std::int64_t>(dropped_);
    r->b = 0;
    r->ref = 0;
    r->head = static_cast<std::uint8_t>(RecordHead::lost);
    r->code = 0;
    r->flags = 0;
    w.cursor.store(r + 1, std::memory_order_release);
    dropped_ = 0;
  }
  return true;
}

void CaptureBuffer::leave_chunk() noexcept {
  trace::RecordWindow& w = trace::detail::g_record_window;
  const CapturedRecord* cursor = w.cursor.load(std::memory_order_relaxed);
  current_->count.store(static_cast<std::uint32_t>(cursor - current_->records), std::memory_order_release);
  w.end = nullptr;
  w.cursor.store(nullptr, std::memory_order_release);
}

void CaptureBuffer::hand_over_current() noexcept {
  if (mode_ != CaptureMode::stream || current_ == nullptr) return;
  if (trace::detail::g_record_window.cursor.load(std::memory_order_relaxed) == current_->records)
    return;  // nothing in it
  const auto index = static_cast<std::uint32_t>(current_ - chunks_);
  leave_chunk();
  current_index_.store(-1, std::memory_order_release);
  (void)filled_.push(index);  // cannot fail: the queue holds every chunk
  current_ = nullptr;
  // Nothing to take: drop until the writer gives one back, and tell it so.
  const bool starved = !take_free_chunk();
  if (on_chunk_filled != nullptr) on_chunk_filled(on_chunk_filled_context, starved);
}

CapturedRecord* CaptureBuffer::claim_slow() noexcept {
  trace::RecordWindow& w = trace::detail::g_record_window;
  if (mode_ == CaptureMode::ring) {
    // Overwrite the oldest chunk.
    leave_chunk();
    ring_next_ = static_cast<std::uint32_t>((ring_next_ + 1) % count_);
    Chunk& next = chunks_[ring_next_];
    const std::uint32_t lost = next.count.load(std::memory_order_relaxed);
    if (next.sequence.load(std::memory_order_relaxed) != 0)
      overwritten_.fetch_add(lost, std::memory_order_release);
    start_chunk(ring_next_);
    return w.cursor.load(std::memory_order_relaxed);
  }
  if (current_ != nullptr) {
    hand_over_current();  // and takes a free chunk, if there is one
    if (current_ != nullptr) return w.cursor.load(std::memory_order_relaxed);
  } else {
    // The drop area is full: count what it took, then look for a free chunk
    // (the free stack is a line the writer writes: once per area, not per
    // record).
    const CapturedRecord* cursor = w.cursor.load(std::memory_order_relaxed);
    w.end = nullptr;
    w.cursor.store(nullptr, std::memory_order_release);
    if (cursor != nullptr) dropped_ += static_cast<std::uint64_t>(cursor - drop_area_);
    if (take_free_chunk()) return w.cursor.load(std::memory_order_relaxed);
  }
  open_drop_window();
  return w.cursor.load(std::memory_order_relaxed);
}

void CaptureBuffer::open_drop_window() noexcept {
  trace::RecordWindow& w = trace::detail::g_record_window;
  w.end = drop_area_ + kDropWindowRecords;
  w.cursor.store(drop_area_, std::memory_order_release);
}

void CaptureBuffer::give_back(std::uint32_t index) noexcept {
  chunks_[index].count.store(0, std::memory_order_relaxed);
  free_.push(index);
}

void CaptureBuffer::prefault_ahead(std::uint32_t ahead, const std::atomic<bool>& stop) noexcept {
#ifdef MADV_POPULATE_WRITE
  // At least `ahead` chunks, and as many again as the producer has taken:
  // a producer that keeps outrunning the writer takes fresh chunks fast,
  // and a fresh 2 MiB page costs the faulting thread from a few to a few
  // hundred microseconds (zeroing, and on a virtual machine the host's
  // backing), which the writer had better pay ahead than the scheduler
  // thread on the spot. A producer the writer keeps up with stays on a few
  // warm chunks, so this stays small.
  // At most kPrefaultStep chunks a call, so a writer that is behind goes
  // on converting between steps.
  const std::uint64_t frontier = frontier_.load(std::memory_order_relaxed);
  std::uint32_t done = prefaulted_.load(std::memory_order_relaxed);
  std::uint64_t wanted = frontier + (frontier > ahead ? frontier : ahead);
  if (wanted > std::uint64_t{done} + kPrefaultStep) wanted = std::uint64_t{done} + kPrefaultStep;
  const auto limit = static_cast<std::uint32_t>(wanted < count_ ? wanted : count_);
  while (done < limit && !stop.load(std::memory_order_relaxed)) {
    // Unsupported: the producer faults on use. Otherwise published chunk
    // by chunk, so the producer may take each as soon as it is in.
    done = madvise(&chunks_[done], sizeof(Chunk), MADV_POPULATE_WRITE) == 0 ? done + 1
                                                                            : static_cast<std::uint32_t>(count_);
    prefaulted_.store(done, std::memory_order_relaxed);
  }
#else
  (void)ahead;
  (void)stop;
#endif
}

void CaptureBuffer::prefault(const std::atomic<bool>& stop) noexcept {
#ifdef MADV_POPULATE_WRITE
  for (std::size_t i = 0; i < count_ && !stop.load(std::memory_order_relaxed); ++i)
    if (madvise(&chunks_[i], sizeof(Chunk), MADV_POPULATE_WRITE) != 0) return;  // unsupported: fault on use
#else
  (void)stop;
#endif
}

}  // namespace skein::capture
