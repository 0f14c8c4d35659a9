# `cmake --install build [--prefix DIR]`: the headers (include/lazax/, lazax/lazax.h the one a
# user includes), the layers' static libraries, and two ways to find them: the CMake package
#   find_package(lazax)  +  target_link_libraries(app PRIVATE lazax::lazax)
# and lazax.pc for pkg-config. The `lazax` tool is installed by apps/lazax/. examples/ is a
# separate project built against the installed package (./lazax.sh test builds and runs it).
include(CMakePackageConfigHelpers)

# stablehlo: the StableHLO parser, importer and exporter; stablehlo_fn: load_stablehlo (autodiff).
set(LAZAX_LAYERS core dist ir interp io passes trace backend runtime api autodiff nn optim stablehlo
    stablehlo_fn)
set(lazax_libraries)
foreach(layer ${LAZAX_LAYERS})
  list(APPEND lazax_libraries lazax_${layer})
endforeach()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/lazax DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# lazax::lazax_core ... lazax::lazax_optim, and lazax::lazax (lazax_all, EXPORT_NAME lazax).
install(TARGETS ${lazax_libraries} lazax_all EXPORT lazaxTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/lazax)
install(EXPORT lazaxTargets NAMESPACE lazax:: DESTINATION ${cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/lazaxConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/lazaxConfig.cmake
                              INSTALL_DESTINATION ${cmake_dir})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lazaxConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lazaxConfig.cmake ${PROJECT_BINARY_DIR}/lazaxConfigVersion.cmake
        DESTINATION ${cmake_dir})

# lazax.pc. The libraries are static archives, so what they link (oneDNN, OpenMP, xxhash...) is
# part of every program's link: it goes in Libs and Requires, not in the .private fields, which
# `pkg-config --libs` leaves out without --static. The prefix is found from the file's own place,
# so the installed tree can move.
file(RELATIVE_PATH LAZAX_PC_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" LAZAX_PC_PREFIX "${LAZAX_PC_PREFIX}")
set(LAZAX_PC_CFLAGS "")
if(LAZAX_MIMALLOC)
  string(APPEND LAZAX_PC_CFLAGS " -DLAZAX_HAVE_MIMALLOC=1")
endif()
set(LAZAX_PC_LIBS "")
set(LAZAX_PC_ORDER nn optim stablehlo_fn autodiff api runtime trace backend passes interp stablehlo
    dist io ir core)  # users first
foreach(layer ${LAZAX_LAYERS})
  if(NOT layer IN_LIST LAZAX_PC_ORDER)
    message(FATAL_ERROR "cmake/install.cmake: layer '${layer}' is installed but missing from "
                        "LAZAX_PC_ORDER, so lazax.pc would not link it; add it after its users")
  endif()
endforeach()
foreach(layer ${LAZAX_PC_ORDER})
  string(APPEND LAZAX_PC_LIBS " -llazax_${layer}")
endforeach()
string(APPEND LAZAX_PC_LIBS " -ldnnl -lhwy ${OpenMP_CXX_FLAGS} -ldl")
if(LAZAX_OVERRIDE_MALLOC)
  string(APPEND LAZAX_PC_LIBS " -lmimalloc")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/lazax.pc.in ${PROJECT_BINARY_DIR}/lazax.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/lazax.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
