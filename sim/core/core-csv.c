/* SPDX-License-Identifier: Apache-2.0 */
/* CSV tables through libcsv's push parser: fields are collected into the
 * current row, rows into the table; quoting rules are libcsv's (RFC 4180,
 * strict mode so a stray quote is an error). Lines come checked as text
 * from a stream (core-text.h) and are parsed one at a time, so that every
 * error names its line; a stream keeps the row it read last, a whole read
 * every row. Writing quotes a field through libcsv only when a reader
 * could not take it as it is.
 */
#include "core/core-csv.h"

#include <csv.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "core/core-text.h"

typedef struct Reader {
    SimCsv *csv;
    GPtrArray *row;    /* being filled */
    uint32_t line;     /* line the current row started on */
    uint32_t newlines; /* newlines consumed so far */
    GError *error;
} Reader;

static void
on_field(void *data, size_t len, void *ctx)
{
    Reader *r = ctx;
    if (r->row == NULL)
        r->row = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(r->row, g_strndup(data ? data : "", len));
}

static void
on_row(int terminator, void *ctx)
{
    (void)terminator;
    Reader *r = ctx;
    GPtrArray *row = r->row;
    r->row = NULL;
    uint32_t line = r->line;
    r->line = r->newlines + 2; /* this row ends on line newlines + 1 */
    if (row == NULL || r->error != NULL) {
        if (row)
            g_ptr_array_unref(row);
        return;
    }
    SimCsv *csv = r->csv;
    if (csv->columns == NULL) {
        csv->columns = row;
        /* The first column named twice is the error (a second would set
         * it over the first). */
        for (guint i = 0; i < row->len && r->error == NULL; i++)
            for (guint j = 0; j < i && r->error == NULL; j++)
                if (g_strcmp0(row->pdata[i], row->pdata[j]) == 0)
                    g_set_error(&r->error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                                "%s:1: column '%s' appears twice", csv->path,
                                (char *)row->pdata[i]);
        return;
    }
    if (row->len != csv->columns->len) {
        g_set_error(&r->error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s:%u: %u fields: expected %u, as many as the header has", csv->path, line,
                    row->len, csv->columns->len);
        g_ptr_array_unref(row);
        return;
    }
    g_ptr_array_add(csv->rows, row);
    g_array_append_val(csv->lines, line);
}

/* libcsv's error in words a person can act on: strict mode refuses a quote
 * inside an unquoted field and text after a closing quote; csv_fini one
 * never closed. */
static void
parse_fail(Reader *r, struct csv_parser *parser, const char *path)
{
    /* A row may have set the error inside the same csv_parse or csv_fini
     * (a field count) before the parser met an error of its own: the first
     * stands. */
    if (r->error != NULL)
        return;
    const char *what = csv_error(parser) == CSV_EPARSE
                           ? "a quote inside an unquoted field, text after a closing quote or a "
                             "quoted field never closed (quote a field that holds quotes, and "
                             "double the quotes inside)"
                           : csv_strerror(csv_error(parser));
    g_set_error(&r->error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%u: %s", path, r->newlines + 1,
                what);
}

struct SimCsvStream {
    SimCsv *csv;
    SimTextStream *text;
    struct csv_parser parser;
    Reader reader;
    bool keep; /* every row (a whole read), else the last */
    bool done;
    SimCsv *table; /* sim_csv_stream_new_table's rows, given from next_row; NULL: text */
    guint next_row;
};

void
sim_csv_stream_free(SimCsvStream *s)
{
    if (s == NULL)
        return;
    csv_free(&s->parser);
    if (s->reader.row)
        g_ptr_array_unref(s->reader.row);
    g_clear_error(&s->reader.error);
    sim_text_stream_free(s->text);
    sim_csv_free(s->csv);
    sim_csv_free(s->table);
    g_free(s);
}

/* Feeds lines until want_rows rows are read (and the header), the text
 * ends or an error. */
