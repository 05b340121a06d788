# EmberConfig.cmake — use models compiled ahead of time by Ember from CMake.
#
#   find_package(Ember CONFIG REQUIRED)      # Ember_DIR: <prefix>/lib/cmake/Ember, or the
#                                            # repository's cmake/ folder
#   ember_add_model(my_model model.pt
#                   [METHOD forward] [SHAPES x=1x3x224x224:f32 ...] [WEIGHTS embed|file]
#                   [CPU native] [MODE whole|groups])
#   target_link_libraries(my_app PRIVATE my_model)
#
# ember_add_model runs `emberc` at build time and creates a static library target holding the
# object, with the generated header `<target>.h` on its include path (it includes `ember.h`,
# the runtime's C API; `ember.hpp` is the C++ wrapper). The library links Ember::runtime, the
# imported target of `libember_runtime.a`. With `WEIGHTS file` the weights are written to
# `<target>.weights` beside the object; `EMBER_MODEL_WEIGHTS_<target>` holds its path and the
# program passes it to `<target>_open`.
#
# Where the pieces are found: an installed tree (`cmake --install` of cmake/CMakeLists.txt:
# bin/emberc, lib/libember_runtime.a, include/ember.h), else the repository (target/release,
# then target/debug; runtime/include). Override with EMBERC_EXECUTABLE, EMBER_RUNTIME_LIBRARY
# and EMBER_INCLUDE_DIR.

get_filename_component(_ember_here "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)
if(EXISTS "${_ember_here}/../../../include/ember.h")
  get_filename_component(_ember_prefix "${_ember_here}/../../.." ABSOLUTE)
  set(_ember_bin_hints "${_ember_prefix}/bin")
  set(_ember_lib_hints "${_ember_prefix}/lib")
  set(_ember_include_hint "${_ember_prefix}/include")
else()
  get_filename_component(_ember_root "${_ember_here}/.." ABSOLUTE)
  set(_ember_bin_hints "${_ember_root}/target/release" "${_ember_root}/target/debug")
  set(_ember_lib_hints "${_ember_root}/target/release" "${_ember_root}/target/debug")
  set(_ember_include_hint "${_ember_root}/runtime/include")
endif()

find_program(EMBERC_EXECUTABLE emberc HINTS ${_ember_bin_hints} DOC "Ember's ahead-of-time compiler")
if(NOT EMBERC_EXECUTABLE)
  message(FATAL_ERROR "Ember: emberc not found; build it (cargo build --release -p emberc) or set EMBERC_EXECUTABLE")
endif()
get_filename_component(_emberc_dir "${EMBERC_EXECUTABLE}" DIRECTORY)
find_library(EMBER_RUNTIME_LIBRARY NAMES libember_runtime.a ember_runtime
  HINTS "${_emberc_dir}" ${_ember_lib_hints} NO_DEFAULT_PATH
  DOC "Ember's runtime library")
if(NOT EMBER_RUNTIME_LIBRARY)
  message(FATAL_ERROR "Ember: libember_runtime.a not found; build it (cargo build --release -p ember-runtime) or set EMBER_RUNTIME_LIBRARY")
endif()
find_path(EMBER_INCLUDE_DIR ember.h HINTS "${_ember_include_hint}" NO_DEFAULT_PATH
  DOC "where ember.h is")
if(NOT EMBER_INCLUDE_DIR)
  message(FATAL_ERROR "Ember: ember.h not found; set EMBER_INCLUDE_DIR")
endif()

if(NOT TARGET Ember::runtime)
  add_library(Ember::runtime STATIC IMPORTED)
  set_target_properties(Ember::runtime PROPERTIES
    IMPORTED_LOCATION "${EMBER_RUNTIME_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${EMBER_INCLUDE_DIR}"
    # The Rust standard library inside the runtime needs these on Linux.
    INTERFACE_LINK_LIBRARIES "m;dl;pthread"
    # Drops the operators a program cannot reach (about a third of the runtime).
    INTERFACE_LINK_OPTIONS "-Wl,--gc-sections")
endif()
set(Ember_FOUND TRUE)

function(ember_add_model target model)
  cmake_parse_arguments(ARG "" "TARGET;CPU;METHOD;WEIGHTS;MODE" "SHAPES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ember_add_model: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(model_path "${model}" ABSOLUTE)
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/ember/${target}")
  set(object "${out_dir}/${target}.o")
  set(header "${out_dir}/${target}.h")
  set(outputs "${object}" "${header}")

  # The C name of the model (its descriptor and the prefix of its functions) is the target's.
  set(flags)
  if(ARG_TARGET)
    list(APPEND flags --target "${ARG_TARGET}")
  endif()
  if(ARG_CPU)
    list(APPEND flags --cpu "${ARG_CPU}")
  endif()
  if(ARG_METHOD)
    list(APPEND flags --method "${ARG_METHOD}")
  endif()
  if(ARG_MODE)
    list(APPEND flags --mode "${ARG_MODE}")
  endif()
  if(ARG_WEIGHTS)
    list(APPEND flags --weights "${ARG_WEIGHTS}")
    if(ARG_WEIGHTS STREQUAL "file")
      list(APPEND outputs "${out_dir}/${target}.weights")
      set(EMBER_MODEL_WEIGHTS_${target} "${out_dir}/${target}.weights" PARENT_SCOPE)
    endif()
  endif()
  foreach(shape IN LISTS ARG_SHAPES)
    list(APPEND flags --shape "${shape}")
  endforeach()

  add_custom_command(
    OUTPUT ${outputs}
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
    COMMAND "${EMBERC_EXECUTABLE}" "${model_path}" -o "${object}" --emit=obj
            --header "${header}" --name "${target}" ${flags}
    DEPENDS "${model_path}" "${EMBERC_EXECUTABLE}"
    COMMENT "emberc ${model}"
    VERBATIM)

  add_library(${target} STATIC "${object}")
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE C)
  set_source_files_properties("${object}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  target_include_directories(${target} INTERFACE "${out_dir}")
  target_link_libraries(${target} INTERFACE Ember::runtime m)
endfunction()
