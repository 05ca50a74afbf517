# COMMPRESS_SMPI: the same sources built for SimGrid's SMPI (docs/smpi.md), where every rank of
# a simulated cluster runs as a thread of one process and the network and the compute are
# simulated. The compilers are smpicc/smpicxx (CMakePresets.json, preset "smpi"): they put
# SMPI's mpi.h first on the include path and link every program as a shared object that
# smpirun loads once per rank. So MPI is not looked for: MPI::MPI_C and MPI::MPI_CXX are empty
# targets, the compiler is the MPI.
#
# SMPI keeps each rank's globals apart (smpi/privatization) by loading one copy of the program
# per rank; a shared library it does not copy is shared by all ranks, which would mix the
# ranks' choice caches and sessions. So the libraries are static here and the programs link
# them whole (their codecs register themselves from static objects nothing references).
#
# ScaLAPACK exists only for Open MPI on Debian: it is linked so that the multiply's sources
# compile unchanged, but its BLACS speaks Open MPI's ABI and is never called in a simulation
# (the reference algorithm, pdgemm and grids from BLACS are left out of the SMPI runs).

# A program run by smpirun: under SMPI it takes the static libraries whole (and may use CLI11).
function(commpress_smpi_program target)
  if(COMMPRESS_SMPI)
    target_link_options(${target} PRIVATE "LINKER:--whole-archive" $<TARGET_FILE:commpress>
                        $<TARGET_FILE:commpress_codec> "LINKER:--no-whole-archive")
    add_dependencies(${target} commpress commpress_codec)
    target_compile_options(${target} PRIVATE -include ${PROJECT_SOURCE_DIR}/cmake/smpi_cli11.h)
  endif()
endfunction()

if(NOT COMMPRESS_SMPI)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER MATCHES "smpicxx" OR NOT CMAKE_C_COMPILER MATCHES "smpicc")
  message(FATAL_ERROR "COMMPRESS_SMPI needs CMAKE_C_COMPILER=smpicc and CMAKE_CXX_COMPILER=smpicxx "
                      "(cmake --preset smpi); got ${CMAKE_C_COMPILER} and ${CMAKE_CXX_COMPILER}")
endif()
find_program(COMMPRESS_SMPIRUN smpirun REQUIRED)
foreach(lang C CXX)
  add_library(MPI::MPI_${lang} INTERFACE IMPORTED)
endforeach()
set(MPI_FOUND TRUE)
# smpicxx force-includes smpi_helpers.h, whose malloc/free macros turn std::malloc into
# std::smpi_shared_malloc_intercept; the large buffers are shared explicitly instead
# (bench/scale).
add_compile_definitions(SMPI_NO_OVERRIDE_MALLOC)
# What the sources do differently under SMPI, where the simulated hosts and ranks share this
# process (docs/smpi.md): a node is the simulated host (node_key.cpp), waits on shared memory
# hand the turn to the simulator (shared_segment.cpp), no progress threads (progress_queue.cpp).
add_compile_definitions(COMMPRESS_SMPI)
foreach(off COMMPRESS_HWCAPS COMMPRESS_PYTHON COMMPRESS_HDF5_PLUGIN)
  if(${off})
    message(STATUS "COMMPRESS_SMPI: ${off} is not built under SMPI")
  endif()
endforeach()
set(COMMPRESS_HWCAPS "" CACHE STRING "" FORCE)
set(COMMPRESS_LIBRARY_KIND STATIC)
