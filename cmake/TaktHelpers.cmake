# Helpers shared by the layer folders.

# takt_add_layer(NAME [DEPS targets...])
# Declares library takt_<NAME> from every .cpp in the calling folder. A folder with
# no sources yet gives an INTERFACE library so that dependants still configure.
function(takt_add_layer name)
  cmake_parse_arguments(ARG "" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  set(target takt_${name})
  if(sources)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC
      ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src ${PROJECT_BINARY_DIR}/generated)
    target_link_libraries(${target} PUBLIC ${ARG_DEPS})
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE
      ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src ${PROJECT_BINARY_DIR}/generated)
    target_link_libraries(${target} INTERFACE ${ARG_DEPS})
  endif()
  add_library(takt::${name} ALIAS ${target})
endfunction()

# takt_add_test(NAME SOURCES files... DEPS targets... [CONCURRENCY])
# A GoogleTest executable; its tests are discovered by CTest. CONCURRENCY marks tests
# that CI also runs under ThreadSanitizer: in a TAKT_TSAN build only those are built.
function(takt_add_test name)
  cmake_parse_arguments(ARG "CONCURRENCY" "" "SOURCES;DEPS;LABELS" ${ARGN})
  if(TAKT_TSAN AND NOT ARG_CONCURRENCY)
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE TAKT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  set(labels ${name} ${ARG_LABELS})
  if(ARG_CONCURRENCY)
    list(APPEND labels concurrency)
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS "${labels}" TIMEOUT 300
    TEST_PREFIX "${name}.")
endfunction()
