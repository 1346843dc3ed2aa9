// lwt_switch.hpp — what a `switch` record of the 2014 MirageOS traces
// means, decided from the Lwt code that wrote it.
//
// Both MirageOS formats (mirage-profile's S-expressions of October 2014 and
// its CTF packets of December 2014) were written by the tracing hooks of
// talex5/lwt's tracing branch (commit 087fe5e for mirage-trace-viewer's
// net.ctf). Their `switch THREAD` comes from three places:
//
//   1. mirage-profile's note_suspend, called through MProf.Trace.note_hiatus
//      by the MirageOS main loop just before it blocks the domain: always
//      `switch -1`. The scheduler takes control back and sleeps.
//   2. note_switch from MProf.Trace.note_resume, which the main loop calls
//      when it wakes from that sleep, and from Control.start: the first
//      switch after a `switch -1`, or the trace's first. The scheduler
//      gives control to the main loop's thread (0 in every fixture).
//   3. note_switch from inside a wakeup (lwt.ml): leave_wakeup sets the
//      current thread back to the one that called wakeup, once the
//      callbacks it ran have returned (`current_data := snapshot;
//      !tracer.note_switch ()`), and switch_to_thread does so before it
//      runs an on_success / on_failure / on_any / on_termination callback
//      or a cancel handler in the thread that registered it. Both happen
//      synchronously, inside one turn of the main loop: no scheduler is
//      involved. The note_switch of as_thread (a signal) restores the same
//      way. mirage-profile writes the record only when the current thread
//      changes (`if id <> !current_thread`).
//
// Which thread the main loop runs as: Lwt's current thread starts as 0
// (lwt.ml: `current_data = ref (Int_map.empty, 0L)`), and MirageOS's
// OS.Main.run (mirage-platform, xen/lib/main.ml) never changes it, so the
// resumes of case 2 switch to 0 in every fixture. The loop is the
// scheduler running as that thread: between two sleeps it goes round
// `aux ()` many times, and each time it wakes event channels
// (Activations.run) in an outermost wakeup whose leave_wakeup switches back
// to the loop's thread.
//
// So cases 1 and 2 are Skein `switch` records, and so is a case 3 switch
// back to the loop's thread (the thread of the latest resume): the loop has
// control again and the next wakeup is a new turn. Every other case 3
// switch is `return` (FORMAT.md): control coming back to a thread, or
// passing to a thread's own callback, inside the running turn. Importing
// those as switches made the lints believe a new turn had begun at every
// callback's return (viewer/analysis/LINTS.md, "On the 2014 MirageOS fixtures").
//
// A trace whose ring wrapped starts in the middle of a turn: its first
// switch is taken as case 2 all the same (nothing before it says
// otherwise).
#pragma once

#include <cstdint>

#include "recorder/format/record.hpp"

namespace skein {

class LwtSwitchClassifier {
 public:
  // True when a switch to `thread` (the next switch record in trace order)
  // is the scheduler's (cases 1 and 2); false for a return inside a wakeup.
  [[nodiscard]] bool scheduler_switch(ThreadId thread) {
    if (thread == kScheduler) {
      after_sleep_ = true;
      return true;
    }
    if (after_sleep_) {
      after_sleep_ = false;
      loop_thread_ = thread;
      return true;
    }
    return thread == loop_thread_;
  }

 private:
  bool after_sleep_ = true;           // the trace's first switch is Control.start's
  ThreadId loop_thread_ = INT64_MIN;  // the thread of the latest resume
};

}  // namespace skein
