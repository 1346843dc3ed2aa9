// capture_writer.hpp — turns captured binary records back into the trace
// format's records: ticks to nanoseconds, ids to strings, and a (site ...)
// record before the first spawn that names each site.
//
// Used by the writer thread and, in the same way, by the crash handler and
// the ring snapshot; nothing here allocates once constructed, so the crash
// path may use it.
#pragma once

#include <memory>

#include "recorder/capture_buffer.hpp"
#include "recorder/site_table.hpp"
#include "recorder/string_arena.hpp"
#include "recorder/trace_writer.hpp"
#include "recorder/tsc_clock.hpp"

namespace skein::capture {

class CapturedRecordWriter {
 public:
  CapturedRecordWriter(const StringArena& strings, const SiteTable& sites, std::size_t site_capacity);

  void set_calibration(const TickCalibration& calibration) noexcept { calibration_ = calibration; }
  [[nodiscard]] const TickCalibration& calibration() const noexcept { return calibration_; }
  // Forget which sites were written (a new file starts).
  void reset_sites() noexcept;

  // Writes one record (and its site first, if new) to `out`.
  void write(TraceWriter& out, const CapturedRecord& record) noexcept;
  [[nodiscard]] TimeNs time_of(const CapturedRecord& record) const noexcept {
    return calibration_.to_ns(record.ticks);
  }

 private:
  const StringArena& strings_;
  const SiteTable& sites_;
  std::unique_ptr<std::uint8_t[]> site_written_;
  std::size_t site_capacity_;
  TickCalibration calibration_;
};

}  // namespace skein::capture
