// units_test.cpp — the counts people read (viewer/analysis/units.hpp): a
// noun agrees with its count, 0 and many plural, 1 singular, an irregular
// plural when given, the digits grouped by thousands.
#include <catch2/catch.hpp>

#include "viewer/analysis/units.hpp"

using namespace skein;

TEST_CASE("units: a noun agrees with its count", "[units]") {
  CHECK(plural_noun(0, "rule") == "rules");
  CHECK(plural_noun(1, "rule") == "rule");
  CHECK(plural_noun(2, "rule") == "rules");
  CHECK(plural_noun(1, "match", "matches") == "match");
  CHECK(plural_noun(3, "match", "matches") == "matches");
  CHECK(counted(1, "finding") == "1 finding");
  CHECK(counted(16, "finding") == "16 findings");
  CHECK(counted(0, "finding") == "0 findings");
  CHECK(counted(1, "more warning", "more warnings") == "1 more warning");
  CHECK(counted(1234567, "thread") == "1,234,567 threads");
  CHECK(counted(UINT64_MAX, "record") == "18446744073709551615 records");
}
