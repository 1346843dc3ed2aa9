// captured_record_writer.hpp — turns captured binary records back into the
// trace format's records: ticks to nanoseconds, ids to strings, and a
// (site ...) record before the first spawn that names each site.
//
// Used by the writer thread and, in the same way, by the crash handler and
// the ring snapshot; nothing here allocates once constructed, so the crash
// path may use it.
#pragma once

#include <memory>

#include "recorder/capture/capture_buffer.hpp"
#include "recorder/capture/site_table.hpp"
#include "recorder/capture/string_arena.hpp"
#include "recorder/format/trace_writer.hpp"
#include "recorder/capture/tsc_clock.hpp"

namespace skein::capture {

class CapturedRecordWriter {
 public:
  CapturedRecordWriter(const StringArena& strings, const SiteTable& sites, std::size_t site_capacity);

  void set_calibration(const TickCalibration& calibration) noexcept {
    calibration_ = calibration;
    cached_ticks_ = ~std::uint64_t{0};
  }
  [[nodiscard]] const TickCalibration& calibration() const noexcept { return calibration_; }
  // Forget which sites were written (a new file starts).
  void reset_sites() noexcept;

  // Writes one record (and its site first, if new) to `out`.
  void write(TraceWriter& out, const CapturedRecord& record) noexcept;
  [[nodiscard]] TimeNs time_of(const CapturedRecord& record) const noexcept {
    return calibration_.to_ns(record.ticks);
  }

 private:
  // The common heads (spawn, wait, read, notify, resolve without a message,
  // merge, switch, idle, lost, drop, no-waiter, queued) are formatted here, straight into the
  // writer's buffer, without building a Record: their symbols come from
  // fixed tables and need no checking, and most records share their time
  // with the record before (the capture stamps one record in several), so
  // the time's digits are kept and copied; thread ids recur in the records
  // around their spawn, so their digits are cached too (id_cache_).
  // Returns false for the others.
  // Inline in write(), with put_time and put_id inline in it, so that the
  // common record is one function with its state in registers.
  [[gnu::always_inline]] bool write_fast(TraceWriter& out, const CapturedRecord& record) noexcept;
  // The other records (through a Record and TraceWriter), out of line.
  [[gnu::noinline]] void write_slow(TraceWriter& out, const CapturedRecord& record) noexcept;
  // The time field of `ticks` (with its leading space) at p.
  [[gnu::always_inline]] char* put_time(char* p, std::uint64_t ticks) noexcept;
  // A thread id field (with its leading space) at p.
  [[gnu::always_inline]] char* put_id(char* p, std::int64_t id) noexcept;
  // A cache miss of put_id: fills the entry.
  [[gnu::noinline]] void fill_id(std::int64_t id) noexcept;

  // A direct-mapped cache of thread ids' (and site ids') digits, keyed by
  // the id's low bits. Every entry is always valid (entry i starts as the
  // digits of i), so a lookup is one compare; a miss on the id after a
  // cached one copies its digits and counts the last one up.
  struct CachedId {
    std::int64_t id;
    char text[23];  // ' ', '-', up to 19 digits, and room to copy 24 bytes at once
    std::uint8_t size;
  };
  static constexpr std::size_t kIdCacheSize = 512;
  std::unique_ptr<CachedId[]> id_cache_;

  std::uint64_t cached_ticks_ = ~std::uint64_t{0};
  char cached_time_[24] = {};
  std::uint8_t cached_time_size_ = 0;
  const StringArena& strings_;
  const SiteTable& sites_;
  std::unique_ptr<std::uint8_t[]> site_written_;
  std::size_t site_capacity_;
  TickCalibration calibration_;
};

}  // namespace skein::capture
