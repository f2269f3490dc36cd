/* SPDX-License-Identifier: Apache-2.0 */
/* The Check suites of sim/hw, one per module, run by test-hw; and the
 * helpers they share (defined in test-hw.c). */
#pragma once

#include <check.h>
#include <glib.h>
#include <stdint.h>

Suite *hw_gpu_suite(void);
Suite *hw_gpu_list_suite(void);
Suite *hw_link_suite(void);
Suite *hw_models_suite(void);
Suite *hw_nic_suite(void);
Suite *hw_switch_suite(void);
Suite *hw_system_suite(void);

/* $top_srcdir/models (the shipped models), newly allocated. */
char *hw_test_models_dir(void);

/* $top_srcdir/models/KIND/FILE, newly allocated. */
char *hw_test_model_path(const char *kind, const char *file);

/* The number of *.ini files in $top_srcdir/models/KIND. */
unsigned hw_test_count_models(const char *kind);

/* text with its first `from` replaced by `to`; from NULL: `to` itself.
 * Fails the test (naming case) if from is not in text. Newly allocated. */
char *hw_test_patch(const char *case_name, const char *text, const char *from, const char *to);

/* A new temporary models folder holding link/testlink.ini (a valid NVLink
 * model), link/testnet.ini (a valid network model) and link/broken.ini (an
 * unknown key). Remove it with hw_test_remove_dir. */
char *hw_test_make_models_dir(void);

/* Writes text to DIR/SUB/NAME (SUB created if absent); returns the path. */
char *hw_test_write(const char *dir, const char *sub, const char *name, const char *text);

/* Removes a folder made by hw_test_make_models_dir, and what was written in it. */
void hw_test_remove_dir(const char *dir);

/* Asserts that message starts with path and contains part, naming case. */
void hw_test_assert_message(const char *case_name, const char *message, const char *path,
                            const char *part);

/* A valid link model file of kind nvlink, for tests to patch. */
extern const char *const hw_test_valid_link;
