# headless_cli_test.cmake — `cmake -P`: Skein configured with
# -DSKEIN_BUILD_VIEWER=OFF -DSKEIN_BUILD_RENDER=OFF builds a `skein` that
# links Qt Core alone (no Qt Gui, no Qt Widgets), and that command lints,
# exports, explains and summarises a trace exactly as the full build's
# `skein` does. Steps, each failing the test with what went wrong:
#   1. configure and build the target `skein` alone in WORK_DIR;
#   2. its dynamic libraries (ldd) name libQt6Core and no libQt6Gui,
#      libQt6Widgets or libQt6Svg;
#   3. its help lists check, export, import, info, lint, summary and why,
#      and no render, and `skein render` is an unknown command (exit 2);
#   4. on a trace of BLOCKREAD --missing-notify (a missing notification at
#      every read, samples/blockread), `lint`,
#      `lint --format json`, `export --format chrome`, `export --format
#      folded`, `summary` and `why --finding 1` print byte for byte what the
#      full build's FULL_SKEIN prints, with the same exit status; and the
#      lint finds at least one missing notification, so the comparison is
#      not between two empty outputs.
foreach(var SKEIN_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER BUILD_TYPE FULL_SKEIN BLOCKREAD)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "headless_cli_test.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

set(TRACE "${WORK_DIR}/blockread.sexp")
run_step("tracing blockread --missing-notify" ${CMAKE_COMMAND} -E env SKEIN_TRACE=${TRACE} "${BLOCKREAD}"
         --missing-notify --requests 8 --latency-us 1000)

set(build "${WORK_DIR}/build")
run_step("configuring without the viewer and render" ${CMAKE_COMMAND} -S "${SKEIN_SOURCE_DIR}" -B "${build}"
         -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=${BUILD_TYPE}
         -DSKEIN_BUILD_VIEWER=OFF -DSKEIN_BUILD_RENDER=OFF -DSKEIN_BUILD_TESTS=OFF -DSKEIN_BUILD_BENCH=OFF)
run_step("building skein without the viewer" ${CMAKE_COMMAND} --build "${build}" --parallel 2 --target skein)
set(headless "${build}/viewer/skein")
if(NOT EXISTS "${headless}")
  message(FATAL_ERROR "the build made no ${headless}")
endif()

run_step("ldd ${headless}" ldd "${headless}")
if(NOT step_output MATCHES "libQt6Core")
  message(FATAL_ERROR "the headless skein does not link Qt Core, which it parses arguments with:\n${step_output}")
endif()
foreach(forbidden libQt6Gui libQt6Widgets libQt6Svg)
  if(step_output MATCHES "${forbidden}")
    message(FATAL_ERROR "the headless skein links ${forbidden}:\n${step_output}")
  endif()
endforeach()

run_step("${headless} --help" "${headless}" --help)
foreach(command check export import info lint summary why)
  if(NOT step_output MATCHES "\n  ${command} ")
    message(FATAL_ERROR "the headless skein's help lists no ${command}:\n${step_output}")
  endif()
endforeach()
if(step_output MATCHES "\n  render ")
  message(FATAL_ERROR "the headless skein's help lists render:\n${step_output}")
endif()
execute_process(COMMAND "${headless}" render "${TRACE}" -o "${WORK_DIR}/x.png" RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 2 OR NOT err MATCHES "unknown command 'render'")
  message(FATAL_ERROR "`skein render` in the headless build: exit ${rc}, '${err}' (expected 2, unknown command)")
endif()

# Each command runs on its own copy of the trace, so neither build reads the
# other's cache database.
set(commands "lint" "lint --format json" "export --format chrome" "export --format folded" "summary"
             "why --finding 1")
set(index 0)
foreach(command IN LISTS commands)
  separate_arguments(arguments UNIX_COMMAND "${command}")
  list(GET arguments 0 name)
  list(REMOVE_AT arguments 0)
  foreach(side full headless)
    set(copy "${WORK_DIR}/${side}-${index}.sexp")
    file(COPY_FILE "${TRACE}" "${copy}")
    if(side STREQUAL "full")
      set(program "${FULL_SKEIN}")
    else()
      set(program "${headless}")
    endif()
    execute_process(COMMAND "${program}" ${name} "${copy}" ${arguments} RESULT_VARIABLE ${side}_rc
                    OUTPUT_VARIABLE ${side}_out ERROR_VARIABLE ${side}_err)
    # The copy's name differs between the two sides; nothing else may.
    string(REPLACE "${copy}" "TRACE" ${side}_out "${${side}_out}")
    string(REPLACE "${copy}" "TRACE" ${side}_err "${${side}_err}")
  endforeach()
  if(NOT full_rc STREQUAL headless_rc OR NOT full_out STREQUAL headless_out OR NOT full_err STREQUAL headless_err)
    message(FATAL_ERROR "`skein ${command}` differs between the full build (exit ${full_rc}) and the headless one "
                        "(exit ${headless_rc}):\n--- full\n${full_out}${full_err}\n--- headless\n${headless_out}${headless_err}")
  endif()
  if(command STREQUAL "lint" AND NOT headless_out MATCHES "missing-notification")
    message(FATAL_ERROR "the lint found no missing notification in ${TRACE}, so the comparison proves little:\n${headless_out}")
  endif()
  string(LENGTH "${headless_out}" length)
  if(length EQUAL 0)
    message(FATAL_ERROR "`skein ${command}` printed nothing in either build")
  endif()
  math(EXPR index "${index} + 1")
endforeach()
message(STATUS "the headless skein links no Qt Gui or Widgets and prints what the full build prints")
