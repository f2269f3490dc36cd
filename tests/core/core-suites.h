/* SPDX-License-Identifier: Apache-2.0 */
/* The Check suites of sim/core, one per module, run by test-core. */
#pragma once

#include <check.h>
#include <glib.h>
#include <inttypes.h>

Suite *core_csv_suite(void);
Suite *core_engine_suite(void);
Suite *core_output_suite(void);
Suite *core_queue_suite(void);
Suite *core_rng_suite(void);
Suite *core_text_suite(void);
Suite *core_time_suite(void);
Suite *core_units_suite(void);
