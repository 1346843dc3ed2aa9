// timeline_selection.cpp — the widget's selection_changed is taken as a
// user's choice unless applying_ is set, which every change made here sets
// around its call into the widget. A new view is replace_data() (which
// drops the widget's selection and marks), then the finding's focus or the
// chosen thread selected again, then the marks; nothing is emitted when
// the chosen id stays.
#include "viewer/app/timeline_selection.hpp"

#include "viewer/app/timeline_widget.hpp"

namespace skein {

TimelineSelection::TimelineSelection(TimelineWidget* timeline, QObject* parent) : QObject(parent), timeline_(timeline) {
  connect(timeline_, &TimelineWidget::selection_changed, this, &TimelineSelection::on_widget_selection);
}

template <class Change>
void TimelineSelection::quietly(Change&& change) {
  const bool was = applying_;
  applying_ = true;
  change();
  applying_ = was;
}

std::shared_ptr<const TimelineData> TimelineSelection::shown() const {
  if (filtered_) return std::shared_ptr<const TimelineData>(filtered_, &filtered_->data);
  return full_;
}

std::optional<std::uint32_t> TimelineSelection::shown_index(ThreadId id) const {
  if (!full_) return std::nullopt;
  return skein::shown_index(*full_, filtered_.get(), id);
}

void TimelineSelection::set_trace(std::shared_ptr<const TimelineData> full) {
  full_ = std::move(full);
  filtered_.reset();
  selected_.reset();
  marks_.clear();
  quietly([&] { timeline_->set_data(full_); });
  apply_marks();
  emit marks_changed();
}

void TimelineSelection::set_view(std::shared_ptr<const FilteredTimeline> filtered) {
  if (!full_) return;
  filtered_ = std::move(filtered);
  const std::shared_ptr<const TimelineData> view = shown();
  quietly([&] {
    timeline_->replace_data(view);
    if (const auto focus = marks_.finding_focus(*full_, filtered_.get())) {
      timeline_->select_turn(*focus);
    } else if (selected_) {
      if (const auto i = shown_index(*selected_)) timeline_->select(*i);
    }
  });
  apply_marks();
}

void TimelineSelection::select(ThreadId id) {
  const auto i = shown_index(id);
  if (!i) return;
  selected_ = id;
  marks_.clear(MarkLayer::finding);
  quietly([&] {
    timeline_->select(*i);
    timeline_->scroll_to_row(timeline_->data()->threads[*i].row);
  });
  emit selection_changed(false);
}

void TimelineSelection::reveal(ThreadId id) {
  const auto i = shown_index(id);
  if (!i) return;
  selected_ = id;
  marks_.clear(MarkLayer::finding);
  // Selects, moves or zooms the window to the thread when it is out of
  // view or too thin to see, and scrolls to its row.
  quietly([&] { timeline_->reveal_thread(*i); });
  emit selection_changed(false);
}

bool TimelineSelection::open_finding(const TimelineAnomaly& finding) {
  if (!full_ || finding.thread < 0 || static_cast<std::size_t>(finding.thread) >= full_->threads.size()) return false;
  marks_.set_finding(finding);
  selected_ = full_->threads[static_cast<std::size_t>(finding.thread)].id;
  const std::optional<FindingFocus> focus = marks_.finding_focus(*full_, filtered_.get());
  quietly([&] {
    if (focus) timeline_->show_focus(*focus);
    else timeline_->select(shown_index(*selected_));
  });
  emit selection_changed(false);
  emit marks_changed();
  return focus.has_value();
}

void TimelineSelection::on_widget_selection() {
  if (applying_) return;
  const TimelineViewState& v = timeline_->view();
  const TimelineData* d = timeline_->data();
  selected_ = v.selected && d ? std::optional<ThreadId>(d->threads[*v.selected].id) : std::nullopt;
  const bool had_finding = !marks_.empty(MarkLayer::finding);
  marks_.clear(MarkLayer::finding);  // the widget's select() drops the turn and the names
  emit selection_changed(true);
  if (had_finding) emit marks_changed();
}

void TimelineSelection::set_threads(MarkLayer layer, std::vector<ThreadId> ids) {
  marks_.set_threads(layer, std::move(ids));
  apply_marks();
  emit marks_changed();
}

void TimelineSelection::set_current_match(std::optional<ThreadId> id) {
  marks_.set_current_match(id);
  apply_marks();
  emit marks_changed();
}

void TimelineSelection::set_path(std::vector<MarkedLink> links) {
  marks_.set_path(std::move(links));
  apply_marks();
  emit marks_changed();
}

void TimelineSelection::clear(MarkLayer layer) {
  const bool closes_finding = layer == MarkLayer::finding && !marks_.empty(MarkLayer::finding);
  marks_.clear(layer);
  if (closes_finding && selected_)  // the chosen thread alone, without the finding's turn and names
    if (const auto i = shown_index(*selected_)) quietly([&] { timeline_->select(*i); });
  apply_marks();
  emit marks_changed();
}

void TimelineSelection::apply_marks() {
  if (!full_) return;
  ResolvedMarks r = marks_.resolve(*full_, filtered_.get());
  timeline_->set_highlight(std::move(r.highlighted));
  timeline_->set_current_match(r.current_match);
  timeline_->set_path(std::move(r.path));
}

}  // namespace skein
