// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// doctest main for host tests.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
