# package_test.cmake — `cmake -P`: the installed package, as an application
# meets it, in every build type: the library built with or without NDEBUG,
# the application too, and neither has to match the other. Steps, each
# failing the test with what went wrong:
#   1. `cmake --install` the build tree into a fresh prefix under WORK_DIR;
#   2. configure and build tests/package/consumer against it with
#      find_package(skein) only (CMAKE_PREFIX_PATH = the prefix), as a Debug
#      application (no NDEBUG), which also compiles every installed header on
#      its own; then the same consumer as a Release application (NDEBUG);
#   3. run each consumer with SKEIN_TRACE set: it prints its result and that
#      tracing was on;
#   4. `PREFIX/bin/skein check` the trace (exit 0, no errors), and find the
#      consumer's labels in it with `PREFIX/bin/skein export --format sexp`;
#   5. the same program built with plain `c++` and `pkg-config --cflags
#      --libs skein` (when pkg-config is there) runs and traces too, and so
#      does samples/hello built with the README's pkg-config command, taken
#      from README.md as written there (no -DNDEBUG), which must print 42;
#   6. steps 2, 3 and 5 again against the runtime and recorder built from
#      SKEIN_SOURCE_DIR in the other build type (Release, with NDEBUG, when
#      the tree is a Debug one; Debug otherwise) and installed into a second
#      prefix, so that both ways round are linked whichever tree runs this.
# The prefixes are removed at the start of each run, so nothing of an
# earlier install can make it pass.
foreach(var SKEIN_BUILD_DIR SKEIN_SOURCE_DIR CONSUMER_SOURCE_DIR WORK_DIR GENERATOR CXX_COMPILER
            TREE_BUILD_TYPE TRACE_HOOKS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "package_test.cmake needs -D${var}=...")
  endif()
endforeach()

set(prefix "${WORK_DIR}/prefix")
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
                  include/skein/recorder/capture/trace_capture.hpp lib/skein/skein_trace_autostart.o)
  if(NOT EXISTS "${prefix}/${installed}")
    message(FATAL_ERROR "the install has no ${installed}")
  endif()
endforeach()

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

# The consumer against the package in `package_prefix`, as a Debug and as a
# Release application. Only the first build compiles the header units.
function(check_cmake_consumers package_prefix tag)
  foreach(type Debug Release)
    set(build "${WORK_DIR}/consumer-${tag}-${type}")
    run_step("configuring the ${type} consumer against ${package_prefix}" ${CMAKE_COMMAND}
             -S "${CONSUMER_SOURCE_DIR}" -B "${build}" -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
             -DCMAKE_PREFIX_PATH=${package_prefix} -DCMAKE_BUILD_TYPE=${type})
    if(type STREQUAL "Debug" AND tag STREQUAL "tree")
      run_step("building the ${type} consumer and the header units" ${CMAKE_COMMAND} --build "${build}"
               --parallel 2)
    else()
      run_step("building the ${type} consumer against ${package_prefix}" ${CMAKE_COMMAND} --build "${build}"
               --parallel 2 --target consumer)
    endif()
    check_traced_run("${build}/consumer" "${WORK_DIR}/consumer-${tag}-${type}.sexp")
  endforeach()
endfunction()

# The README's pkg-config line, word for word but for the prefix (~/.local
# there), run by sh on samples/hello as main.cpp; the program it makes must
# print 42 and trace.
find_program(PKG_CONFIG_EXECUTABLE pkg-config)
find_program(SH_EXECUTABLE sh)
set(readme_line "")
file(STRINGS "${SKEIN_SOURCE_DIR}/README.md" readme_lines REGEX "pkg-config --cflags --libs skein")
foreach(line IN LISTS readme_lines)
  if(line MATCHES "^c\\+\\+ -std=c\\+\\+20 main\\.cpp ")
    set(readme_line "${line}")
  endif()
endforeach()
if(readme_line STREQUAL "" OR NOT readme_line MATCHES "~/\\.local")
  message(FATAL_ERROR "README.md has no line 'c++ -std=c++20 main.cpp ...pkg-config --cflags --libs skein...' "
                      "naming ~/.local:\n${readme_lines}")
