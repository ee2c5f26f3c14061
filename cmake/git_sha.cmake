# Run at every build (the gb_git_sha target): writes OUT, a header that
# defines GB_GIT_SHA as the checkout's short revision ("-dirty" when tracked
# files differ from it; "unknown" outside a git checkout), and rewrites it
# only when that changes, so that an unchanged revision rebuilds nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT sha)
  set(sha "unknown")
else()
  # git diff refreshes file times in memory: no index lock, no false
  # "-dirty" from a stale index (diff-index would need update-index first)
  execute_process(COMMAND git diff --quiet HEAD --
    WORKING_DIRECTORY ${SRC} RESULT_VARIABLE dirty OUTPUT_QUIET ERROR_QUIET)
  if(NOT dirty EQUAL 0)
    set(sha "${sha}-dirty")
  endif()
endif()
set(text "/* written by cmake/git_sha.cmake at build time */\n#define GB_GIT_SHA \"${sha}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
