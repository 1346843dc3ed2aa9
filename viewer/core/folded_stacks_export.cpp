// folded_stacks_export.cpp — see folded_stacks_export.hpp. Stacks are
// interned: each thread gets the id of its stack (0: the empty stack), found
// by walking up its creators until a thread whose stack is known, then
// filling in the walked path top-down, so every thread is visited a bounded
// number of times whatever the depth of its ancestry (chains of a hundred
// thousand binds take no recursion).
#include "viewer/core/folded_stacks_export.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <unordered_map>

namespace skein {
namespace {

constexpr std::size_t kUnknown = static_cast<std::size_t>(-1);
constexpr std::size_t kVisiting = static_cast<std::size_t>(-2);
constexpr std::string_view kNoLabel = "(no label)";

}  // namespace

std::string folded_frame_name(std::string_view label) {
  if (label.empty()) return "(empty label)";
  std::string out(label);
  for (char& c : out) {
    if (c == ';') c = ':';
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

std::vector<FoldedStack> folded_stacks(const std::vector<StoredThread>& threads) {
  std::unordered_map<ThreadId, std::size_t> index;
  index.reserve(threads.size());
  for (std::size_t i = 0; i < threads.size(); ++i) index.emplace(threads[i].id, i);

  std::vector<std::string> stacks{""};  // stack id -> frames; 0 is the empty stack
  std::vector<std::size_t> stack_of(threads.size(), kUnknown);
  std::vector<std::size_t> path;
  for (std::size_t start = 0; start < threads.size(); ++start) {
    // Walk up to a thread whose stack is known, or to the top.
    std::size_t base = 0;
    for (std::size_t i = start;;) {
      if (stack_of[i] != kUnknown && stack_of[i] != kVisiting) {
        base = stack_of[i];
        break;
      }
      if (stack_of[i] == kVisiting) break;  // a cycle: it closes here
      stack_of[i] = kVisiting;
      path.push_back(i);
      const auto& parent = threads[i].parent;
      const auto up = parent ? index.find(*parent) : index.end();
      if (up == index.end()) break;
      i = up->second;
    }
    // Fill in top-down: a labelled thread extends its creator's stack.
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      const StoredThread& t = threads[*it];
      if (t.label) {
        std::string frames = stacks[base];
        if (!frames.empty()) frames += ';';
        frames += folded_frame_name(*t.label);
        stacks.push_back(std::move(frames));
        base = stacks.size() - 1;
      }
      stack_of[*it] = base;
    }
    path.clear();
  }

  std::vector<TimeNs> totals(stacks.size(), 0);
  std::vector<bool> used(stacks.size(), false);
  for (std::size_t i = 0; i < threads.size(); ++i) {
    totals[stack_of[i]] += threads[i].run_time;
    used[stack_of[i]] = true;
  }
  // Equal frames may come from different paths (two roots labelled alike):
  // merge them by text.
  std::map<std::string, TimeNs> by_frames;
  for (std::size_t s = 0; s < stacks.size(); ++s) {
    if (!used[s]) continue;
    by_frames[s == 0 ? std::string(kNoLabel) : stacks[s]] += totals[s];
  }
  std::vector<FoldedStack> out;
  out.reserve(by_frames.size());
  for (auto& [frames, total] : by_frames) out.push_back(FoldedStack{frames, total});
  return out;
}

Result<std::uint64_t> export_folded_stacks(TraceStore& store, std::unique_ptr<ByteSink> sink) {
  auto threads = store.threads();
  if (!threads) return threads.error();
  std::string text;
  std::uint64_t lines = 0;
  for (const FoldedStack& s : folded_stacks(threads.value())) {
    const TimeNs us = (s.run_time + 500) / 1000;
    if (us <= 0) continue;
    text += s.frames;
    text += ' ';
    char digits[24];
    text.append(digits, std::to_chars(digits, digits + sizeof digits, us).ptr);
    text += '\n';
    ++lines;
  }
  Status written = sink->write(text);
  Status closed = sink->close();
  if (!written.ok()) return written.error();
  if (!closed.ok()) return closed.error();
  return lines;
}

}  // namespace skein
