# The layers, one CMake target each: an OBJECT library per folder of src/ whose private
# include root (build/layers/<layer>/) holds links to that layer's folder and the folders of
# the layers below it only. An include of a higher layer therefore fails to compile instead of
# passing review unnoticed; configuring proves it for every layer (the probes below).
#
#   core                              (status, byte I/O, checksum)
#   codec     core                    (frames, codecs)           -> libcommpress_codec
#   model     core                    (pure cost models)
#   comm      core codec model        (p2p, collectives, Auto)
#   linalg    core codec model comm   (distributed multiply)
#   profile   ... linalg              (measures the machine for the models)
#   capi      ... profile             (the C API)                 -> libcommpress
#
# commpress_layer(<name> [BELOW <layer>...] [EXCLUDE <regex>]) defines commpress_layer_<name>
# from src/<name>/**/*.cpp, less the files matching EXCLUDE.
function(commpress_layer name)
  cmake_parse_arguments(L "" "EXCLUDE" "BELOW" ${ARGN})
  set(root ${PROJECT_BINARY_DIR}/layers/${name})
  file(REMOVE_RECURSE ${root})  # no link left from another configuration
  file(MAKE_DIRECTORY ${root})
  foreach(seen ${L_BELOW} ${name})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${seen} ${root}/${seen} SYMBOLIC)
  endforeach()
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/${name}/*.cpp)
  file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/src
       ${PROJECT_SOURCE_DIR}/src/${name}/*.hpp)
  if(L_EXCLUDE)
    list(FILTER sources EXCLUDE REGEX "${L_EXCLUDE}")
    list(FILTER headers EXCLUDE REGEX "${L_EXCLUDE}")
  endif()
  add_library(commpress_layer_${name} OBJECT ${sources})
  add_library(commpress_layer_${name}_headers OBJECT)
  foreach(t commpress_layer_${name} commpress_layer_${name}_headers)
    target_include_directories(${t} PRIVATE ${root} ${PROJECT_SOURCE_DIR}/include
                                            ${PROJECT_BINARY_DIR}/include)
  endforeach()
  # The layer's headers too: one generated file includes them all under the layer's root,
  # so a header that includes a higher layer fails the build even where no source of the
  # layer includes that header.
  set(text "")
  foreach(h ${headers})
    string(APPEND text "#include \"${h}\"\n")
  endforeach()
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/layers/headers_${name}.cpp CONTENT "${text}")
  target_sources(commpress_layer_${name}_headers PRIVATE ${PROJECT_BINARY_DIR}/layers/headers_${name}.cpp)
endfunction()

# A library made of layers: a SHARED library from their objects. The layers are kept on the
# target (COMMPRESS_LAYERS) so the glibc-hwcaps variants rebuild the same layers.
function(commpress_layered_library target)
  set(objects "")
  foreach(layer ${ARGN})
    list(APPEND objects $<TARGET_OBJECTS:commpress_layer_${layer}>)
  endforeach()
  add_library(${target} ${COMMPRESS_LIBRARY_KIND} ${objects})
  set_target_properties(${target} PROPERTIES COMMPRESS_LAYERS "${ARGN}")
endfunction()

# The proof, at configure time: from each layer's include root, a header of its own compiles
# and a header of the layer right above it does not, although both compile with the whole
# src/ as root (so the probe tests the roots, not a missing file).
function(commpress_layer_probe result root header)
  set(dir ${PROJECT_BINARY_DIR}/layers/probe)
  file(WRITE ${dir}/probe_${result}.cpp "#include \"${header}\"\nint main() { return 0; }\n")
  try_compile(${result} ${dir}/build_${result} SOURCES ${dir}/probe_${result}.cpp
              CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${root};${PROJECT_SOURCE_DIR}/include;${PROJECT_BINARY_DIR}/include;${MPI_CXX_INCLUDE_DIRS}"
              CXX_STANDARD 20)
  set(${result} ${${result}} PARENT_SCOPE)
endfunction()

# commpress_check_layers(<layer> <own header> <header of a layer above> ...): pairs per layer.
function(commpress_check_layers)
  set(signature "${ARGN}")
  if(COMMPRESS_LAYER_PROBES_DONE STREQUAL signature)
    return()
  endif()
  set(args ${ARGN})
  while(args)
    list(POP_FRONT args layer own upward)
    set(root ${PROJECT_BINARY_DIR}/layers/${layer})
    commpress_layer_probe(own_ok ${root} ${own})
    commpress_layer_probe(upward_ok ${root} ${upward})
    commpress_layer_probe(upward_exists ${PROJECT_SOURCE_DIR}/src ${upward})
    if(NOT own_ok OR upward_ok OR NOT upward_exists)
      message(FATAL_ERROR "layer ${layer}: its include root does not hold the layers apart "
                          "(${own} compiles: ${own_ok}; ${upward} compiles from it: "
                          "${upward_ok}, from src/: ${upward_exists})")
    endif()
    message(STATUS "Layers: ${layer} cannot include ${upward} (checked)")
  endwhile()
  set(COMMPRESS_LAYER_PROBES_DONE "${signature}" CACHE INTERNAL "")
endfunction()
