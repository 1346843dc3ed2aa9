// timeline_selection_test.cpp — the one owner of the timeline's selection
// and highlights (viewer/app/timeline_selection.hpp) driving a real
// TimelineWidget under QTest (offscreen), on a hand-built trace imported
// for real, with filtered views derived from it:
//   - each layer (search, summary, Why? path) reaches the widget's marks,
//     and setting or clearing one leaves the others drawn;
//   - a thread hidden by the filter is selected and highlighted as its
//     stand-in, in the model and in pixels; a new view keeps the chosen id,
//     emits no selection change, and the unfiltered view selects the
//     chosen thread again; one hidden with no stand-in is not drawn, and
//     comes back with the unfiltered view;
//   - a selection made on the widget is taken from it, by id;
//   - a finding opened on the timeline is opened again in a new view (its
//     turn and named rows on the stand-in), and another selection ends it;
//     one missing from the view shown (derived before it arrived) selects
//     its thread there and opens with the next view that has it.
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>

#include "tests/viewer/app/highlight_band.hpp"
#include "tests/viewer/inspection_traces.hpp"
#include "tests/viewer/pixel_count.hpp"
#include "recorder/store/trace_import.hpp"
#include "viewer/app/timeline_selection.hpp"
#include "viewer/app/timeline_widget.hpp"
#include "viewer/render/timeline_style.hpp"
#include "viewer/timeline/timeline_filter.hpp"

using namespace skein;

namespace {

const char* const kTrace = test::kInspectionTrace;

int count_colour(const QImage& image, const QRect& area, const QColor& colour, int tolerance = 30) {
  return test::count_colour(image, area, colour, tolerance);
}

}  // namespace

class TimelineSelectionTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::shared_ptr<TimelineData> full_;
  std::unique_ptr<TimelineWidget> timeline_;
  std::unique_ptr<TimelineSelection> selection_;

  [[nodiscard]] std::uint32_t index(ThreadId id) const { return *full_->thread_index(id); }
  [[nodiscard]] std::shared_ptr<const FilteredTimeline> filtered(TimelineFilter filter) const {
    return std::make_shared<const FilteredTimeline>(filter_timeline(*full_, filter));
  }
  [[nodiscard]] std::vector<ThreadId> highlighted_ids() const {
    std::vector<ThreadId> out;
    for (std::uint32_t i : timeline_->view().highlighted) out.push_back(timeline_->data()->threads[i].id);
    std::sort(out.begin(), out.end());
    return out;
  }
  [[nodiscard]] std::optional<ThreadId> widget_selected_id() const {
    const auto& s = timeline_->view().selected;
    return s ? std::optional<ThreadId>(timeline_->data()->threads[*s].id) : std::nullopt;
  }
  [[nodiscard]] QRect band(std::uint32_t thread, double from, double to) const {
    return test::highlight_band(*timeline_, thread, from, to);
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const QString trace = dir_.filePath(QStringLiteral("select.sexp"));
    std::ofstream(trace.toStdString()) << kTrace;
    const QString db = dir_.filePath(QStringLiteral("select.db"));
    ImportOptions options;
    options.sync = false;
    QVERIFY(import_trace(trace.toStdString(), db.toStdString(), options).ok());
    auto store = TraceStore::open(db.toStdString());
    QVERIFY(store.ok());
    auto loaded = load_timeline(store.value(), TimelineLoadOptions{false});
    QVERIFY(loaded.ok());
    full_ = std::make_shared<TimelineData>(std::move(loaded).value());
    QCOMPARE(full_->threads.size(), std::size_t(6));
    // A finding on 4 ("worker") at 380 µs, inside 3's turn.
    TimelineAnomaly finding;
    finding.time = 380000;
    finding.thread = std::int32_t(index(4));
    finding.suspect = std::int32_t(index(1));
    finding.set_text("missing-notification", "error", "");
    finding.number = 1;
    full_->anomalies.push_back(finding);
    timeline_ = std::make_unique<TimelineWidget>();
    timeline_->resize(1200, 600);
    timeline_->show();
    QVERIFY(QTest::qWaitForWindowExposed(timeline_.get()));
    selection_ = std::make_unique<TimelineSelection>(timeline_.get());
  }

  void init() {
    // Every test starts from the whole trace, nothing selected or marked,
    // every row shown.
    selection_->set_trace(full_);
    timeline_->set_folding(RowFolding::none);
    timeline_->show_window(0, 900000);
  }

  void each_layer_reaches_the_widget_and_leaves_the_others() {
    QSignalSpy changed(selection_.get(), &TimelineSelection::marks_changed);
    selection_->set_threads(MarkLayer::summary, {3});
    selection_->set_threads(MarkLayer::search, {1, 4});
    selection_->set_current_match(4);
    selection_->set_path({{300000, 310000, 1, 2}, {250000, 260000, -1, 1}});
    QCOMPARE(changed.count(), 4);
    QCOMPARE(highlighted_ids(), (std::vector<ThreadId>{1, 2, 3, 4}));
    QCOMPARE(timeline_->view().current_match, std::optional<std::uint32_t>(index(4)));
    QCOMPARE(timeline_->view().path.size(), std::size_t(2));
    QCOMPARE(timeline_->view().path[0].cause, std::int32_t(index(1)));
    QCOMPARE(timeline_->view().path[0].effect, std::int32_t(index(2)));
    QCOMPARE(timeline_->view().path[1].cause, -1);

    // Closing the search: its bands and outline go, the summary's and the
    // path's stay.
    selection_->clear(MarkLayer::search);
    QCOMPARE(changed.count(), 5);
    QCOMPARE(highlighted_ids(), (std::vector<ThreadId>{1, 2, 3}));
    QVERIFY(!timeline_->view().current_match.has_value());
    QCOMPARE(timeline_->view().path.size(), std::size_t(2));
    // A new summary row: the path stays.
    selection_->set_threads(MarkLayer::summary, {5});
    QCOMPARE(highlighted_ids(), (std::vector<ThreadId>{1, 2, 5}));
    QCOMPARE(timeline_->view().path.size(), std::size_t(2));
    // An empty Why? answer: the summary's row stays.
    selection_->set_path({});
    QCOMPARE(highlighted_ids(), (std::vector<ThreadId>{5}));
    QVERIFY(timeline_->view().path.empty());
    // A new trace drops every layer.
    selection_->set_trace(full_);
    QVERIFY(timeline_->view().highlighted.empty());
    QVERIFY(selection_->marks().threads(MarkLayer::summary).empty());
  }

  void a_hidden_thread_is_selected_and_highlighted_as_its_stand_in() {
    QSignalSpy chosen(selection_.get(), &TimelineSelection::selection_changed);
    selection_->reveal(4);
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.first().first().toBool(), false);  // by code
    QCOMPARE(widget_selected_id(), std::optional<ThreadId>(4));
    selection_->set_threads(MarkLayer::search, {4});
    selection_->set_path({{400000, 410000, 4, 3}});
    // Before the fold: the band on 4's row, none on 3's over 4's life.
    timeline_->show_window(0, 900000);
    QImage image = timeline_->grab().toImage();
    QVERIFY(count_colour(image, band(index(4), 60000, 380000), style::kHighlight) > 1000);
    // 3 is on the path: its band is drawn, so look at it with the path gone.
    selection_->set_path({});
    image = timeline_->grab().toImage();
    QCOMPARE(count_colour(image, band(index(3), 60000, 300000), style::kHighlight), 0);
    selection_->set_path({{400000, 410000, 4, 3}});

    // Fold 3: 4 is drawn as 3.
    const auto folded = filtered(TimelineFilter{false, {3}, 0});
    selection_->set_view(folded);
    QCOMPARE(timeline_->data(), &folded->data);
    QCOMPARE(chosen.count(), 1);  // the chosen id stays: no change
    QCOMPARE(selection_->selected(), std::optional<ThreadId>(4));
    QCOMPARE(widget_selected_id(), std::optional<ThreadId>(3));
    QCOMPARE(selection_->shown_index(4), folded->data.thread_index(3));
    QCOMPARE(highlighted_ids(), (std::vector<ThreadId>{3}));
    // The path's link 4 -> 3 is now inside 3.
    QCOMPARE(timeline_->view().path.size(), std::size_t(1));
    QCOMPARE(timeline_->view().path[0].cause, timeline_->view().path[0].effect);
    // In pixels: the band is on 3's row, over 4's life.
    image = timeline_->grab().toImage();
    const std::uint32_t stand_in = *folded->data.thread_index(3);
    QVERIFY(count_colour(image, band(stand_in, 60000, 380000), style::kHighlight) > 1000);

    // Unfolded: 4 itself, selected and highlighted, with no change emitted.
    selection_->set_view(nullptr);
    QCOMPARE(timeline_->data(), full_.get());
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(widget_selected_id(), std::optional<ThreadId>(4));
    QCOMPARE(highlighted_ids(), (std::vector<ThreadId>{3, 4}));
    QCOMPARE(timeline_->view().path[0].cause, std::int32_t(index(4)));
  }

  void a_thread_hidden_with_no_stand_in_comes_back_with_the_view() {
    selection_->reveal(5);
    selection_->set_threads(MarkLayer::summary, {5, 3});
    // The duration bound hides 1 and 5 (300 µs each), with no stand-in.
    const auto bounded = filtered(TimelineFilter{false, {}, 310000});
    QVERIFY(!bounded->data.thread_index(5).has_value());
    selection_->set_view(bounded);
    QVERIFY(!timeline_->view().selected.has_value());
    QCOMPARE(selection_->selected(), std::optional<ThreadId>(5));
    QCOMPARE(highlighted_ids(), (std::vector<ThreadId>{3}));
    selection_->set_view(nullptr);
    QCOMPARE(widget_selected_id(), std::optional<ThreadId>(5));
    QCOMPARE(highlighted_ids(), (std::vector<ThreadId>{3, 5}));
  }

  void a_selection_on_the_widget_is_taken_by_id() {
    const auto simplified = filtered(TimelineFilter{true, {}, 0});
    selection_->set_view(simplified);
    QSignalSpy chosen(selection_.get(), &TimelineSelection::selection_changed);
    timeline_->select(*simplified->data.thread_index(3));
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(chosen.first().first().toBool(), true);  // on the timeline
    QCOMPARE(selection_->selected(), std::optional<ThreadId>(3));
    // Kept by id into the unfiltered view, where 3 has another index.
    selection_->set_view(nullptr);
    QCOMPARE(widget_selected_id(), std::optional<ThreadId>(3));
    QCOMPARE(*timeline_->view().selected, index(3));
    timeline_->select(std::nullopt);
    QCOMPARE(chosen.count(), 2);
    QVERIFY(!selection_->selected().has_value());
  }

  void a_finding_opens_again_in_a_new_view_until_another_selection() {
    const TimelineAnomaly& finding = full_->anomalies.front();
    QVERIFY(selection_->open_finding(finding));
    QCOMPARE(selection_->selected(), std::optional<ThreadId>(4));
    QVERIFY(selection_->marks().finding().has_value());
    QVERIFY(!timeline_->view().notes.empty());
    QCOMPARE(timeline_->view().notes.front().thread, index(4));
    // Folded: the finding on 3, the stand-in, with 3's turn at 380 µs.
    const auto folded = filtered(TimelineFilter{false, {3}, 0});
    selection_->set_view(folded);
    const std::uint32_t stand_in = *folded->data.thread_index(3);
    QCOMPARE(timeline_->view().selected, std::optional<std::uint32_t>(stand_in));
    QVERIFY(!timeline_->view().notes.empty());
    QCOMPARE(timeline_->view().notes.front().thread, stand_in);
    QVERIFY(timeline_->view().selected_turn.has_value());
    QVERIFY(timeline_->view().selected_turn->start <= 380000 && timeline_->view().selected_turn->end >= 380000);
    QCOMPARE(selection_->selected(), std::optional<ThreadId>(4));
    // Another thread selected on the timeline ends the finding's layer.
    QSignalSpy changed(selection_.get(), &TimelineSelection::marks_changed);
    timeline_->select(*folded->data.thread_index(5));
    QVERIFY(!selection_->marks().finding().has_value());
    QCOMPARE(changed.count(), 1);
    selection_->set_view(nullptr);
    QVERIFY(timeline_->view().notes.empty());
    QCOMPARE(widget_selected_id(), std::optional<ThreadId>(5));
  }

  void a_finding_missing_from_the_view_opens_with_the_next_view_that_has_it() {
    // A view derived before the finding was in the trace.
    TimelineData before = *full_;
    before.anomalies.clear();
    const auto stale = std::make_shared<const FilteredTimeline>(filter_timeline(before, TimelineFilter{false, {3}, 0}));
    selection_->set_view(stale);
    QSignalSpy chosen(selection_.get(), &TimelineSelection::selection_changed);
    QVERIFY(!selection_->open_finding(full_->anomalies.front()));
    // Its thread, as drawn there (3 for 4), without a turn or names.
    QCOMPARE(chosen.count(), 1);
    QCOMPARE(selection_->selected(), std::optional<ThreadId>(4));
    QCOMPARE(widget_selected_id(), std::optional<ThreadId>(3));
    QVERIFY(timeline_->view().notes.empty());
    // The same filter again, with the finding: opened there.
    const auto folded = filtered(TimelineFilter{false, {3}, 0});
    selection_->set_view(folded);
    QCOMPARE(chosen.count(), 1);
    QVERIFY(!timeline_->view().notes.empty());
    QCOMPARE(timeline_->view().notes.front().thread, *folded->data.thread_index(3));
    QVERIFY(selection_->marks().finding().has_value());
    // A finding on no thread opens nothing.
    TimelineAnomaly nowhere = full_->anomalies.front();
    nowhere.thread = -1;
    QVERIFY(!selection_->open_finding(nowhere));
    QCOMPARE(chosen.count(), 1);
    QVERIFY(!timeline_->view().notes.empty());
  }
};

QTEST_MAIN(TimelineSelectionTest)
#include "timeline_selection_test.moc"
