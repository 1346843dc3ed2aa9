// trace_database_fuzzer.cpp — libFuzzer target over trace database files:
// the input bytes are written to a file, which TraceStore::open opens as
// every command and skein-view open a database they are given; then what
// `skein info`, `summary` and `lint` read of it, the first frame read from
// the levels and drawn (timeline_first_frame.hpp), load_timeline, the
// viewer's pictures (viewer_paths.hpp), one frame painted by
// render_timeline_image at 160 x 90, as `skein render` and skein-view
// draw it, a window read alone and drawn (load_timeline_window), the
// rows' spans of the first rows (row_spans.hpp; the run time per bin,
// run_time_bins.hpp, is read by load_timeline), the edges per bin
// (edge_bins.hpp) at the whole trace's zoom, and a
// lint's stored findings (all, and a window's) and causes as the viewer and
// `skein why` read them; and the activations, forwards and back. Seeds:
// databases fuzz_database_seeds makes at fuzz time from small traces, with
// values no import writes, linted databases among them (tools/fuzz).
//
// Invariants, beyond "no crash" (ASan and UBSan are on): open refuses a
// damaged database with an error naming it; an opened one loads or fails
// naming it; a loaded timeline holds its invariants; the frame has the
// size asked for. The QGuiApplication (fonts, for painting text) is made
// once, on the offscreen platform.
#include <QGuiApplication>
#include <QImage>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "recorder/store/activations_table.hpp"
#include "recorder/store/edge_bins.hpp"
#include "recorder/store/row_spans.hpp"
#include "tests/fuzz/viewer_paths.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/why_answer.hpp"
#include "viewer/render/timeline_image.hpp"
#include "viewer/timeline/timeline_first_frame.hpp"
#include "viewer/timeline/timeline_window.hpp"