static bool
feed(SimCsvStream *s, guint want_rows, GError **error)
{
    Reader *r = &s->reader;
    while (r->error == NULL && !s->done &&
           (s->csv->columns == NULL || s->csv->rows->len < want_rows)) {
        const char *line;
        gsize len;
        GError *failed = NULL;
        if (!sim_text_stream_next(s->text, &line, &len, &failed)) {
            if (failed != NULL) {
                g_propagate_error(error, failed);
                return false;
            }
            s->done = true;
            if (csv_fini(&s->parser, on_field, on_row, r) != 0)
                parse_fail(r, &s->parser, s->csv->path);
            break;
        }
        if (csv_parse(&s->parser, line, len, on_field, on_row, r) != len)
            parse_fail(r, &s->parser, s->csv->path);
        r->newlines += line[len - 1] == '\n';
    }
    if (r->error == NULL && s->csv->columns == NULL)
        g_set_error(&r->error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: empty: expected a header row naming the columns", s->csv->path);
    if (r->error != NULL) {
        g_propagate_error(error, g_error_copy(r->error));
        return false;
    }
    return true;
}

static SimCsvStream *
stream_new(SimTextStream *text, const char *path, GError **error)
{
    SimCsvStream *s = g_new0(SimCsvStream, 1);
    s->text = text;
    s->csv = g_new0(SimCsv, 1);
    s->csv->path = g_strdup(path);
    s->csv->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    s->csv->lines = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    csv_init(&s->parser, CSV_STRICT | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL);
    s->reader = (Reader){.csv = s->csv, .line = 1};
    if (!feed(s, 0, error)) {
        sim_csv_stream_free(s);
        return NULL;
    }
    return s;
}

SimCsvStream *
sim_csv_stream_open(const char *path, GError **error)
{
    SimTextStream *text = sim_text_stream_open(path, "a CSV file", error);
    return text != NULL ? stream_new(text, path, error) : NULL;
}

SimCsvStream *
sim_csv_stream_new_data(const char *data, size_t length, const char *path, GError **error)
{
    return stream_new(sim_text_stream_new_data(path, data, length), path, error);
}

SimCsvStream *
sim_csv_stream_new_table(SimCsv *table)
{
    SimCsvStream *s = g_new0(SimCsvStream, 1);
    s->table = table;
    s->csv = g_new0(SimCsv, 1);
    s->csv->path = g_strdup(table->path);
    s->csv->columns = g_ptr_array_ref(table->columns);
    s->csv->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    s->csv->lines = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    csv_init(&s->parser, CSV_STRICT | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL);
    return s;
}

const SimCsv *
sim_csv_stream_table(const SimCsvStream *s)
{
    return s->csv;
}

bool
sim_csv_stream_next(SimCsvStream *s, GError **error)
{
    SimCsv *csv = s->csv;
    if (!s->keep && csv->rows->len > 0) {
        g_ptr_array_remove_index(csv->rows, 0);
        g_array_remove_index(csv->lines, 0);
    }
    if (s->table != NULL) {
        if (s->next_row >= s->table->rows->len)
            return false;
        g_ptr_array_add(csv->rows, g_ptr_array_ref(s->table->rows->pdata[s->next_row]));
        g_array_append_val(csv->lines, g_array_index(s->table->lines, uint32_t, s->next_row));
        s->next_row++;
        return true;
    }
    /* A row finished with the line before may be waiting already. */
    guint want = s->keep ? csv->rows->len + 1 : 1;
    return feed(s, want, error) && csv->rows->len >= want;
}

/* Every row of a stream, into its table. */
static SimCsv *
read_whole(SimCsvStream *s, GError **error)
{
    if (s == NULL)
        return NULL;
    s->keep = true;
    GError *failed = NULL;
    while (sim_csv_stream_next(s, &failed))
        ;
    SimCsv *csv = NULL;
    if (failed != NULL)
        g_propagate_error(error, failed);
    else
        csv = g_steal_pointer(&s->csv);
    sim_csv_stream_free(s);
    return csv;
}

SimCsv *
sim_csv_read(const char *path, GError **error)
{
    return read_whole(sim_csv_stream_open(path, error), error);
}

SimCsv *
sim_csv_read_data(const char *data, size_t length, const char *path, GError **error)
{
    return read_whole(sim_csv_stream_new_data(data, length, path, error), error);
}

void
sim_csv_free(SimCsv *csv)
{
    if (csv == NULL)
        return;
    g_free(csv->path);
    if (csv->columns)
        g_ptr_array_unref(csv->columns);
    g_ptr_array_unref(csv->rows);
    g_array_unref(csv->lines);
    g_free(csv);
}

int
sim_csv_column(const SimCsv *csv, const char *name)
{
    for (guint i = 0; i < csv->columns->len; i++)
        if (g_strcmp0(csv->columns->pdata[i], name) == 0)
            return (int)i;
    return -1;
}

const char *
sim_csv_field(const SimCsv *csv, guint r, int c)
{
    if (c < 0)
        return "";
    GPtrArray *row = csv->rows->pdata[r];
    return row->pdata[c];
}

/* ---- Writing. ---- */

static void
put_raw(SimCsvWriter *w, const char *text, size_t n)
{
    if (n == 0)
        return; /* an empty field: nothing (text may be NULL) */
    if (w->file != NULL)
        fwrite(text, 1, n, w->file);
    else
        g_string_append_len(w->text, text, (gssize)n);
}

/* The separator before a field, when the row has one already. */
static void
begin_field(SimCsvWriter *w)
{
    g_return_if_fail((w->file == NULL) != (w->text == NULL));
    if (w->in_row)
        put_raw(w, ",", 1);
    w->in_row = true;
}

void
sim_csv_put(SimCsvWriter *w, const char *text)
{
    begin_field(w);
    size_t n = text != NULL ? strlen(text) : 0;
    bool quote = n > 0 && (strpbrk(text, ",\"\r\n") != NULL || text[0] == ' ' || text[0] == '\t' ||
                           text[n - 1] == ' ' || text[n - 1] == '\t');
    if (!quote) {
        put_raw(w, text, n);
    } else if (w->file != NULL) {
        csv_fwrite(w->file, text, n);
    } else {
        size_t at = w->text->len, size = csv_write(NULL, 0, text, n);
        g_string_set_size(w->text, at + size);
        csv_write(w->text->str + at, size, text, n);
    }
}

void
sim_csv_put_line(SimCsvWriter *w, const char *text)
{
    g_autofree char *line = g_strdelimit(g_strdup(text != NULL ? text : ""), "\r\n", ' ');
    sim_csv_put(w, line);
}

void
sim_csv_put_plain(SimCsvWriter *w, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    g_autofree char *text = g_strdup_vprintf(format, args);
    va_end(args);
    g_return_if_fail(strpbrk(text, "\"\r\n") == NULL);
    begin_field(w);
    put_raw(w, text, strlen(text));
}

void
sim_csv_end_row(SimCsvWriter *w)
{
    put_raw(w, "\n", 1);
    w->in_row = false;
}
