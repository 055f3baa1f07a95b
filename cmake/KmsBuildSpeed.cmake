# Build-time helpers: the suites and the Qt libraries parse the same heavy headers (Qt, GoogleTest)
# in every translation unit; precompiling them halves the CI's compile time on two cores.
#
#   kms_precompile(<target> <set>...)   sets: std, gtest, qtcore, qtgui, qtwidgets, qttest
#
# With KMS_PRECOMPILED_HEADERS=OFF (the fuzz preset) every file must still compile on its own
# includes, so that build keeps the includes honest.
option(KMS_PRECOMPILED_HEADERS "Precompile the Qt, GoogleTest and standard headers" ON)

function(kms_precompile target)
  if(NOT KMS_PRECOMPILED_HEADERS)
    return()
  endif()
  set(headers)
  foreach(set IN LISTS ARGN)
    if(set STREQUAL "std")
      list(APPEND headers <algorithm> <cmath> <cstdint> <functional> <limits> <map> <memory>
           <random> <string> <vector>)
    elseif(set STREQUAL "gtest")
      list(APPEND headers <gtest/gtest.h>)
    elseif(set STREQUAL "qtcore")
      list(APPEND headers <QtCore/QtCore>)
    elseif(set STREQUAL "qtgui")
      list(APPEND headers <QtGui/QtGui>)
    elseif(set STREQUAL "qtwidgets")
      list(APPEND headers <QtWidgets/QtWidgets> <qcustomplot.h>)
    elseif(set STREQUAL "qttest")
      list(APPEND headers <QtTest/QtTest>)
    else()
      message(FATAL_ERROR "kms_precompile: unknown header set '${set}'")
    endif()
  endforeach()
  # Only the C++ sources: CUDA files of a mixed target keep their own includes.
  list(TRANSFORM headers PREPEND "$<$<COMPILE_LANGUAGE:CXX>:")
  list(TRANSFORM headers APPEND ">")
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()

# The test suites' own code: GoogleTest's macros expand to much code that runs once, so it is
# compiled for compile time — -O0 in the sanitizer builds (Debug; twice as fast as the presets'
# -O1), -O1 otherwise (a fifth faster than -O3). The libraries under test keep their flags.
function(kms_test_code_flags target)
  target_compile_options(${target} PRIVATE
                         $<$<COMPILE_LANGUAGE:CXX>:$<IF:$<CONFIG:Debug>,-O0,-O1>>)
endfunction()
