// merge_groups.hpp — threads joined by `merge` records into one logical
// thread (recorder/store/SCHEMA.md, rule 4): Skein's runtime records a merged
// thread's later events under the thread it merged into (chains A->B->C),
// the 2014 MirageOS traces under the first (A->B1, A->B2, ...); a group
// covers both. Union-find with path halving; the representative of a group
// is its smallest id, which for ids counting up is the thread created
// first, so a group's name does not change as it grows.
#pragma once

#include "viewer/analysis/thread_table.hpp"

namespace skein {

class MergeGroups {
 public:
  void merge(ThreadId a, ThreadId b) {
    const ThreadId ra = root(a);
    const ThreadId rb = root(b);
    if (ra == rb) return;
    if (ra < rb) parent_.at(rb).id = ra;
    else parent_.at(ra).id = rb;
  }
  [[nodiscard]] ThreadId root(ThreadId t) {
    for (;;) {
      const ThreadId p = parent_.at(t).id;
      if (p == kUnset) return t;
      const ThreadId gp = parent_.at(p).id;
      if (gp == kUnset) return p;
      parent_.at(t).id = gp;  // path halving
      t = gp;
    }
  }

 private:
  static constexpr ThreadId kUnset = INT64_MIN;
  struct Parent {
    ThreadId id = kUnset;
  };
  ThreadTable<Parent> parent_;
};

}  // namespace skein
