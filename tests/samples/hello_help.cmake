# hello_help.cmake — `hello --help` behaves as the README's listing of
# samples/hello/hello.cpp says: the program reads no arguments, so it prints
# 42 (and nothing else, on either stream) and exits 0, whatever it is given.
# Run as
#   cmake -DHELLO=path/to/hello -P hello_help.cmake
if(NOT HELLO)
  message(FATAL_ERROR "pass -DHELLO=path/to/hello")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=SKEIN_TRACE "${HELLO}" --help
                RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
if(NOT code STREQUAL "0" OR NOT out STREQUAL "42\n" OR NOT err STREQUAL "")
  message(FATAL_ERROR "hello --help: exit ${code}, expected 0 and \"42\\n\"\nstdout:\n${out}\nstderr:\n${err}")
endif()