namespace {

const std::string& database_path() {
  static const std::string path = skein::fuzz::scratch_directory() + "/fuzz.db";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("QT_QPA_PLATFORM", "offscreen", 1);
  static int argc = 1;
  static char name[] = "trace_database_fuzzer";
  static char* argv[] = {name, nullptr};
  static QGuiApplication* app = new QGuiApplication(argc, argv);
  (void)app;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = database_path();
  skein::fuzz::remove_database(path);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                static_cast<std::streamsize>(size));
  auto store = skein::TraceStore::open(path);
  if (!store) {
    skein::fuzz::check_names(store.error(), path);
    return 0;
  }
  skein::fuzz::run_queries(store.value());
  // Every activation, as `skein export --format chrome` reads them, and the
  // last ones again backwards, as Why? does: in id order, ids counted from
  // 1, or an error naming the file.
  if (auto activations = skein::ActivationReader::open(store.value().database()); !activations) {
    skein::fuzz::check_names(activations.error(), path);
  } else {
    std::int64_t next = 1;
    const skein::Status walked = activations.value().for_each(1, activations.value().count(),
                                                              [&](const skein::StoredActivation& a) {
                                                                if (a.id != next++) skein::fuzz::violated("activation order");
                                                              });
    if (!walked.ok()) skein::fuzz::check_names(walked.error(), path);
    std::int64_t back = activations.value().count();
    const skein::Status backward = activations.value().backward(back, [&](const skein::StoredActivation& a) {
      if (a.id != back--) skein::fuzz::violated("activation order backwards");
      return back > activations.value().count() - 2000;
    });
    if (!backward.ok()) skein::fuzz::check_names(backward.error(), path);
  }
  // The first frame read from the levels, as skein-view reads it before
  // the whole load (the rows' extents among them): when given, it draws at
  // the size asked, with a count of edges per column.
  if (auto first = skein::load_timeline_first_frame(store.value(), 160, 90); !first) {
    skein::fuzz::check_names(first.error(), path);
  } else if (first.value()) {
    const skein::TimelineFirstFrame& f = *first.value();
    if (f.edge_density.size() != 160) skein::fuzz::violated("first frame's edge columns");
    skein::TimelinePaintOptions options;
    options.edge_density = &f.edge_density;
    const QImage picture = skein::render_timeline_image(f.data, f.view, 160, 90, options);
    if (picture.width() != 160 || picture.height() != 90) skein::fuzz::violated("first frame size");
  }
  skein::TimelineLoadOptions load;
  load.write_layout_cache = false;
  load.activity = true;  // the run time per bin, as skein-view reads it
  auto loaded = skein::load_timeline(store.value(), load);
  if (!loaded) {
    skein::fuzz::check_names(loaded.error(), path);
    return 0;
  }
  const skein::TimelineData& timeline = loaded.value();
  skein::fuzz::run_pictures(timeline);
  skein::RenderRequest request;
  request.width = 160;
  request.height = 90;
  const QImage frame = skein::render_timeline_image(timeline, skein::view_for_request(timeline, request),
                                                    request.width, request.height);
  if (frame.width() != request.width || frame.height() != request.height) skein::fuzz::violated("frame size");
  // A window read alone, as `skein render --from --to` reads it: the
  // trace's second tenth, which (when given) draws at the size asked too.
  {
    const skein::TimeNs span = timeline.end_time / 2 - timeline.first_time / 2;
    const skein::TimeNs from = timeline.first_time + span / 5, to = from + span / 5;
    auto window = skein::load_timeline_window(store.value(), from, to);
    if (!window) {
      skein::fuzz::check_names(window.error(), path);
    } else if (window.value()) {
      const skein::TimelineData& part = *window.value();
      if (!part.check_invariants()) skein::fuzz::violated("window invariants");
      skein::RenderRequest windowed = request;
      windowed.from = from;
      windowed.to = to;
      const QImage picture = skein::render_timeline_image(part, skein::view_for_request(part, windowed),
                                                          request.width, request.height);
      if (picture.width() != request.width || picture.height() != request.height)
        skein::fuzz::violated("window frame size");
    }
  }
  // The rows' spans, as a frame reads them: the first rows' two layers,
  // exact and at the whole trace's zoom. Read spans are in start order and
  // never end before they start.
  if (auto spans = skein::RowSpanReader::open(store.value().database()); !spans) {
    skein::fuzz::check_names(spans.error(), path);
  } else if (spans.value()) {
    for (std::int32_t row = 0; row < 3; ++row)
      for (const auto layer : {skein::RowSpanLayer::running, skein::RowSpanLayer::lines})
        for (const double ns_per_px : {0.5, double(spans.value()->span()) / 160}) {
          auto read = spans.value()->read(row, layer, timeline.first_time, timeline.end_time, ns_per_px);
          if (!read) {
            skein::fuzz::check_names(read.error(), path);
            continue;
          }
          const std::vector<skein::RowSpan>& got = read.value().spans;
          for (std::size_t k = 0; k < got.size(); ++k)
            if (got[k].end < got[k].start || (k > 0 && got[k].start < got[k - 1].start))
              skein::fuzz::violated("row spans order");
        }
  }
  // The edges per bin at the whole trace's zoom, as a frame 160 px wide
  // reads them: by bin, each with a count of at least 1.
  if (auto edges = skein::EdgeBinReader::open(store.value().database()); !edges) {
    skein::fuzz::check_names(edges.error(), path);
  } else if (edges.value()) {
    const double ns_per_px = std::max(1.0, double(timeline.end_time - timeline.first_time) / 160);
    if (const auto shift = edges.value()->shift_for(ns_per_px)) {
      auto read = edges.value()->read(*shift, timeline.first_time, timeline.end_time);
      if (!read) {
        skein::fuzz::check_names(read.error(), path);
      } else {
        const std::vector<skein::EdgeBin>& got = read.value();
        for (std::size_t k = 0; k < got.size(); ++k)
          if (got[k].count < 1 || (k > 0 && got[k].bin <= got[k - 1].bin)) skein::fuzz::violated("edge bins order");
      }
    }
  }
  (void)skein::read_stored_findings(store.value().database(), timeline.first_time, timeline.end_time);
  (void)skein::fuzz::run_lints(store.value(), false);
  // What the viewer and `skein why` read of a lint's stored results: the
  // findings (a damaged row is skipped), and the causes (a damaged block
  // is an error naming the database).
  (void)skein::read_stored_findings(store.value().database());
  auto why = skein::WhyEngine::open(store.value());
  if (!why) return 0;
  for (std::size_t i = 0; i < timeline.threads.size() && i < 4; ++i) {
    skein::WhyQuestion question;
    question.thread = timeline.threads[i].id;
    auto answer = why.value().answer(question, 64);
    if (!answer && !answer.error().file.empty()) skein::fuzz::check_names(answer.error(), path);
  }
  return 0;
}
