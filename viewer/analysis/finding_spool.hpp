// finding_spool.hpp — one rule's findings, kept in the order they were
// found without holding them as objects. Each finding is encoded into a
// buffer as a few varints, with its sentence as a template and its numbers
// (finding_message_template.hpp), and the buffer goes to an unnamed
// temporary file each time it reaches its segment size. A lint of a trace
// with millions of findings (a program whose every hand-off is
// unexplained) then holds a few megabytes of them a rule, whatever the
// trace's size; reading them back decodes one segment at a time, in order.
//
// Invariants:
//   - a finding comes back exactly as it was added, its `number` aside
//     (the spool does not keep it: the report numbers findings as it
//     reads them);
//   - the file holds whole segments, each a 4-byte length and that many
//     bytes of whole findings; segments go to the file in order, so the
//     file, then any segments kept in memory, then the buffer, is the
//     order of adding;
//   - sentence templates and groups are interned (kSpoolTemplates of
//     each at most for templates; a sentence past them is kept whole);
//   - the file has no name (O_TMPFILE, or unlinked as soon as it is
//     made, in $TMPDIR or /tmp), so nothing is left behind even when the
//     process is killed;
//   - nothing is ever lost: when no temporary file can be made or written,
//     the segment stays in memory, and only the memory bound is.
// The bytes are the spool's own, written and read by this process; a
// segment that does not decode (the file changed under it) is an error
// naming the byte, never a wrong finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "viewer/analysis/lint_finding.hpp"

namespace skein {

inline constexpr std::size_t kSpoolSegmentBytes = std::size_t{4} << 20;
inline constexpr std::size_t kSpoolTemplates = 4096;

class FindingSpool {
 public:
  explicit FindingSpool(std::size_t segment_bytes = kSpoolSegmentBytes);
  ~FindingSpool();
  FindingSpool(FindingSpool&& other) noexcept;
  FindingSpool& operator=(FindingSpool&& other) noexcept;
  FindingSpool(const FindingSpool&) = delete;
  FindingSpool& operator=(const FindingSpool&) = delete;

  void add(const LintFinding& f);
  [[nodiscard]] std::uint64_t size() const { return count_; }
  // Bytes written to the temporary file so far (0: all in memory).
  [[nodiscard]] std::uint64_t bytes_spilled() const { return file_bytes_; }
  // The bytes held in memory: the buffer and any segment kept back.
  [[nodiscard]] std::size_t bytes_in_memory() const;

  // Calls `visit` with each finding in the order added (number 0); stops
  // early, with no error, when it returns false.
  [[nodiscard]] Status for_each(const std::function<bool(LintFinding&)>& visit) const;

 private:
  void spill();
  [[nodiscard]] Status decode_segment(const std::string& segment, std::uint64_t offset,
                                      const std::function<bool(LintFinding&)>& visit, bool& go_on) const;
  void close_file();

  std::size_t segment_bytes_;
  std::string buffer_;
  int fd_ = -1;
  bool file_failed_ = false;
  std::uint64_t file_bytes_ = 0;
  std::vector<std::string> kept_;  // segments that could not go to the file
  std::uint64_t count_ = 0;
  std::vector<std::string> templates_;
  std::unordered_map<std::string, std::uint32_t> template_ids_;
  std::vector<std::string> groups_;
  std::unordered_map<std::string, std::uint32_t> group_ids_;
};

}  // namespace skein
