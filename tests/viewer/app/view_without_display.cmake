# view_without_display.cmake — skein-view with no window system at all
# (DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM unset): --help and
# --version print and exit 0; opening a trace fails with skein-view's own
# message, not Qt's platform-plugin abort. Run as
#   cmake -DVIEW=path/to/skein-view -P view_without_display.cmake
if(NOT VIEW)
  message(FATAL_ERROR "pass -DVIEW=path/to/skein-view")
endif()
set(no_display ${CMAKE_COMMAND} -E env --unset=DISPLAY --unset=WAYLAND_DISPLAY --unset=QT_QPA_PLATFORM)

function(run_view expected_code)
  execute_process(COMMAND ${no_display} ${VIEW} ${ARGN} RESULT_VARIABLE code OUTPUT_VARIABLE out
                  ERROR_VARIABLE err TIMEOUT 60)
  if(NOT code STREQUAL "${expected_code}")
    message(FATAL_ERROR "skein-view ${ARGN}: exit ${code}, expected ${expected_code}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

run_view(0 --help)
foreach(wanted "Usage: " "skein-view" "[options] TRACE|DB" "--from <T>" "--select <ID>" "--why" "--version")
  string(FIND "${out}" "${wanted}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "skein-view --help: no \"${wanted}\" in its output:\n${out}")
  endif()
endforeach()

run_view(0 --version)
if(NOT out MATCHES "^skein-view [0-9]+\\.[0-9]+")
  message(FATAL_ERROR "skein-view --version printed:\n${out}")
endif()

# A window is needed: a clear message and a failure, not an abort.
run_view(1 no-such-trace.sexp)
string(FIND "${err}" "skein-view: no display" at)
if(at EQUAL -1 OR err MATCHES "platform plugin")
  message(FATAL_ERROR "skein-view without a display said:\n${err}")
endif()
