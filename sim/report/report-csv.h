/* SPDX-License-Identifier: Apache-2.0 */
/* Reading CSV tables (libcsv): a header row naming the columns, then rows
 * of text fields. Used for measurement files (the schema of
 * shared/reference/collectives.csv) and, later, traces.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct ReportCsv {
    char *path;
    GPtrArray *columns; /* char *, the header */
    GPtrArray *rows;    /* GPtrArray of char *, one per row, as many fields as columns */
    GArray *lines;      /* uint32_t: the line each row starts on (1 = the header) */
} ReportCsv;

/* Reads a whole CSV file. Errors name the file and line: unreadable file,
 * malformed quoting, a row whose field count differs from the header's,
 * no header, duplicate column names. */
ReportCsv *report_csv_read(const char *path, GError **error);
/* The same from the text of a CSV file, length bytes (NUL not needed);
 * path names it in messages. */
ReportCsv *report_csv_read_data(const char *data, size_t length, const char *path, GError **error);
void report_csv_free(ReportCsv *csv);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ReportCsv, report_csv_free)

/* A CSV file read a row at a time: the header when it opens, then each
 * row in turn, in memory that holds one row (the same checks and messages
 * as report_csv_read, each found when its line is read). */
typedef struct ReportCsvStream ReportCsvStream;

ReportCsvStream *report_csv_stream_open(const char *path, GError **error);
/* The same over text in memory (borrowed: it must outlive the stream). */
ReportCsvStream *report_csv_stream_new_data(const char *data, size_t length, const char *path,
                                            GError **error);
/* The table as read so far: the path and columns, and in rows (and lines)
 * the row the last report_csv_stream_next read, at index 0. */
const ReportCsv *report_csv_stream_table(const ReportCsvStream *s);
/* Reads the next row; false at the end (error unset) or on an error. */
bool report_csv_stream_next(ReportCsvStream *s, GError **error);
void report_csv_stream_free(ReportCsvStream *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ReportCsvStream, report_csv_stream_free)

/* Index of column name, or -1. */
int report_csv_column(const ReportCsv *csv, const char *name);

/* Field of row r in column c (c from report_csv_column, may be -1: "" then). */
const char *report_csv_field(const ReportCsv *csv, guint r, int c);

/* Appends text to out as one CSV field (RFC 4180): quoted, inner quotes
 * doubled, when it holds a comma, quote or line break or starts or ends
 * with a blank; as it is otherwise. */
void report_csv_append_field(GString *out, const char *text);
