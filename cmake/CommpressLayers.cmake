# The layers a library may include from: a private include root holding links to those
# layers' source folders only, so that including a higher layer fails to compile instead of
# passing review unnoticed. Today the codec library (src/core, src/codec) is held to it; the
# upper library still shares one root (docs/architecture.md names its known upward include).
#
# COMMPRESS_CODEC_LAYER_INCLUDE: the codec library's private include root.
set(COMMPRESS_CODEC_LAYER_INCLUDE ${PROJECT_BINARY_DIR}/layers/codec)
foreach(layer core codec)
  file(MAKE_DIRECTORY ${COMMPRESS_CODEC_LAYER_INCLUDE})
  if(NOT EXISTS ${COMMPRESS_CODEC_LAYER_INCLUDE}/${layer})
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${layer} ${COMMPRESS_CODEC_LAYER_INCLUDE}/${layer}
         SYMBOLIC)
  endif()
endforeach()

# The proof, at configure time: with the codec layer's root, one of its own headers compiles
# and a header of the model layer above does not, although it compiles with the whole src/.
function(commpress_layer_probe result root header)
  set(dir ${PROJECT_BINARY_DIR}/layers/probe)
  file(WRITE ${dir}/probe_${result}.cpp "#include \"${header}\"\nint main() { return 0; }\n")
  try_compile(${result} ${dir}/build_${result} SOURCES ${dir}/probe_${result}.cpp
              CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${root};${PROJECT_SOURCE_DIR}/include;${PROJECT_BINARY_DIR}/include"
              CXX_STANDARD 20)
  set(${result} ${${result}} PARENT_SCOPE)
endfunction()
if(NOT COMMPRESS_LAYER_PROBES_DONE)
  set(upward "model/cost_terms.hpp")
  commpress_layer_probe(COMMPRESS_LAYER_OWN ${COMMPRESS_CODEC_LAYER_INCLUDE} "codec/format/frame_header.hpp")
  commpress_layer_probe(COMMPRESS_LAYER_UPWARD ${COMMPRESS_CODEC_LAYER_INCLUDE} ${upward})
  commpress_layer_probe(COMMPRESS_LAYER_UPWARD_FROM_SRC ${PROJECT_SOURCE_DIR}/src ${upward})
  if(NOT COMMPRESS_LAYER_OWN OR COMMPRESS_LAYER_UPWARD OR NOT COMMPRESS_LAYER_UPWARD_FROM_SRC)
    message(FATAL_ERROR "the codec layer's include root does not hold the layers apart (own "
                        "header compiles: ${COMMPRESS_LAYER_OWN}; ${upward} compiles from it: "
                        "${COMMPRESS_LAYER_UPWARD}, from src/: ${COMMPRESS_LAYER_UPWARD_FROM_SRC})")
  endif()
  message(STATUS "Layers: the codec layer cannot include ${upward} (checked)")
  set(COMMPRESS_LAYER_PROBES_DONE ON CACHE INTERNAL "")
endif()
