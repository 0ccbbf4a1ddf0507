# Tests of the emulator's vector ALU semantics (emu/valu). Included by
# tests/emu/CMakeLists.txt.
set(K100_EMU_VALU_TEST_DIR ${CMAKE_CURRENT_LIST_DIR})
k100_test(emu_valu_test
  SOURCES
    ${K100_EMU_VALU_TEST_DIR}/harness.cpp
    ${K100_EMU_VALU_TEST_DIR}/coverage_test.cpp
    ${K100_EMU_VALU_TEST_DIR}/row_test.cpp
    ${K100_EMU_VALU_TEST_DIR}/int_rows_test.cpp
    ${K100_EMU_VALU_TEST_DIR}/float_rows_test.cpp
    ${K100_EMU_VALU_TEST_DIR}/compare_convert_test.cpp
    ${K100_EMU_VALU_TEST_DIR}/packed_test.cpp
    ${K100_EMU_VALU_TEST_DIR}/transcendental_test.cpp
    ${K100_EMU_VALU_TEST_DIR}/division_test.cpp
    ${K100_EMU_VALU_TEST_DIR}/encoding_test.cpp
    ${K100_EMU_VALU_TEST_DIR}/mode_test.cpp
  DEPENDS k100::emu
  LABELS emu
  TIMEOUT 300)
target_include_directories(emu_valu_test PRIVATE ${K100_EMU_VALU_TEST_DIR})
