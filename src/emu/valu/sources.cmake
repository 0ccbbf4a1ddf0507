# Vector ALU semantics of the emulator (owned by emu/valu). Included by
# src/emu/CMakeLists.txt, which adds these sources to the emu module.
set(K100_EMU_VALU_DIR ${CMAKE_CURRENT_LIST_DIR})
set(K100_EMU_VALU_SOURCES
  ${K100_EMU_VALU_DIR}/vop.cpp
  ${K100_EMU_VALU_DIR}/float_bits.cpp
  ${K100_EMU_VALU_DIR}/host_lanes.cpp
  ${K100_EMU_VALU_DIR}/integer_ops.cpp
  ${K100_EMU_VALU_DIR}/float32_ops.cpp
  ${K100_EMU_VALU_DIR}/float64_ops.cpp
  ${K100_EMU_VALU_DIR}/float16_ops.cpp
  ${K100_EMU_VALU_DIR}/convert_ops.cpp
  ${K100_EMU_VALU_DIR}/compare_ops.cpp
  ${K100_EMU_VALU_DIR}/packed_ops.cpp
  ${K100_EMU_VALU_DIR}/lane_ops.cpp
  ${K100_EMU_VALU_DIR}/special_ops.cpp
  ${K100_EMU_VALU_DIR}/transcendental_ops.cpp
  ${K100_EMU_VALU_DIR}/transcendental_lanes.cpp
  ${K100_EMU_VALU_DIR}/registry.cpp
  ${K100_EMU_VALU_DIR}/unsupported_valu.cpp
  ${K100_EMU_VALU_DIR}/bench_valu.cpp)
# The lane loops change the host rounding mode around float arithmetic
# (-frounding-math keeps the compiler from folding or moving it across that),
# never read errno (so sqrt and friends inline), and do not model FP
# exception flags (so selects on FP compares vectorise).
set_source_files_properties(${K100_EMU_VALU_SOURCES} PROPERTIES
  COMPILE_OPTIONS "-frounding-math;-fno-math-errno;-fno-trapping-math")
