// viewer_core_fuzzer.cpp — libFuzzer target from trace text to the viewer's
// core: the input is opened as a trace of any format open_trace_memory
// knows (Skein's, the MirageOS S-expressions, CTF; gzip too), imported into
// a database in a scratch directory, opened, loaded (load_timeline), drawn
// into the viewer's pictures (viewer_paths.hpp: overview, heat map, flame
// graph, summaries, view), linted with the replay's verdicts kept, the
// findings and verdicts stored as `skein lint` and `skein why` store them,
// and `skein why` asked about a few threads. Seeds: tests/fuzz/corpus
// and tests/hostile/corpus (tools/fuzz).
//
// Invariants, beyond "no crash" (ASan and UBSan are on): what an import
// writes, the store opens and load_timeline loads (the import holds values
// to the limits the store checks); the lints run on it; their results are
// stored; a loaded timeline holds its invariants.
#include <cstdint>
#include <string>
#include <string_view>

#include "recorder/store/trace_import.hpp"
#include "recorder/import/trace_source.hpp"
#include "tests/fuzz/viewer_paths.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/why_answer.hpp"

namespace {

const std::string& database_path() {
  static const std::string path = skein::fuzz::scratch_directory() + "/fuzz.db";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using skein::fuzz::violated;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto source = skein::open_trace_memory(bytes, "fuzz.sexp");
  if (!source) return 0;
  const std::string& path = database_path();
  skein::fuzz::remove_database(path);
  skein::ImportOptions options;
  options.sync = false;
  options.page_size = 1024;
  const skein::ImportResult imported = skein::import_source(std::move(source).value(), path, options);
  if (!imported.ok()) return 0;

  auto store = skein::TraceStore::open(path);
  if (!store) violated("an imported database does not open");
  skein::fuzz::run_queries(store.value());
  auto loaded = skein::load_timeline(store.value(), skein::TimelineLoadOptions{false});
  if (!loaded) violated("an imported database does not load");
  const skein::TimelineData& timeline = loaded.value();
  skein::fuzz::run_pictures(timeline);

  auto report = skein::fuzz::run_lints(store.value(), true);
  if (!report) violated("the lints fail on an imported database");
  std::vector<skein::ControlTransfer> transfers = report.value().transfers;
  if (!skein::store_lint_report(*store.value().owner(), report.value(), skein::WriteDurability::rebuildable).ok())
    violated("the findings are not stored");
  if (!skein::store_transfers(*store.value().owner(), std::move(transfers), skein::WriteDurability::rebuildable).ok())
    violated("the verdicts are not stored");

  auto reopened = skein::TraceStore::open(path);
  if (!reopened) violated("a linted database does not open");
  auto why = skein::WhyEngine::open(reopened.value());
  if (!why) violated("skein why cannot open a linted database");
  for (std::size_t i = 0; i < timeline.threads.size() && i < 4; ++i) {
    skein::WhyQuestion question;
    question.thread = timeline.threads[i].id;
    auto answer = why.value().answer(question, 64);
    if (answer) (void)skein::render_why_text(answer.value(), [](skein::ThreadId) { return std::string(); });
  }
  return 0;
}
