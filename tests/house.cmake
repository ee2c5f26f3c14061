# The house rules (docs/architecture.md), checked on the sources: no file over
# 800 lines, no function over 100, no include cycle, no metric, unit, STREAM
# kernel constant or element size written twice, no "issue N" note in product
# code, every subcommand parsed with getopt_long. Files of other helpers still
# over a limit are named in the script's allow-list, which only shrinks.
add_test(NAME check_house COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_house.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(check_house PROPERTIES LABELS cpu)
# ... and the check itself fails on a tree with one offender of each kind
add_test(NAME check_house_selftest COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_house_selftest.sh)
set_tests_properties(check_house_selftest PROPERTIES LABELS cpu)

# The walkthrough of docs/architecture.md ("Adding a benchmark") kept honest:
# its two skeleton blocks become a registry with the new entry and the
# benchmark's source, built with copies of core/gb_desc.{c,h} and
# bench/gb_registry.c (so that their #include "gb_registry.def" finds the
# copy); check_skeleton runs the benchmark found through both tables.
set(GB_SKEL ${CMAKE_BINARY_DIR}/skeleton)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/architecture.md
  ${CMAKE_SOURCE_DIR}/core/gb_registry.def)
file(READ ${CMAKE_SOURCE_DIR}/docs/architecture.md GB_ARCH_DOC)
function(gb_skeleton_block tag outvar)
  string(FIND "${GB_ARCH_DOC}" "<!-- skeleton: ${tag} -->" at)
  if(at LESS 0)
    message(FATAL_ERROR "docs/architecture.md has no skeleton block '${tag}'")
  endif()
  string(SUBSTRING "${GB_ARCH_DOC}" ${at} -1 rest)
  string(FIND "${rest}" "```c\n" b)
  math(EXPR b "${b} + 5")
  string(SUBSTRING "${rest}" ${b} -1 rest)
  string(FIND "${rest}" "```" e)
  string(SUBSTRING "${rest}" 0 ${e} block)
  set(${outvar} "${block}" PARENT_SCOPE)
endfunction()
gb_skeleton_block("registry" GB_SKEL_ENTRY)
gb_skeleton_block("bench_hostmem.c" GB_SKEL_SOURCE)
file(READ ${CMAKE_SOURCE_DIR}/core/gb_registry.def GB_SKEL_REGISTRY)
file(WRITE ${GB_SKEL}/gb_registry.def "${GB_SKEL_REGISTRY}\n${GB_SKEL_ENTRY}")
file(WRITE ${GB_SKEL}/bench_hostmem.c "${GB_SKEL_SOURCE}")
configure_file(${CMAKE_SOURCE_DIR}/core/gb_desc.c ${GB_SKEL}/gb_desc.c COPYONLY)
configure_file(${CMAKE_SOURCE_DIR}/core/gb_desc.h ${GB_SKEL}/gb_desc.h COPYONLY)
configure_file(${CMAKE_SOURCE_DIR}/bench/gb_registry.c ${GB_SKEL}/gb_registry.c COPYONLY)
gb_add_check_test(check_skeleton check_skeleton.c ${GB_SKEL}/bench_hostmem.c ${GB_SKEL}/gb_desc.c
  ${GB_SKEL}/gb_registry.c LIBS gb_bench)
target_include_directories(check_skeleton BEFORE PRIVATE ${GB_SKEL})
