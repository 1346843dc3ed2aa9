// causal_path_model_test.cpp — the Why? panel's model (viewer/models/
// causal_path_model.hpp) under QAbstractItemModelTester while it is filled,
// replaced and cleared, with exact cell contents and roles for a path
// computed by the core on a hand-built trace.
#include <QAbstractItemModelTester>
#include <QTest>

#include "viewer/analysis/causal_path.hpp"
#include "viewer/analysis/units.hpp"
#include "viewer/models/causal_path_model.hpp"

using namespace skein;

namespace {

// main (0) spawns 1 and a bind 2 waiting on it; a timer wakes 1, which
// resolves; 2 reads it and resolves.
TraceEventList timer_then_bind() {
  TraceEventList list;
  const auto add = [&](TimeNs time, RecordHead head, ThreadId actor, ThreadId target) {
    TraceEvent e;
    e.id = static_cast<std::int64_t>(list.events().size()) + 1;
    e.has_time = true;
    e.time = time;
    e.head = head;
    e.actor = actor;
    e.target = target;
    list.push_back(e);
  };
  add(0, RecordHead::spawn, 0, 1);
  add(0, RecordHead::spawn, 0, 2);
  add(1000, RecordHead::wait, 2, 1);
  add(5000, RecordHead::switch_, -1, kNoThread);
  add(10000, RecordHead::notify, -1, 1);
  add(12000, RecordHead::resolve, 1, 1);
  add(12500, RecordHead::read, 2, 1);
  add(13000, RecordHead::resolve, 2, 2);
  return list;
}

}  // namespace

class CausalPathModelTest : public QObject {
  Q_OBJECT

 private slots:
  void steps_rows_and_roles() {
    auto data = std::make_shared<TimelineData>();
    data->strings = {"", "timer", "task"};
    for (ThreadId id : {0, 1, 2}) {
      TimelineThread t;
      t.id = id;
      t.label = id == 1 ? 1 : 0;
      t.kind = id == 2 ? 2 : 0;
      data->threads.push_back(t);
    }
    CausalPathModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_data(data);
    QCOMPARE(model.rowCount(), 0);
    const TraceEventList events = timer_then_bind();
    std::vector<WhyStep> back;
    for (const CausalStep& s : why(events.events(), 8)) back.push_back(why_step_of(s));
    model.set_path(std::move(back), CausalDirection::why);
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.columnCount(), int(CausalPathModel::kColumnCount));
    const auto cell = [&](int row, int column) { return model.index(row, column).data().toString(); };
    QCOMPARE(cell(0, CausalPathModel::kCause), QStringLiteral("#1 timer"));
    QCOMPARE(cell(0, CausalPathModel::kHow), QStringLiteral("read"));
    QCOMPARE(cell(0, CausalPathModel::kEffect), QStringLiteral("#2 (task)"));
    QCOMPARE(cell(0, CausalPathModel::kTook), QString::fromStdString(format_duration_ns(1000)));
    QCOMPARE(cell(1, CausalPathModel::kCause), QStringLiteral("scheduler"));
    QCOMPARE(cell(1, CausalPathModel::kHow), QStringLiteral("notify"));
    // When the cause acted, in µs since the origin: the resolve at 12000 ns,
    // the timer's notify at 10000 ns.
    QCOMPARE(cell(0, CausalPathModel::kAt), QStringLiteral("12.000 µs"));
    QCOMPARE(cell(1, CausalPathModel::kAt), QStringLiteral("10.000 µs"));
    QCOMPARE(model.index(1, 0).data(CausalPathModel::CauseRole).toLongLong(), -1LL);
    QCOMPARE(model.index(0, 0).data(CausalPathModel::EffectRole).toLongLong(), 2LL);
    QCOMPARE(model.index(0, 0).data(CausalPathModel::TimeRole).toLongLong(), 13000LL);
    QCOMPARE(model.index(1, 0).data(CausalPathModel::LatencyRole).toLongLong(), 2000LL);
    QCOMPARE(model.total_latency(), TimeNs(3000));
    QCOMPARE(model.headerData(CausalPathModel::kTook, Qt::Horizontal).toString(), QStringLiteral("Took"));
    // Forwards from 1's resolve: 2 reads it.
    std::vector<WhyStep> forwards;
    for (const CausalStep& s : caused(events.events(), 6)) forwards.push_back(why_step_of(s));
    model.set_path(std::move(forwards), CausalDirection::caused);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.index(0, CausalPathModel::kCause).data().toString(), QStringLiteral("#1 timer"));
    QCOMPARE(model.index(0, CausalPathModel::kEffect).data().toString(), QStringLiteral("#2 (task)"));
    QCOMPARE(model.total_latency(), TimeNs(500));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    model.set_data(nullptr);
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_MAIN(CausalPathModelTest)
#include "causal_path_model_test.moc"
