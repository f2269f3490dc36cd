/* The Check suites of sim/work, one per module, run by test-work; and the
 * helpers they share (defined in test-work.c). */
#pragma once

#include <check.h>
#include <glib.h>

Suite *work_model_suite(void);

/* $top_srcdir/models (the shipped models), newly allocated. */
char *work_test_models_dir(void);

/* $top_srcdir/models/llm/FILE, newly allocated. */
char *work_test_model_path(const char *file);
