# package_test.cmake — `cmake -P`: the installed package, as an application
# meets it. Steps, each failing the test with what went wrong:
#   1. `cmake --install` the build tree into a fresh prefix under WORK_DIR;
#   2. configure and build tests/package/consumer against it with
#      find_package(skein) only (CMAKE_PREFIX_PATH = the prefix), which also
#      compiles every installed header on its own;
#   3. run the consumer with SKEIN_TRACE set: it prints its result and that
#      tracing was on;
#   4. `PREFIX/bin/skein check` the trace (exit 0, no errors), and find the
#      consumer's labels in it with `PREFIX/bin/skein export --format sexp`;
#   5. the same program built with plain `c++` and `pkg-config --cflags
#      --libs skein` (when pkg-config is there) runs and traces too.
# The prefix is removed at the start of each run, so nothing of an earlier
# install can make it pass.
foreach(var SKEIN_BUILD_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "package_test.cmake needs -D${var}=...")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/consumer-build")
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

run_step("install" ${CMAKE_COMMAND} --install "${SKEIN_BUILD_DIR}" --prefix "${prefix}")
foreach(installed bin/skein lib/cmake/skein/skeinConfig.cmake lib/cmake/skein/skeinConfigVersion.cmake
                  lib/pkgconfig/skein.pc include/skein/runtime/runtime.hpp
                  include/skein/recorder/trace_capture.hpp lib/skein/skein_trace_autostart.o)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "the install has no ${installed}")
  endif()
endforeach()

run_step("configuring the consumer" ${CMAKE_COMMAND} -S "${CONSUMER_SOURCE_DIR}" -B "${build}" -G "${GENERATOR}"
         -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Debug)
run_step("building the consumer" ${CMAKE_COMMAND} --build "${build}")

function(check_traced_run program trace)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env SKEIN_TRACE=${trace} "${program}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "sum 60, tracing on\n")
    message(FATAL_ERROR "${program} with SKEIN_TRACE: exit ${rc}, output '${out}'\n${err}")
  endif()
  run_step("skein check ${trace}" "${prefix}/bin/skein" check "${trace}")
  if(NOT step_output MATCHES "threads")
    message(FATAL_ERROR "skein check printed no report:\n${step_output}")
  endif()
  run_step("skein export ${trace}" "${prefix}/bin/skein" export "${trace}" --format sexp)
  string(REGEX MATCHALL "\\(label [0-9]+ [0-9]+ \"consumer.part\"\\)" labels "${step_output}")
  list(LENGTH labels count)
  if(NOT count EQUAL 3)
    message(FATAL_ERROR "expected 3 consumer.part labels in ${trace}, found ${count}:\n${step_output}")
  endif()
  if(NOT step_output MATCHES "\\(end [0-9]+\\)\n$")
    message(FATAL_ERROR "${trace} does not end with (end)")
  endif()
endfunction()

check_traced_run("${build}/consumer" "${WORK_DIR}/consumer.sexp")

find_program(PKG_CONFIG_EXECUTABLE pkg-config)
if(PKG_CONFIG_EXECUTABLE)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/lib/pkgconfig
                          "${PKG_CONFIG_EXECUTABLE}" --cflags --libs skein
                  RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs skein failed: ${err}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run_step("building the consumer with pkg-config" "${CXX_COMPILER}" -std=c++20
           "${CONSUMER_SOURCE_DIR}/main.cpp" ${flags} -o "${WORK_DIR}/consumer-pc")
  check_traced_run("${WORK_DIR}/consumer-pc" "${WORK_DIR}/consumer-pc.sexp")
else()
  message(STATUS "pkg-config not found: the .pc file was not tried")
endif()
message(STATUS "the installed package builds, runs and traces")
