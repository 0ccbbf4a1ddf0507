# What `cmake --install` puts under the prefix:
#   bin/                      the command-line tools
#   lib/                      libfm_engine.so (the C ABI), libk100_selftest.so,
#                             libk100_quant.so (GGUF, for the Python package),
#                             libk100_model.so (the model layers and the
#                             generate command, for the Python package),
#                             every C++ module library (static) and
#                             lib/cmake/k100lc (find_package(k100lc)),
#                             lib/pkgconfig/fm_engine.pc
#   include/k100/             the public headers (C++20; fm_engine.h is C99)
#   share/k100lc/             the kernel packages (gfx926, and gfx906 with the
#                             suffix _gfx906), their catalogs and C headers
#   lib/python3.X/dist-packages/k100lc_kernels   the Python package
# Installed programs find the package in ../share/k100lc next to their
# binary (src/runtime/package_path.cpp), the Python package finds the engine
# and the package from its own location (python/k100lc_kernels/_paths.py).
include(CMakePackageConfigHelpers)

set(K100_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/k100lc)
set(K100_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/k100lc)
if(K100_PYTHON3)
  execute_process(COMMAND ${K100_PYTHON3} -c "import sys; print(f'python3.{sys.version_info.minor}')"
                  OUTPUT_VARIABLE K100_PYTHON_VERSION_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
if(NOT K100_PYTHON_VERSION_DIR)
  set(K100_PYTHON_VERSION_DIR python3)
endif()
set(K100_PYTHON_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/${K100_PYTHON_VERSION_DIR}/dist-packages
    CACHE STRING "Where cmake --install puts the Python package (relative to the prefix)")

# Tools: every command-line program a user runs (k100-build-kernels only
# builds the package, it is not installed).
foreach(tool k100-as k100-objdump k100-link k100-catalog k100-run k100-selftest k100-bench k100-gguf k100-cc
             k100-generate k100-server k100-rt4)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

# Libraries: the C ABI and the self-test behind a C entry point (shared), and
# the C++ modules k100lc::runtime needs (static), exported as k100lc::<module>.
install(TARGETS fm_engine EXPORT k100lcTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} ${CMAKE_INSTALL_INCLUDEDIR}/k100/runtime)
install(TARGETS k100_selftest LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(TARGET k100_quant_c)  # libk100_quant.so: the GGUF reader and codecs of the Python package
  install(TARGETS k100_quant_c LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(TARGET k100_model_c)  # libk100_model.so: the model layers and `generate` of the Python package
  install(TARGETS k100_model_c LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
# k100-gguf links no shared library of the project, so it has no build RPATH
# to rewrite and needs none installed
if(TARGET k100-gguf)
  set_target_properties(k100-gguf PROPERTIES INSTALL_RPATH "")
endif()
set(K100_INSTALLED_MODULES)
foreach(module base isa codeobj asm codegen emu timing runtime launch_contract kernels quant model dsl)
  if(TARGET k100_${module})
    list(APPEND K100_INSTALLED_MODULES k100_${module})
  endif()
endforeach()
install(TARGETS ${K100_INSTALLED_MODULES} EXPORT k100lcTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/k100 DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The kernel package (a build output of k100-build-kernels).
install(FILES ${PROJECT_BINARY_DIR}/k100lc_kernels.hsaco ${PROJECT_BINARY_DIR}/catalog.json
              ${PROJECT_BINARY_DIR}/k100lc_kernels.h
              ${PROJECT_BINARY_DIR}/k100lc_kernels_gfx906.hsaco ${PROJECT_BINARY_DIR}/catalog_gfx906.json
              ${PROJECT_BINARY_DIR}/k100lc_kernels_gfx906.h
        DESTINATION ${K100_INSTALL_DATADIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/k100lc_kernels ${PROJECT_SOURCE_DIR}/python/k100lc_compiler
        DESTINATION ${K100_PYTHON_INSTALL_DIR} PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)

# find_package(k100lc): k100lc::fm_engine (C), k100lc::runtime (C++20) and the
# modules under it; relocatable (paths relative to the config file).
install(EXPORT k100lcTargets NAMESPACE k100lc:: DESTINATION ${K100_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/k100lcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/k100lcConfig.cmake
  INSTALL_DESTINATION ${K100_INSTALL_CMAKEDIR}
  PATH_VARS K100_INSTALL_DATADIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/k100lcConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/k100lcConfig.cmake ${PROJECT_BINARY_DIR}/k100lcConfigVersion.cmake
        DESTINATION ${K100_INSTALL_CMAKEDIR})

# pkg-config for the C ABI (relocatable through ${pcfiledir}).
configure_file(${CMAKE_CURRENT_LIST_DIR}/fm_engine.pc.in ${PROJECT_BINARY_DIR}/fm_engine.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/fm_engine.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
