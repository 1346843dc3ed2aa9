// overview_trace.hpp — the trace the overview, heat map and flame graph
// tests share (inspection_overview_test.cpp, the cores;
// inspection_overview_widgets_test.cpp, the widgets).
//
// Structure first, all at time 0 (spawns and labels make their actor the
// running thread; the switch to -1 ends those empty activations):
//   0 (main, unlabelled) created 1 "server" and 5 (unlabelled);
//   1 created 2 (unlabelled) and 4 "db"; 2 created 3 "handler";
//   3 created 6 (unlabelled); the scheduler created 7 "timer".
// Then who ran when, ns:
//   1 [1000, 2000)  3 [2000, 2500)  6 [2500, 3000)  4 [4000, 4600)
//   5 [6000, 6300)  2 [6300, 6500)  7 [8000, 9000); the trace ends at 10000.
#pragma once

namespace skein::test {

inline constexpr const char* kOverviewTrace = R"((skein-trace 1 (process "overview-test"))
(spawn 0 1 0 task)
(spawn 0 5 0 task)
(label 0 1 "server")
(spawn 0 2 1 bind)
(spawn 0 4 1 task)
(label 0 4 "db")
(spawn 0 3 2 task)
(label 0 3 "handler")
(spawn 0 6 3 bind)
(spawn 0 7 -1 task)
(label 0 7 "timer")
(switch 0 -1)
(switch 1000 1)
(switch 2000 3)
(switch 2500 6)
(switch 3000 -1)
(switch 4000 4)
(switch 4600 -1)
(switch 6000 5)
(switch 6300 2)
(switch 6500 -1)
(switch 8000 7)
(switch 9000 -1)
(end 10000)
)";

}  // namespace skein::test
