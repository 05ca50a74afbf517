# Installation: the two libraries, the public headers, the command-line tool, a CMake package
# (find_package(commpress [COMPONENTS codec mpi]) -> commpress::codec, commpress::commpress)
# and pkg-config files (commpress-codec.pc, commpress.pc).
include(CMakePackageConfigHelpers)

set(COMMPRESS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/commpress)

# Installed anywhere, the tool finds the libraries beside it and libcommpress finds
# libcommpress_codec in its own folder, without LD_LIBRARY_PATH.
if(TARGET commpress)
  set_target_properties(commpress PROPERTIES INSTALL_RPATH "$ORIGIN")
endif()
if(TARGET commpress_cli)
  set_target_properties(commpress_cli PROPERTIES INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
endif()

# One export set per layer, so a codec-only consumer never needs MPI to configure.
install(TARGETS commpress_codec EXPORT commpressCodecTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev)
# Without MPI (COMMPRESS_ENABLE_MPI off) only the codec layer: commpressConfig.cmake then has
# no `mpi` component.
set(COMMPRESS_INSTALLED_LAYERS commpress-codec)
if(TARGET commpress)
  install(TARGETS commpress EXPORT commpressTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev)
  install(EXPORT commpressTargets NAMESPACE commpress:: DESTINATION ${COMMPRESS_CMAKE_DIR}
          COMPONENT dev)
  list(APPEND COMMPRESS_INSTALLED_LAYERS commpress)
endif()
if(TARGET commpress_cli)
  install(TARGETS commpress_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
endif()
# The multiply's headers only where it is built.
set(multiply_headers "")
if(NOT COMMPRESS_ENABLE_GEMM)
  set(multiply_headers REGEX "/(linalg|scalapack_matrix|blas_info)\\.hpp$|/scalapack\\.h$" EXCLUDE)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev ${multiply_headers})
install(FILES ${PROJECT_BINARY_DIR}/include/commpress/version.h
              ${PROJECT_BINARY_DIR}/include/commpress/config.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/commpress COMPONENT dev)
install(EXPORT commpressCodecTargets NAMESPACE commpress:: DESTINATION ${COMMPRESS_CMAKE_DIR}
        COMPONENT dev)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/commpressConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/commpressConfig.cmake
                              INSTALL_DESTINATION ${COMMPRESS_CMAKE_DIR})
# 0.x: a new minor version may break the API, so only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/commpressConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/commpressConfig.cmake
              ${PROJECT_BINARY_DIR}/commpressConfigVersion.cmake
        DESTINATION ${COMMPRESS_CMAKE_DIR} COMPONENT dev)

# pkg-config: the files find the prefix from their own location (${pcfiledir}), so an
# installed tree can move. commpress.pc asks for the MPI package this build used where MPI ships one
# (Open MPI's ompi-c, MPICH's mpich); otherwise compile with the MPI wrappers.
set(COMMPRESS_PC_MPI "")
foreach(candidate ompi-c mpich)
  pkg_check_modules(COMMPRESS_PC_PROBE QUIET ${candidate})
  if(COMMPRESS_PC_PROBE_FOUND)
    set(COMMPRESS_PC_MPI ${candidate})
    break()
  endif()
endforeach()
file(RELATIVE_PATH COMMPRESS_PC_UP /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" COMMPRESS_PC_UP "${COMMPRESS_PC_UP}")
foreach(pc ${COMMPRESS_INSTALLED_LAYERS})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT dev)
endforeach()

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md
              ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)
