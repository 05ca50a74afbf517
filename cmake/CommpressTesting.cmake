# commpress_add_mpi_test(NAME name SOURCES a.cpp ... RANKS 1 2 3 [TIMEOUT seconds])
# Builds one executable and registers it once per rank count as
# `mpirun -np N --oversubscribe name`, with a timeout so a deadlock fails instead of hanging.
function(commpress_add_mpi_test)
  cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "SOURCES;RANKS;LIBS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE commpress_mpi_test_main ${ARG_LIBS})
  commpress_add_mpi_runs(NAME ${ARG_NAME} TARGET ${ARG_NAME} RANKS ${ARG_RANKS}
                         TIMEOUT ${ARG_TIMEOUT})
endfunction()

# commpress_add_mpi_runs(NAME name TARGET target RANKS 1 2 3 [TIMEOUT seconds] [ENV A=1 ...])
# Registers an MPI test's executable as `name.npN`, once per rank count (as above), with more
# environment where one executable runs again under other settings.
function(commpress_add_mpi_runs)
  cmake_parse_arguments(ARG "" "NAME;TARGET;TIMEOUT" "RANKS;ENV" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set(extra_flags --oversubscribe)
  execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(uid STREQUAL "0")
    list(APPEND extra_flags --allow-run-as-root)
  endif()
  foreach(np ${ARG_RANKS})
    add_test(NAME ${ARG_NAME}.np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} -np ${np} ${extra_flags}
                     --mca btl self,vader,tcp --mca mpi_yield_when_idle 1
                     $<TARGET_FILE:${ARG_TARGET}>)
    # PROCESSORS = ranks, so ctest -j does not pile other tests onto an oversubscribed run.
    set_tests_properties(${ARG_NAME}.np${np} PROPERTIES TIMEOUT ${ARG_TIMEOUT}
                         PROCESSORS ${np} LABELS mpi)
    # One fixed machine profile, so Auto decides alike on every machine the suite runs on
    # (the probe's own tests replace this environment).
    set_tests_properties(${ARG_NAME}.np${np} PROPERTIES ENVIRONMENT
      "COMMPRESS_PROFILE=${PROJECT_SOURCE_DIR}/tests/support/dev_box_profile.json")
    if(ARG_ENV)
      set_property(TEST ${ARG_NAME}.np${np} APPEND PROPERTY ENVIRONMENT ${ARG_ENV})
    endif()
    commpress_ignore_mpi_leaks(${ARG_NAME}.np${np})
  endforeach()
endfunction()

# Every test caches probed machine profiles in the build tree (test-cache/), never in the
# user's ~/.cache: a test that runs a collective without a profile probes and writes one. ctest
# reads this file before it runs any test, so the variable reaches every test it starts (a
# test's own ENVIRONMENT still wins).
function(commpress_cache_probes_in_build_tree)
  set(file ${PROJECT_BINARY_DIR}/test-cache-environment.cmake)
  file(WRITE ${file} "set(ENV{XDG_CACHE_HOME} \"${PROJECT_BINARY_DIR}/test-cache\")\n")
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY TEST_INCLUDE_FILES ${file})
endfunction()

# Tests that start MPI (directly or through mpirun): under AddressSanitizer their leak report
# is off, since Open MPI's own start-up allocations are never freed and would drown real ones.
function(commpress_ignore_mpi_leaks)
  if(COMMPRESS_SANITIZE MATCHES "address")
    set_tests_properties(${ARGN} PROPERTIES
                         ENVIRONMENT_MODIFICATION "ASAN_OPTIONS=string_append::detect_leaks=0")
  endif()
endfunction()
