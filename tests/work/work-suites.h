/* SPDX-License-Identifier: Apache-2.0 */
/* The Check suites of sim/work, one per module, run by test-work. */
#pragma once

#include <check.h>
#include <glib.h>

#include "work-test-support.h"

Suite *work_model_suite(void);
Suite *work_compute_suite(void);
Suite *work_layout_suite(void);
Suite *work_memory_suite(void);
Suite *work_pipeline_suite(void);
Suite *work_gen_suite(void);
Suite *work_replay_suite(void);
Suite *work_cache_suite(void);
Suite *work_steady_suite(void);
Suite *work_fault_suite(void);
Suite *work_ranges_suite(void);
Suite *work_place_suite(void);
