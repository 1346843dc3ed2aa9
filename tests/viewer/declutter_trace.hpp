// declutter_trace.hpp — the small trace the declutter filter and what rides
// on it are tested on (timeline_filter_test.cpp, timeline_marks_test.cpp),
// with what each thread is for the filter worked out here once.
#pragma once

namespace skein::test {

// 1 "server"; 2 a bind that only reads 1 and creates 3 "handler" (so
// Simplify Binds hides it and re-parents 3); 4 a map that reads 1 but also
// notifies 3 (so it is not plumbing); 5 a short child of 3 (10 ns); 6 a long
// child of 3, which runs from 1900 to 2100.
inline const char* const kDeclutterTrace = R"((skein-trace 1 (process "t"))
(spawn 1000 1 0 task)
(label 1001 1 "server")
(spawn 1100 2 1 bind)
(wait 1150 2 1)
(spawn 1200 3 2 task)
(label 1201 3 "handler")
(spawn 1300 4 1 map)
(read 1350 4 1)
(notify 1360 4 3 io)
(spawn 1400 5 3 task)
(resolve 1410 5 5 ok)
(spawn 1500 6 3 task)
(switch 1600 1)
(resolve 1700 1 1 ok)
(read 1800 2 1)
(switch 1900 6)
(resolve 2000 6 6 ok)
(switch 2100 3)
(resolve 2200 3 3 ok)
(switch 2300 2)
(resolve 2400 2 2 ok)
(end 3000)
)";

}  // namespace skein::test
