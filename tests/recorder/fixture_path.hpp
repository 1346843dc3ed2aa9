// fixture_path.hpp — where a fixture test finds a real 2014 MirageOS trace:
// in $SKEIN_FIXTURES when set, else in SKEIN_DEFAULT_FIXTURES (the build's
// ../shared/fixtures/mirage). A missing file is a skip, not a failure: it
// WARNs why, notes the skip (fixture_skip.hpp: the program exits 77) and
// returns "", and the test returns at once.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "tests/recorder/fixture_skip.hpp"

namespace skein::test {

[[nodiscard]] inline std::string fixture_dir() {
  const char* env = std::getenv("SKEIN_FIXTURES");
  return env != nullptr && *env != '\0' ? env : SKEIN_DEFAULT_FIXTURES;
}

// The path of `file` among the fixtures, or "" after noting a skip.
[[nodiscard]] inline std::string fixture_path(const std::string& file) {
  const std::string path = fixture_dir() + "/" + file;
  if (access(path.c_str(), R_OK) != 0) {
    WARN("SKIPPED: fixture " << path << " not found (set SKEIN_FIXTURES to the folder of the MirageOS traces)");
    note_skipped();
    return {};
  }
  return path;
}

}  // namespace skein::test
