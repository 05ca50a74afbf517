# COMMPRESS_ENABLE_CUDA: the cuda layer (src/cuda, above comm: core codec model comm cuda) as
# libcommpress_cuda, its tests (tests/cuda) and benchmark (bench/cuda). Compiling needs nvcc
# and the CUDA runtime headers, not a GPU: the toolkit's nvcc on PATH, or CMAKE_CUDA_COMPILER
# / CUDAToolkit_ROOT pointing at one (scripts/cuda-toolkit assembles one from the PyPI
# packages scripts/setup installs). docs/cuda.md.
#
# COMMPRESS_CUDA_ARCHITECTURES: the GPUs the kernels are built for (90 = H100/H200).
# COMMPRESS_CUDA_COMPILE_ONLY: only the objects (CI: proves the sources compile without
#   building the rest of the project); no library, tests or benchmark are linked.
set(COMMPRESS_CUDA_ARCHITECTURES "90" CACHE STRING "CUDA architectures of the device code")
option(COMMPRESS_CUDA_COMPILE_ONLY "Compile the CUDA sources without linking anything" OFF)

if(NOT CMAKE_CUDA_HOST_COMPILER)
  set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})
endif()
enable_language(CUDA)
find_package(CUDAToolkit REQUIRED)
# CMake 3.25 predates nvcc's C++20 support and knows no flag for it: tell it.
if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()
set(CMAKE_CUDA_STANDARD 20)
set(CMAKE_CUDA_STANDARD_REQUIRED ON)
set(CMAKE_CUDA_EXTENSIONS OFF)

commpress_layer(cuda BELOW core codec model comm)
file(GLOB commpress_cuda_kernels CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cuda/*.cu)
target_sources(commpress_layer_cuda PRIVATE ${commpress_cuda_kernels})

# Device code: no fused multiply-add (the decoder's q * step must be the CPU's, as
# -ffp-contract=off keeps it on the host), constexpr host functions (std::bit_width, the
# header tables' helpers) callable on the device.
set(commpress_cuda_flags --expt-relaxed-constexpr --fmad=false
    -Xcompiler=-Wall,-Wextra,-ffp-contract=off)
function(commpress_cuda_target t)
  set_target_properties(${t} PROPERTIES CUDA_ARCHITECTURES "${COMMPRESS_CUDA_ARCHITECTURES}"
                                        CUDA_SEPARABLE_COMPILATION OFF)
  target_compile_options(${t} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:${commpress_cuda_flags}>)
  target_link_libraries(${t} PRIVATE CUDA::cudart MPI::MPI_CXX commpress_xxhash_header)
endfunction()
foreach(t commpress_layer_cuda commpress_layer_cuda_headers)
  commpress_cuda_target(${t})
endforeach()

if(NOT COMMPRESS_CUDA_COMPILE_ONLY)
  add_library(commpress_cuda SHARED $<TARGET_OBJECTS:commpress_layer_cuda>)
  add_library(commpress::cuda ALIAS commpress_cuda)
  set_target_properties(commpress_cuda PROPERTIES CUDA_ARCHITECTURES "${COMMPRESS_CUDA_ARCHITECTURES}"
                        VERSION ${PROJECT_VERSION}
                        SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  target_include_directories(commpress_cuda
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>)
  target_link_libraries(commpress_cuda PUBLIC commpress CUDA::cudart MPI::MPI_CXX)
endif()

# The GPU tests and benchmark (tests/cuda, bench/cuda): compiled whenever CUDA is on; run by
# ctest only with COMMPRESS_CUDA_RUN_TESTS (a machine with a GPU: scripts/gpu-verify).
option(COMMPRESS_CUDA_RUN_TESTS "Register the GPU tests with ctest (needs a GPU)" OFF)
if(COMMPRESS_CUDA_RUN_TESTS)
  enable_testing()  # here, in the top directory: also without COMMPRESS_ENABLE_TESTS
endif()
add_subdirectory(${PROJECT_SOURCE_DIR}/tests/cuda ${PROJECT_BINARY_DIR}/tests/cuda)
