// background_worker.hpp — the one way skein-view runs work off the UI
// thread: a QThread with a context object living on it. post() queues a job
// to that thread; jobs run one at a time, in the order they were posted.
// deliver(), called from a job, queues a function back to the thread that
// owns the worker (the UI thread), where results are applied.
//
// Who uses it: TraceLoader (importing a trace and reading its timeline),
// TraceAnalysis (the lints, Why?'s answers) and FilteredView (the declutter
// filter), each with a worker of its own, so a long lint never holds up
// opening the next trace or a toggle.
//
// Invariants:
//   1. A job runs on the worker thread only, so state that only jobs touch
//      needs no lock.
//   2. A delivered function runs on the owner's thread, and only while the
//      worker exists: Qt drops a queued call whose context object is gone,
//      so nothing reaches a window that has closed.
//   3. Destroying the worker lets the running job finish (a caller that
//      wants it to stop sooner signals it first, as TraceLoader's cancel
//      flag does), drops the jobs still queued, and joins the thread.
//   4. Results are not tagged here: a user of the worker that replaces what
//      its jobs are about (another trace) tags them and drops stale ones.
#pragma once

#include <QCoreApplication>
#include <QMetaObject>
#include <QObject>
#include <QThread>
#include <utility>

namespace skein {

class BackgroundWorker : public QObject {
 public:
  explicit BackgroundWorker(QObject* parent = nullptr) : QObject(parent), thread_(new QThread(this)) {
    context_ = new QObject;  // no parent: it lives on the worker thread
    context_->moveToThread(thread_);
    thread_->start();
  }
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  ~BackgroundWorker() override {
    thread_->quit();
    thread_->wait();
    // Jobs still queued go (with what they captured), then the context,
    // whose thread has finished.
    QCoreApplication::removePostedEvents(context_);
    delete context_;
  }

  // Runs `job` on the worker thread, after every job posted before it.
  template <class Job>
  void post(Job&& job) {
    QMetaObject::invokeMethod(context_, std::forward<Job>(job), Qt::QueuedConnection);
  }

  // From a job: runs `fn` on the thread that owns this worker, unless the
  // worker has been destroyed by then.
  template <class Fn>
  void deliver(Fn&& fn) {
    QMetaObject::invokeMethod(this, std::forward<Fn>(fn), Qt::QueuedConnection);
  }

 private:
  QThread* thread_;
  QObject* context_ = nullptr;
};

}  // namespace skein
