/* SPDX-License-Identifier: Apache-2.0 */
/* CSV tables through libcsv: reading a header row naming the columns, then
 * rows of text fields (measurement files in the schema of
 * shared/reference/collectives.csv, traces); and writing rows a field at a
 * time, quoted only where a reader needs it.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef struct SimCsv {
    char *path;
    GPtrArray *columns; /* char *, the header */
    GPtrArray *rows;    /* GPtrArray of char *, one per row, as many fields as columns */
    GArray *lines;      /* uint32_t: the line each row starts on (1 = the header) */
} SimCsv;

/* Reads a whole CSV file. Errors name the file and line: unreadable file,
 * malformed quoting, a row whose field count differs from the header's,
 * no header, duplicate column names. */
SimCsv *sim_csv_read(const char *path, GError **error);
/* The same from the text of a CSV file, length bytes (NUL not needed);
 * path names it in messages. */
SimCsv *sim_csv_read_data(const char *data, size_t length, const char *path, GError **error);
void sim_csv_free(SimCsv *csv);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimCsv, sim_csv_free)

/* A CSV file read a row at a time: the header when it opens, then each
 * row in turn, in memory that holds one row (the same checks and messages
 * as sim_csv_read, each found when its line is read). */
typedef struct SimCsvStream SimCsvStream;

SimCsvStream *sim_csv_stream_open(const char *path, GError **error);
/* The same over text in memory (borrowed: it must outlive the stream). */
SimCsvStream *sim_csv_stream_new_data(const char *data, size_t length, const char *path,
                                      GError **error);
/* The same over a table already in memory (taken: the stream frees it),
 * its rows given one at a time with their lines, as a file's would be:
 * rows made from another format (a log) and replayed as a CSV file's. */
SimCsvStream *sim_csv_stream_new_table(SimCsv *table);
/* The table as read so far: the path and columns, and in rows (and lines)
 * the row the last sim_csv_stream_next read, at index 0. */
const SimCsv *sim_csv_stream_table(const SimCsvStream *s);
/* Reads the next row; false at the end (error unset) or on an error. */
bool sim_csv_stream_next(SimCsvStream *s, GError **error);
void sim_csv_stream_free(SimCsvStream *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(SimCsvStream, sim_csv_stream_free)

/* Index of column name, or -1. */
int sim_csv_column(const SimCsv *csv, const char *name);

/* Field of row r in column c (c from sim_csv_column, may be -1: "" then). */
const char *sim_csv_field(const SimCsv *csv, guint r, int c);

/* A CSV writer: rows go to file or are appended to text (set one, borrowed;
 * in_row starts false), a field at a time, each row ended by
 * sim_csv_end_row. A field is written as it is, unless it holds a comma,
 * quote or line break or starts or ends with a blank (which a reader would
 * trim): then libcsv quotes it (csv_fwrite, csv_write: in quotes, inner
 * quotes doubled). So numbers and words come out exactly as formatted.
 * Write errors on file are left to be seen on it (ferror). */
typedef struct SimCsvWriter {
    FILE *file;
    GString *text;
    bool in_row; /* the row has a field: the next one follows a comma */
} SimCsvWriter;

/* One field of text; NULL is an empty field. */
void sim_csv_put(SimCsvWriter *w, const char *text);
/* One field of text with its line breaks made spaces, so that the row
 * stays one line (messages, names read from files). */
void sim_csv_put_line(SimCsvWriter *w, const char *text);
/* One or more fields that need no quoting (numbers, words, a header),
 * formatted as printf does, commas in the text separating them ("" is one
 * empty field). A quote or line break in the text is a bug. */
void sim_csv_put_plain(SimCsvWriter *w, const char *format, ...) G_GNUC_PRINTF(2, 3);
/* Ends the row with a line break. */
void sim_csv_end_row(SimCsvWriter *w);
