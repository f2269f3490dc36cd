/* SPDX-License-Identifier: Apache-2.0 */
/* The fuzz targets' shared declarations: libFuzzer's entry point, which
 * each tests/fuzz/fuzz-NAME.c defines, and the setup every target runs
 * first. A target builds with libFuzzer (make fuzz) or with the plain main
 * of fuzz-driver.c (make check, over the committed inputs).
 */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Runs the parser under test on one input of size bytes; returns 0. The
 * input is not NUL-terminated. Prints nothing; leaks nothing. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* GLib warnings and criticals (a g_return_val_if_fail met, a GError set
 * twice) abort after printing, so that libFuzzer sees a crash and keeps
 * the input; GLib's own fatal logs trap instead, which libFuzzer does not
 * catch. Quieter messages are dropped. */
static inline void
fuzz_log_handler(const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
    (void)data;
    if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) {
        g_printerr("%s: %s\n", domain ? domain : "", message);
        abort();
    }
}

static inline GLogWriterOutput
fuzz_log_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
    if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING)) {
        g_log_writer_standard_streams(level, fields, n_fields, data);
        abort();
    }
    return G_LOG_WRITER_HANDLED;
}

/* Installs the log handlers above, once. */
static inline void
fuzz_setup(void)
{
    static gboolean done;
    if (!done) {
        g_log_set_default_handler(fuzz_log_handler, NULL);
        g_log_set_writer_func(fuzz_log_writer, NULL, NULL);
        done = TRUE;
    }
}

/* The input as a NUL-terminated string (cut at its first NUL). */
static inline char *
fuzz_string(const uint8_t *data, size_t size)
{
    return g_strndup((const char *)data, size);
}
