# Helpers shared by the layer folders.

# takt_add_layer(NAME [DEPS targets...])
# Declares library takt_<NAME> from every .cpp in the calling folder. A folder with
# no sources yet gives an INTERFACE library so that dependants still configure.
function(takt_add_layer name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  set(target takt_${name})
  # In the build tree a layer sees the public headers, src/ and the generated ones; an
  # installed layer (cmake --install, docs/runtime.md "Building a program with the
  # runtime") only the installed public headers.
  set(include_dirs
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  if(sources)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC ${include_dirs})
    target_link_libraries(${target} PUBLIC ${ARG_DEPS})
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${include_dirs})
    target_link_libraries(${target} INTERFACE ${ARG_DEPS})
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  add_library(takt::${name} ALIAS ${target})
endfunction()

# takt_add_test(NAME SOURCES files... DEPS targets... [CONCURRENCY])
# A GoogleTest executable; its tests are discovered by CTest. CONCURRENCY marks tests
# that CI also runs under ThreadSanitizer: in a TAKT_TSAN build only those are built.
function(takt_add_test name)
  cmake_parse_arguments(ARG "CONCURRENCY;TIMING" "" "SOURCES;DEPS" ${ARGN})
  if(TAKT_TSAN AND NOT ARG_CONCURRENCY)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES} ${PROJECT_SOURCE_DIR}/tests/support/default_signals.cpp)
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE TAKT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  # Tests keep line tables and function names (-g1: a failure's backtrace and a
  # ThreadSanitizer report still name file and line) but not the locations of local
  # variables, whose tracking through optimised code is costly in some test files
  # (analysis_commands_test.cpp 33-37 s with -g, 26 s with -g1; all tests' objects of a
  # fresh clone's release build 1,101 -> 967 s of CPU), and tests are most of CI's
  # build. The debug preset keeps full -g; the layers and the takt program keep -g in
  # every preset.
  target_compile_options(${name} PRIVATE $<$<CONFIG:RelWithDebInfo>:-g1>)
  # One label at most: gtest_discover_tests writes the properties out as a flat list, so
  # a second label would be read as a property name and shift every property after it.
  # Tests are named "<executable>.<suite>.<test>"; select an executable with -R.
  set(label_property "")
  if(ARG_CONCURRENCY)
    set(label_property LABELS concurrency)
  endif()
  # TIMING: the tests check deadlines, latencies or speed-ups on real threads; ctest runs
  # them alone (RUN_SERIAL), since on a 2-core machine a test running beside them takes
  # the cores they measure.
  set(serial FALSE)
  if(ARG_TIMING)
    set(serial TRUE)
  endif()
  # Under ThreadSanitizer every test runs without real-time priorities (TAKT_NO_RT=1, the
  # fallback path): TSan's runtime takes internal spin locks that wait by sched_yield,
  # which never lets a thread of lower SCHED_FIFO priority on the same CPU run. A worker
  # (SCHED_FIFO 80) that held such a lock when the release lane (90) on its CPU woke up
  # and asked for it was never run again: both spun for good (seen with gdb in
  # GedfPaws.MoreHandBacksThanItsEntriesAreRefusedNotFatal, about 3 runs in 10 beside a
  # second test process). The release build runs the SCHED_FIFO path.
  set(environment "")
  if(TAKT_TSAN)
    set(environment ENVIRONMENT TAKT_NO_RT=1)
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    PROPERTIES ${label_property} TIMEOUT 300 RUN_SERIAL ${serial} ${environment}
    TEST_PREFIX "${name}.")
endfunction()
