/* The Check suites of sim/work, one per module, run by test-work; and the
 * helpers they share (defined in test-work.c). */
#pragma once

#include <check.h>
#include <glib.h>

#include "work/work-model.h"

Suite *work_model_suite(void);
Suite *work_compute_suite(void);
Suite *work_layout_suite(void);
Suite *work_memory_suite(void);

/* $top_srcdir/models (the shipped models), newly allocated. */
char *work_test_models_dir(void);

/* $top_srcdir/models/llm/FILE, newly allocated. */
char *work_test_model_path(const char *file);

/* The shipped model ID (models/llm/ID.ini); fails the test if it does not
 * load. Free with work_model_free. */
WorkModel *work_test_load_model(const char *id);

/* A tiny GPT block for hand calculations: 4 layers, hidden 64, FFN 256
 * (GeLU), 4 heads, vocabulary 1000, 128 learned positions, LayerNorm,
 * biases, tied embeddings. Free with work_model_free. */
WorkModel *work_test_tiny_model(void);
