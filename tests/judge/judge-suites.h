/* SPDX-License-Identifier: Apache-2.0 */
/* The Check suites of sim/judge, run by test-judge. */
#pragma once

#include <check.h>

Suite *judge_log_suite(void);
Suite *judge_decompose_suite(void);
