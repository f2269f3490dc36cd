/* SPDX-License-Identifier: Apache-2.0 */
/* The report layer's Check suites, run by test-report.c. */
#pragma once

#include <check.h>

Suite *report_trace_suite(void);
Suite *report_chrome_suite(void);
Suite *report_replay_suite(void);
Suite *report_links_suite(void);
