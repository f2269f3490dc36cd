/* CSV tables through libcsv's push parser: fields are collected into the
 * current row, rows into the table; quoting rules are libcsv's (RFC 4180,
 * strict mode so a stray quote is an error). The file is read in blocks,
 * so very long lines cost memory for that line only.
 */
#include "report/report-csv.h"

#include <csv.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

typedef struct Reader {
    ReportCsv *csv;
    struct csv_parser parser;
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
    ReportCsv *csv = r->csv;
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

/* Starts the table of the file at path. */
static void
reader_init(Reader *r, const char *path)
{
    *r = (Reader){.csv = g_new0(ReportCsv, 1), .line = 1};
    r->csv->path = g_strdup(path);
    r->csv->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    r->csv->lines = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    csv_init(&r->parser, CSV_STRICT | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL);
}

/* Parses the next n bytes of the file, a line at a time so that errors can
 * name their line. */
static void
reader_feed(Reader *r, const char *buf, size_t n)
{
    size_t done = 0;
    while (done < n && r->error == NULL) {
        const char *nl = memchr(buf + done, '\n', n - done);
        size_t len = nl ? (size_t)(nl - (buf + done)) + 1 : n - done;
        /* A row may have set the error inside this call (a field count)
         * before the parser met an error of its own: the first stands. */
        if (csv_parse(&r->parser, buf + done, len, on_field, on_row, r) != len) {
            if (r->error == NULL)
                g_set_error(&r->error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%u: %s", r->csv->path,
                            r->newlines + 1, csv_strerror(csv_error(&r->parser)));
            break;
        }
        r->newlines += nl != NULL;
        done += len;
    }
}

/* Ends the file: the table, or NULL and the first error met. */
static ReportCsv *
reader_end(Reader *r, GError **error)
{
    g_autoptr(ReportCsv) csv = r->csv;
    const char *path = csv->path;
    if (r->error == NULL && csv_fini(&r->parser, on_field, on_row, r) != 0 && r->error == NULL)
        g_set_error(&r->error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%u: %s", path, r->newlines + 1,
                    csv_strerror(csv_error(&r->parser)));
    csv_free(&r->parser);
    if (r->row)
        g_ptr_array_unref(r->row);
    if (r->error == NULL && csv->columns == NULL)
        g_set_error(&r->error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: empty: expected a header row naming the columns", path);
    if (r->error != NULL) {
        g_propagate_error(error, r->error);
        return NULL;
    }
    return g_steal_pointer(&csv);
}

ReportCsv *
report_csv_read(const char *path, GError **error)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        int saved = errno;
        g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved), "%s: %s", path,
                    g_strerror(saved));
        return NULL;
    }
    Reader r;
    reader_init(&r, path);
    char buf[65536];
    size_t n;
    while (r.error == NULL && (n = fread(buf, 1, sizeof buf, f)) > 0)
        reader_feed(&r, buf, n);
    if (r.error == NULL && ferror(f))
        g_set_error(&r.error, G_FILE_ERROR, G_FILE_ERROR_IO, "%s: read error", path);
    fclose(f);
    return reader_end(&r, error);
}

ReportCsv *
report_csv_read_data(const char *data, size_t length, const char *path, GError **error)
{
    g_return_val_if_fail(data != NULL && path != NULL, NULL);
    Reader r;
    reader_init(&r, path);
    reader_feed(&r, data, length);
    return reader_end(&r, error);
}

void
report_csv_free(ReportCsv *csv)
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
report_csv_column(const ReportCsv *csv, const char *name)
{
    for (guint i = 0; i < csv->columns->len; i++)
        if (g_strcmp0(csv->columns->pdata[i], name) == 0)
            return (int)i;
    return -1;
}

const char *
report_csv_field(const ReportCsv *csv, guint r, int c)
{
    if (c < 0)
        return "";
    GPtrArray *row = csv->rows->pdata[r];
    return row->pdata[c];
}

void
report_csv_append_field(GString *out, const char *text)
{
    size_t n = strlen(text);
    bool quote = n > 0 && (strpbrk(text, ",\"\r\n") != NULL || text[0] == ' ' || text[0] == '\t' ||
                           text[n - 1] == ' ' || text[n - 1] == '\t');
    if (!quote) {
        g_string_append(out, text);
        return;
    }
    g_string_append_c(out, '"');
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '"')
            g_string_append_c(out, '"');
        g_string_append_c(out, *p);
    }
    g_string_append_c(out, '"');
}