endif()
if(readme_line MATCHES "NDEBUG")
  message(FATAL_ERROR "the README's pkg-config line defines NDEBUG: ${readme_line}")
endif()

function(check_pkg_config_builds package_prefix tag)
  if(NOT PKG_CONFIG_EXECUTABLE)
    message(STATUS "pkg-config not found: the .pc file was not tried")
    return()
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${package_prefix}/lib/pkgconfig
                          "${PKG_CONFIG_EXECUTABLE}" --cflags --libs skein
                  RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config --cflags --libs skein failed: ${err}")
  endif()
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run_step("building the consumer with pkg-config against ${package_prefix}" "${CXX_COMPILER}" -std=c++20
           "${CONSUMER_SOURCE_DIR}/main.cpp" ${flags} -o "${WORK_DIR}/consumer-pc-${tag}")
  check_traced_run("${WORK_DIR}/consumer-pc-${tag}" "${WORK_DIR}/consumer-pc-${tag}.sexp")

  # The README's command in a folder of its own, with the compiler this
  # build uses as `c++` and with no PKG_CONFIG_PATH of the caller's.
  set(hello_dir "${WORK_DIR}/readme-hello-${tag}")
  file(MAKE_DIRECTORY "${hello_dir}/bin")
  file(COPY_FILE "${SKEIN_SOURCE_DIR}/samples/hello/hello.cpp" "${hello_dir}/main.cpp")
  file(CREATE_LINK "${CXX_COMPILER}" "${hello_dir}/bin/c++" SYMBOLIC)
  string(REPLACE "~/.local" "${package_prefix}" command "${readme_line}")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PKG_CONFIG_PATH
                          "PATH=${hello_dir}/bin:$ENV{PATH}" "${SH_EXECUTABLE}" -c "${command}"
                  WORKING_DIRECTORY "${hello_dir}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT EXISTS "${hello_dir}/a.out")
    message(FATAL_ERROR "the README's line, run as `${command}` on samples/hello, failed (${rc}):\n${out}\n${err}")
  endif()
  set(trace "${hello_dir}/hello.sexp")
  execute_process(COMMAND ${CMAKE_COMMAND} -E env SKEIN_TRACE=${trace} "${hello_dir}/a.out"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "42\n")
    message(FATAL_ERROR "samples/hello built by the README's line: exit ${rc}, output '${out}'\n${err}")
  endif()
  run_step("skein export ${trace}" "${prefix}/bin/skein" export "${trace}" --format sexp)
  if(NOT step_output MATCHES "\\(label [0-9]+ [0-9]+ \"compute\"\\)")
    message(FATAL_ERROR "${trace} has no \"compute\" label:\n${step_output}")
  endif()
endfunction()

check_cmake_consumers("${prefix}" tree)
check_pkg_config_builds("${prefix}" tree)

# The libraries in the other build type, from the same sources.
if(TREE_BUILD_TYPE STREQUAL "Debug" OR TREE_BUILD_TYPE STREQUAL "")
  set(other_type Release)
else()
  set(other_type Debug)
endif()
set(other_build "${WORK_DIR}/skein-${other_type}")
set(other_prefix "${WORK_DIR}/prefix-${other_type}")
run_step("configuring Skein's libraries as ${other_type}" ${CMAKE_COMMAND} -S "${SKEIN_SOURCE_DIR}" -B "${other_build}"
         -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=${other_type}
         -DSKEIN_BUILD_VIEWER=OFF -DSKEIN_BUILD_TESTS=OFF -DSKEIN_BUILD_BENCH=OFF -DSKEIN_TRACE_HOOKS=${TRACE_HOOKS})
run_step("building Skein's libraries as ${other_type}" ${CMAKE_COMMAND} --build "${other_build}" --parallel 2
         --target skein_runtime skein_trace_format skein_output skein_capture skein_import skein_store
         skein_export skein_trace_autostart)
run_step("installing the ${other_type} libraries" ${CMAKE_COMMAND} --install "${other_build}"
         --prefix "${other_prefix}")
check_cmake_consumers("${other_prefix}" "${other_type}")
check_pkg_config_builds("${other_prefix}" "${other_type}")
message(STATUS "the installed package builds, runs and traces, libraries and applications in every build type")
