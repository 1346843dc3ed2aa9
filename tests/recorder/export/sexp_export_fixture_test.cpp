// sexp_export_fixture_test.cpp — the sexp round trip on the real 2014
// MirageOS traces (SKEIN_FIXTURES, default ../shared/fixtures/mirage;
// skipped when absent): each fixture, imported, exported to Skein's format
// and imported again, gives the same tables (tests/support/store_tables.hpp),
// and the export keeps its original format in the header.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "recorder/export/sexp_export.hpp"
#include "recorder/store/trace_import.hpp"
#include "tests/recorder/fixture_path.hpp"
#include "tests/support/store_query.hpp"
#include "tests/support/store_tables.hpp"

using namespace skein;
using skein::test::query;
using skein::test::TempDir;

TEST_CASE("sexp export fixtures: the three 2014 traces round-trip through Skein's format") {
  struct Fixture {
    const char* file;
    const char* format;
  };
  for (const Fixture& f : {Fixture{"log-x86.sexp", "mirage-sexp"}, Fixture{"log-x86-v0.sexp", "mirage-sexp"},
                           Fixture{"net.ctf", "mirage-ctf"}}) {
    const std::string path = test::fixture_path(f.file);
    if (path.empty()) return;
    INFO(f.file);
    TempDir dir;
    ImportOptions options;
    options.sync = false;
    const std::string first = dir.file("first.db");
    const ImportResult imported = import_trace(path, first, options);
    INFO(imported.error.to_string());
    REQUIRE(imported.ok());

    const std::string exported = dir.file("export.sexp.gz");
    {
      auto store = TraceStore::open(first);
      REQUIRE(store.ok());
      auto sink = open_output(exported);
      REQUIRE(sink.ok());
      const auto written = export_sexp(store.value(), std::move(sink).value());
      INFO((written.ok() ? std::string() : written.error().to_string()));
      REQUIRE(written.ok());
      CHECK(std::to_string(written.value()) + "\n" == query(first, "SELECT count(*) FROM events"));
    }
    const std::string second = dir.file("second.db");
    const ImportResult again = import_trace(exported, second, options);
    INFO(again.error.to_string());
    REQUIRE(again.ok());
    CHECK(again.report.format == "skein");
    CHECK(query(second, "SELECT value FROM meta WHERE key = 'header.source-format'") == std::string(f.format) + "\n");
    CHECK(test::trace_tables_text(first) == test::trace_tables_text(second));
  }
}
