// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file remap.hpp
//! In-kernel thread-data remapping (lin2018): Head-or-Tail for two paths, Data Group Indexing for
//! many, the private-state exchange, and the control-flow-efficiency counters.

#include "microsched/remap/cfe_counter.hpp"
#include "microsched/remap/data_group_index.hpp"
#include "microsched/remap/head_or_tail.hpp"
#include "microsched/remap/permutation.hpp"
#include "microsched/remap/state_exchange.hpp"
