# Helpers shared by every module's CMakeLists.
include(GNUInstallDirs)

set(K100_WARNINGS -Wall -Wextra)
# CI builds with warnings as errors (scripts/setup.sh sets it when CI=true).
if(K100_WERROR)
  list(APPEND K100_WARNINGS -Werror)
endif()

# k100_module(NAME SOURCES ... DEPENDS ...): one static library per module,
# public headers from include/, private headers from its own folder. Its
# users need C++20 (the public headers use concepts); installed, it is the
# imported target k100lc::NAME (cmake/K100Install.cmake).
function(k100_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPENDS" ${ARGN})
  add_library(k100_${name} STATIC ${M_SOURCES})
  add_library(k100::${name} ALIAS k100_${name})
  set_target_properties(k100_${name} PROPERTIES EXPORT_NAME ${name})
  target_compile_features(k100_${name} PUBLIC cxx_std_20)
  target_include_directories(k100_${name}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_options(k100_${name} PRIVATE ${K100_WARNINGS})
  if(M_DEPENDS)
    target_link_libraries(k100_${name} PUBLIC ${M_DEPENDS})
  endif()
endfunction()

# k100_test(NAME SOURCES ... DEPENDS ...): one GoogleTest executable registered with CTest.
function(k100_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;DEPENDS;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE GTest::gtest GTest::gtest_main ${T_DEPENDS})
  target_compile_options(${name} PRIVATE ${K100_WARNINGS})
  target_compile_definitions(${name} PRIVATE
    K100_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
    K100_BINARY_DIR="${PROJECT_BINARY_DIR}"
    K100_TOOLS_BIN="${K100_TOOLS_BIN}")
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    PROPERTIES TIMEOUT ${T_TIMEOUT} LABELS "${T_LABELS}")
endfunction()
