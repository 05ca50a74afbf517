# Portable speed: beside the baseline x86-64 libraries, the same sources built for the
# glibc-hwcaps levels in COMMPRESS_HWCAPS (x86-64-v3: AVX2, BMI2, FMA; x86-64-v4: AVX-512
# F/BW/CD/DQ/VL) into glibc-hwcaps/<level>/ next to them. glibc's dynamic loader (2.33 and
# later) loads the highest level the CPU supports, from the build tree through the RUNPATH
# and from an installed prefix alike, so one build runs everywhere and takes the vector paths
# where they exist. The variants have the same soname and frames are byte-identical across
# them. GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX2 makes the loader choose the baseline
# (docs/environment.md). GFNI and AVX512-VBMI are in no level: the kernels that use them carry
# a target attribute and are chosen at run time (src/codec/homomorphic/kernel_dispatch.*).
# Not with COMMPRESS_NATIVE (that build is for this CPU alone) and not
# under a sanitizer (the tests then exercise one build).
if(NOT COMMPRESS_NATIVE AND NOT COMMPRESS_SANITIZE AND COMMPRESS_HWCAPS
   AND CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(COMMPRESS_HWCAPS_BUILT ON)
  foreach(level ${COMMPRESS_HWCAPS})
    string(MAKE_C_IDENTIFIER ${level} suffix)
    set(level_variants "")
    foreach(base commpress_codec commpress)
      if(NOT TARGET ${base})   # (commpress: not without MPI)
        continue()
      endif()
      set(variant ${base}_${suffix})
      # The base library's layers again, each compiled for this level.
      get_target_property(layers ${base} COMMPRESS_LAYERS)
      set(objects "")
      foreach(layer ${layers})
        set(layer_target commpress_layer_${layer})
        set(layer_variant ${layer_target}_${suffix})
        get_target_property(sources ${layer_target} SOURCES)
        get_target_property(includes ${layer_target} INCLUDE_DIRECTORIES)
        get_target_property(libraries ${layer_target} LINK_LIBRARIES)
        add_library(${layer_variant} OBJECT ${sources})
        target_include_directories(${layer_variant} PRIVATE ${includes})
        target_link_libraries(${layer_variant} PRIVATE ${libraries})
        target_compile_options(${layer_variant} PRIVATE -march=${level})
        list(APPEND objects $<TARGET_OBJECTS:${layer_variant}>)
      endforeach()
      get_target_property(libraries ${base} LINK_LIBRARIES)
      add_library(${variant} SHARED ${objects})
      target_link_libraries(${variant} PRIVATE ${libraries})
      get_target_property(version ${base} VERSION)
      get_target_property(soversion ${base} SOVERSION)
      # Installed, a variant finds its codec library among its own level's or the baseline.
      set_target_properties(${variant} PROPERTIES
        OUTPUT_NAME ${base} VERSION ${version} SOVERSION ${soversion}
        LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/glibc-hwcaps/${level}
        INSTALL_RPATH "$ORIGIN:$ORIGIN/../..")
      # Whatever uses the baseline library gets a current variant too: a stale one would be
      # the one the loader picks.
      add_dependencies(${base} ${variant})
      list(APPEND level_variants ${variant})
    endforeach()
    install(TARGETS ${level_variants}
            LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/glibc-hwcaps/${level} COMPONENT runtime
            NAMELINK_SKIP)
  endforeach()
endif()
