/* CSV tables through libcsv's push parser: fields are collected into the
 * current row, rows into the table; quoting rules are libcsv's (RFC 4180,
 * strict mode so a stray quote is an error). The file is read whole and
 * checked as text first (core-text.h), then parsed a line at a time so
 * that every error names its line.
 */
#include "report/report-csv.h"

#include <csv.h>
#include <stdbool.h>
#include <string.h>

#include "core/core-text.h"

typedef struct Reader {
    ReportCsv *csv;
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

static ReportCsv *parse(const char *data, size_t length, const char *path, GError **error);

ReportCsv *
report_csv_read(const char *path, GError **error)
{
    g_autofree char *data = NULL;
    gsize length = 0;
    /* sim_text_read checks the text as it reads it. */
    if (!sim_text_read(path, "a CSV file", &data, &length, error))
        return NULL;
    return parse(data, length, path, error);
}

ReportCsv *
report_csv_read_data(const char *data, size_t length, const char *path, GError **error)
{
    return sim_text_check(path, data, length, error) ? parse(data, length, path, error) : NULL;
}

/* The table of text that passed sim_text_check. */
static ReportCsv *
parse(const char *data, size_t length, const char *path, GError **error)
{
    g_autoptr(ReportCsv) csv = g_new0(ReportCsv, 1);
    csv->path = g_strdup(path);
    csv->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    csv->lines = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    struct csv_parser parser;
    csv_init(&parser, CSV_STRICT | CSV_APPEND_NULL | CSV_EMPTY_IS_NULL);
    Reader r = {.csv = csv, .line = 1};
    /* Fed a line at a time, so that a parse error names its line. */
    for (gsize done = 0; done < length && r.error == NULL;) {
        const char *nl = memchr(data + done, '\n', length - done);
        size_t len = nl ? (size_t)(nl - (data + done)) + 1 : length - done;
        if (csv_parse(&parser, data + done, len, on_field, on_row, &r) != len) {
            parse_fail(&r, &parser, path);
            break;
        }
        r.newlines += nl != NULL;
        done += len;
    }
    if (r.error == NULL && csv_fini(&parser, on_field, on_row, &r) != 0)
        parse_fail(&r, &parser, path);
    csv_free(&parser);
    if (r.row)
        g_ptr_array_unref(r.row);
    if (r.error == NULL && csv->columns == NULL)
        g_set_error(&r.error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: empty: expected a header row naming the columns", path);
    if (r.error != NULL) {
        g_propagate_error(error, r.error);
        return NULL;
    }
    return g_steal_pointer(&csv);
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
