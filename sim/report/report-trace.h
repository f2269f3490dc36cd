/* SPDX-License-Identifier: Apache-2.0 */
/* Writing an operation stream as a trace, the CSV format work-trace.h
 * describes and reads (a captured step replayed, a generated one
 * inspected or edited). */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "work/work-trace.h"

/* Writes stream to path as a trace: all of it or nothing (a temporary file
 * beside path, renamed into place). False and error when the file cannot
 * be written, or the stream cannot be written as a trace (a task whose
 * rank is not below n_gpus, a dependency that is not an earlier task of its
 * rank, a COLL task whose category is not its group's); the error names the
 * path and, for the latter, the task by index.
 *
 * A stream that passes work_stream_check, has a task and, with replicas, a
 * stride reads back equal, except that n_gpus becomes the count the format
 * derives, groups no task uses are dropped and the others are numbered in
 * the order the tasks first use them. */
bool report_trace_write(const WorkStream *stream, const char *path, GError **error);
