# EmberConfig.cmake — use Ember's ahead-of-time compiled models from CMake.
#
#   list(APPEND CMAKE_PREFIX_PATH /path/to/ember/cmake)   # or -DEmber_DIR=/path/to/ember/cmake
#   find_package(Ember REQUIRED)
#   ember_add_model(my_model model.ir
#                   [TARGET x86_64] [CPU native] [METHOD forward]
#                   [SHAPES x=2x3:f32 y=3:f32 ...])
#   target_link_libraries(my_app PRIVATE my_model)
#
# ember_add_model runs `emberc` on the model at build time and creates a static library target
# holding the object, with the generated header `<target>.h` on its include path. The library
# links Ember's runtime (libember_runtime.a) and libm, as compiled kernels may call expf/logf.
#
# Where the tools are found:
#   EMBERC_EXECUTABLE       emberc (default: searched on PATH and in the Cargo target dirs)
#   EMBER_RUNTIME_LIBRARY   libember_runtime.a (default: beside emberc, then the target dirs)

get_filename_component(_ember_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)

find_program(EMBERC_EXECUTABLE emberc
  HINTS "${_ember_root}/target/release" "${_ember_root}/target/debug"
  DOC "Ember's ahead-of-time compiler")
if(NOT EMBERC_EXECUTABLE)
  message(FATAL_ERROR "Ember: emberc not found; build it (cargo build -p emberc) or set EMBERC_EXECUTABLE")
endif()

get_filename_component(_emberc_dir "${EMBERC_EXECUTABLE}" DIRECTORY)
find_library(EMBER_RUNTIME_LIBRARY NAMES libember_runtime.a ember_runtime
  HINTS "${_emberc_dir}" "${_ember_root}/target/release" "${_ember_root}/target/debug"
  DOC "Ember's runtime library")
if(NOT EMBER_RUNTIME_LIBRARY)
  message(FATAL_ERROR "Ember: libember_runtime.a not found; build it (cargo build -p ember-runtime) or set EMBER_RUNTIME_LIBRARY")
endif()

if(NOT TARGET Ember::runtime)
  add_library(Ember::runtime STATIC IMPORTED)
  set_target_properties(Ember::runtime PROPERTIES IMPORTED_LOCATION "${EMBER_RUNTIME_LIBRARY}")
  # The Rust standard library inside the runtime needs these on Linux.
  set_property(TARGET Ember::runtime PROPERTY INTERFACE_LINK_LIBRARIES m dl pthread)
endif()

function(ember_add_model target model)
  cmake_parse_arguments(ARG "" "TARGET;CPU;METHOD" "SHAPES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "ember_add_model: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(model_path "${model}" ABSOLUTE)
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/ember/${target}")
  set(object "${out_dir}/${target}.o")
  set(header "${out_dir}/${target}.h")

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
  foreach(shape IN LISTS ARG_SHAPES)
    list(APPEND flags --shape "${shape}")
  endforeach()

  add_custom_command(
    OUTPUT "${object}" "${header}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${out_dir}"
    COMMAND "${EMBERC_EXECUTABLE}" "${model_path}" -o "${object}" --emit=obj
            --header "${header}" ${flags}
    DEPENDS "${model_path}" "${EMBERC_EXECUTABLE}"
    COMMENT "emberc ${model}"
    VERBATIM)

  add_library(${target} STATIC "${object}")
  set_target_properties(${target} PROPERTIES LINKER_LANGUAGE C)
  set_source_files_properties("${object}" PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  target_include_directories(${target} INTERFACE "${out_dir}")
  target_link_libraries(${target} INTERFACE Ember::runtime m)
endfunction()
