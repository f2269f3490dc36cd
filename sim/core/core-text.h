/* SPDX-License-Identifier: Apache-2.0 */
/* Text files checked line by line before any parser sees them, so that a
 * malformed file is named with the line at fault: a folder where a file is
 * expected, bytes that are not text (NUL, invalid UTF-8), lines too long
 * to be a person's input (and to echo in a message). Models and scenarios
 * are read whole (sim_text_read, at most SIM_TEXT_MAX_FILE_BYTES); tables
 * of measurements stream a line at a time (SimTextStream), in memory that
 * does not grow with the file.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

/* The longest line a model, scenario, sweep or CSV file may have, in bytes
 * (the newline excluded). */
#define SIM_TEXT_MAX_LINE_BYTES 65536

/* The largest such file, in bytes: a CSV of millions of measured rows fits;
 * an endless device does not (it fails at its first NUL byte or overlong
 * line, else here). */
#define SIM_TEXT_MAX_FILE_BYTES 1073741824u

/* Fails "NAME:LINE: not text (a NUL byte or invalid UTF-8)" or "NAME:LINE:
 * a line of N bytes: expected at most SIM_TEXT_MAX_LINE_BYTES" on the
 * first line of data (length bytes) that is not text or too long. */
bool sim_text_check(const char *name, const char *data, gsize length, GError **error);

/* Reads the file at path whole into *contents (NUL-terminated, owned by
 * the caller; *length bytes before the NUL) and checks it with
 * sim_text_check. Errors (G_FILE_ERROR) name the path: "PATH: is a folder:
 * expected WHAT" (what: "a CSV file"), "PATH: No such file or directory"
 * and the like, "PATH: more than SIM_TEXT_MAX_FILE_BYTES bytes", "PATH:
 * LINE: a line of more than SIM_TEXT_MAX_LINE_BYTES bytes", or
 * sim_text_check's, found as the bytes come (an endless input such as
 * /dev/zero fails at once). */
bool sim_text_read(const char *path, const char *what, char **contents, gsize *length,
                   GError **error);

/* A text file (or text in memory) read a line at a time. */
typedef struct SimTextStream SimTextStream;

/* Opens the file at path; errors as sim_text_read's for a file that cannot
 * be opened or is a folder. */
SimTextStream *sim_text_stream_open(const char *path, const char *what, GError **error);
/* Reads length bytes at data (borrowed: they must outlive the stream),
 * named name in messages. */
SimTextStream *sim_text_stream_new_data(const char *name, const char *data, gsize length);
/* The next line, its newline included when it has one, in *line and
 * *length (valid until the next call); false at the end (error unset) or
 * on the first line that is not text or is too long, with sim_text_check's
 * messages, or a read error. A line is checked as its bytes come: an
 * endless input fails at its first NUL byte or once a line is too long. */
bool sim_text_stream_next(SimTextStream *s, const char **line, gsize *length, GError **error);
/* The number of the line the last call returned (1 for the first). */
unsigned sim_text_stream_line(const SimTextStream *s);
void sim_text_stream_free(SimTextStream *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimTextStream, sim_text_stream_free)

/* text cut to at most max_chars characters (an ellipsis marks a cut), its
 * control characters made '?': safe to quote in a one-line message. text
 * must be UTF-8. Newly allocated. */
char *sim_text_excerpt(const char *text, glong max_chars);
