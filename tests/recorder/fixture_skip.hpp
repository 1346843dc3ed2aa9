// fixture_skip.hpp — how a fixture test says it was skipped (Catch2 2.13 has
// no SKIP): it WARNs why, calls note_skipped() and returns; fixture_main.cpp
// turns that into exit code 77, ctest's "Skipped".
#pragma once

namespace skein::test {

inline constexpr int kSkipExitCode = 77;
void note_skipped();

}  // namespace skein::test
