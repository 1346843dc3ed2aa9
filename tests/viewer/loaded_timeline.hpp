// loaded_timeline.hpp — a TimelineData from a trace held in a string, for
// Catch2 tests of the timeline model: the trace is written to a folder of
// its own, imported for real and loaded without stored findings; a failing
// step fails the test (REQUIRE). The folder goes with the object.
//
//   LoadedTimeline t(kTrace, "filter");
//   filter_timeline(t.data, ...); t.index(3);
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "recorder/store/trace_import.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein::test {

class LoadedTimeline {
 public:
  // `tag` names the folder (skein-TAG-PID), so test programs run at once
  // never share one.
  LoadedTimeline(const std::string& trace, const std::string& tag)
      : dir_(std::filesystem::temp_directory_path() / ("skein-" + tag + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "t.sexp") << trace;
    ImportOptions options;
    options.sync = false;
    REQUIRE(import_trace((dir_ / "t.sexp").string(), (dir_ / "t.db").string(), options).ok());
    auto store = TraceStore::open((dir_ / "t.db").string());
    REQUIRE(store.ok());
    auto loaded = load_timeline(store.value(), TimelineLoadOptions{false});
    REQUIRE(loaded.ok());
    data = std::move(loaded).value();
  }
  ~LoadedTimeline() { std::filesystem::remove_all(dir_); }
  LoadedTimeline(const LoadedTimeline&) = delete;
  LoadedTimeline& operator=(const LoadedTimeline&) = delete;

  // The index of thread `id`, which the trace must have.
  [[nodiscard]] std::uint32_t index(ThreadId id) const { return *data.thread_index(id); }

  TimelineData data;

 private:
  std::filesystem::path dir_;
};

}  // namespace skein::test
