# SkeinInstall.cmake — what `cmake --install` puts where: the package an
# application builds against. Included last by the top-level CMakeLists, once
# every target exists.
#
#   PREFIX/include/skein/runtime/*.hpp     the runtime's headers
#   PREFIX/include/skein/recorder/*.hpp    the recorder's headers
#   PREFIX/lib/libskein_runtime.a          skein::runtime
#   PREFIX/lib/libskein_trace_format.a     skein::trace_format (the capture writes it)
#   PREFIX/lib/libskein_output.a           skein::output (where the capture's file lands)
#   PREFIX/lib/libskein_capture.a          skein::capture, which skein::recorder
#                                          links: what a traced program needs,
#                                          no SQLite
#   PREFIX/lib/libskein_import.a           skein::import, skein::store (SQLite),
#   PREFIX/lib/libskein_store.a            skein::export: for applications that
#   PREFIX/lib/libskein_export.a           read traces or trace databases
#   PREFIX/lib/skein/skein_trace_autostart.o
#                                          SKEIN_TRACE=PATH in every program that
#                                          links skein::recorder (linked whole)
#   PREFIX/lib/cmake/skein/                skeinConfig.cmake, its version file,
#                                          skeinTargets*.cmake
#   PREFIX/lib/pkgconfig/skein.pc          for builds without CMake
#   PREFIX/bin/skein, skein-view           the tools (skein-view when built)
#   PREFIX/share/doc/skein/                FORMAT.md, SCHEMA.md, OVERVIEW.md
#
# The include layout is the project's own, one level down:
# `-I PREFIX/include/skein` and `#include "runtime/runtime.hpp"`, so code
# moves between the source tree and an installed package unchanged, and
# the generic folder names `runtime/` and `recorder/` do not land in
# PREFIX/include itself.
#
# Invariants:
#   1. Every installed header compiles on its own against the installed
#      include folder (tests/package/consumer checks each one).
#   2. Both the CMake package and the .pc file are relocatable: they find the
#      prefix from where they are installed (`cmake --install --prefix`).
#   3. A consumer compiles with the same SKEIN_TRACE_HOOKS value as the
#      libraries (the hooks are inline in the headers): it is part of the
#      exported targets and of the .pc file's Cflags.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(SKEIN_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/skein")
set(SKEIN_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/skein")
set(SKEIN_AUTOSTART_OBJECT "${CMAKE_INSTALL_LIBDIR}/skein/skein_trace_autostart.o")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/runtime/" DESTINATION "${SKEIN_INSTALL_INCLUDEDIR}/runtime"
        FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/recorder/" DESTINATION "${SKEIN_INSTALL_INCLUDEDIR}/recorder"
        FILES_MATCHING PATTERN "*.hpp")
install(FILES "${PROJECT_SOURCE_DIR}/recorder/format/FORMAT.md" "${PROJECT_SOURCE_DIR}/recorder/store/SCHEMA.md"
              "${PROJECT_SOURCE_DIR}/runtime/OVERVIEW.md"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}")

set(SKEIN_PACKAGE_LIBRARIES skein_runtime skein_trace_format skein_output skein_capture skein_recorder
    skein_import skein_store skein_export)
foreach(library IN LISTS SKEIN_PACKAGE_LIBRARIES)
  string(REGEX REPLACE "^skein_" "" export_name "${library}")
  set_target_properties(${library} PROPERTIES EXPORT_NAME ${export_name})
  target_include_directories(${library} INTERFACE $<INSTALL_INTERFACE:${SKEIN_INSTALL_INCLUDEDIR}>)
endforeach()
# The headers need C++20 (concepts, coroutines, std::source_location).
target_compile_features(skein_runtime INTERFACE cxx_std_20)
target_compile_features(skein_trace_format INTERFACE cxx_std_20)

install(TARGETS ${SKEIN_PACKAGE_LIBRARIES} EXPORT skeinTargets
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
# One object file, installed under a fixed name; skeinConfig.cmake adds it
# to skein::recorder's interface sources, as the build tree does.
install(FILES $<TARGET_OBJECTS:skein_trace_autostart> DESTINATION "${CMAKE_INSTALL_LIBDIR}/skein"
        RENAME skein_trace_autostart.o)

if(TARGET skein)
  # OPTIONAL: a build of the libraries alone installs without it.
  install(TARGETS skein RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" OPTIONAL)
endif()
if(TARGET skein-view)
  # OPTIONAL: the package installs without it when it was not built.
  install(TARGETS skein-view RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" OPTIONAL)
endif()

install(EXPORT skeinTargets NAMESPACE skein:: DESTINATION "${SKEIN_INSTALL_CMAKEDIR}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/skeinConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/skeinConfig.cmake"
                              INSTALL_DESTINATION "${SKEIN_INSTALL_CMAKEDIR}"
                              PATH_VARS SKEIN_AUTOSTART_OBJECT)
# 0.x: a minor version may break what the one before offered.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/skeinConfigVersion.cmake"
                                 VERSION "${PROJECT_VERSION}" COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/skeinConfig.cmake" "${PROJECT_BINARY_DIR}/skeinConfigVersion.cmake"
        DESTINATION "${SKEIN_INSTALL_CMAKEDIR}")

# pkg-config: the prefix is found from the .pc file's own folder.
file(RELATIVE_PATH SKEIN_PC_PREFIX_FROM_PCFILEDIR
     "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "${CMAKE_INSTALL_PREFIX}")
string(REGEX REPLACE "/$" "" SKEIN_PC_PREFIX_FROM_PCFILEDIR "${SKEIN_PC_PREFIX_FROM_PCFILEDIR}")
if(SKEIN_TRACE_HOOKS)
  set(SKEIN_PC_TRACE_HOOKS 1)
else()
  set(SKEIN_PC_TRACE_HOOKS 0)
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/skein.pc.in" "${PROJECT_BINARY_DIR}/skein.pc" @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/skein.pc" DESTINATION "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
