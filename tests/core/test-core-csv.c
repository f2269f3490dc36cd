/* SPDX-License-Identifier: Apache-2.0 */
/* core-csv's stream: rows come one at a time with the line they start
 * on, a malformed row is an error at its line after the rows before it
 * were read, and reading a stream to its end gives the whole read's
 * table. Its writer: plain fields come out as formatted, the others
 * quoted, and what it writes reads back field for field. */
#include <glib/gstdio.h>
#include <string.h>

#include "core-suites.h"
#include "core/core-csv.h"

static const char TABLE[] = "a,b\n"
                            "1,2\n"
                            "\"x\ny\",3\n" /* a quoted line break: one row on lines 3-4 */
                            "4,5\n";

START_TEST(rows_one_at_a_time)
{
    GError *error = NULL;
    g_autoptr(SimCsvStream) s = sim_csv_stream_new_data(TABLE, strlen(TABLE), "t.csv", &error);
    ck_assert_ptr_nonnull(s);
    const SimCsv *t = sim_csv_stream_table(s);
    ck_assert_uint_eq(t->columns->len, 2);
    ck_assert_int_eq(sim_csv_column(t, "b"), 1);
    ck_assert_uint_eq(t->rows->len, 0);
    const char *first[] = {"1", "x\ny", "4"};
    const uint32_t lines[] = {2, 3, 5};
    for (int i = 0; i < 3; i++) {
        ck_assert(sim_csv_stream_next(s, &error));
        ck_assert_uint_eq(t->rows->len, 1); /* the row just read, alone */
        ck_assert_str_eq(sim_csv_field(t, 0, 0), first[i]);
        ck_assert_uint_eq(g_array_index(t->lines, uint32_t, 0), lines[i]);
    }
    ck_assert(!sim_csv_stream_next(s, &error));
    ck_assert_ptr_null(error);
}
END_TEST

START_TEST(error_after_good_rows)
{
    static const char bad[] = "a,b\n1,2\n3,4\n5\n6,7\n";
    GError *error = NULL;
    g_autoptr(SimCsvStream) s = sim_csv_stream_new_data(bad, strlen(bad), "t.csv", &error);
    ck_assert(sim_csv_stream_next(s, &error));
    ck_assert(sim_csv_stream_next(s, &error));
    ck_assert(!sim_csv_stream_next(s, &error));
    ck_assert_str_eq(error->message, "t.csv:4: 1 fields: expected 2, as many as the header has");
    g_clear_error(&error);
    /* The whole read fails with the same message. */
    ck_assert_ptr_null(sim_csv_read_data(bad, strlen(bad), "t.csv", &error));
    ck_assert_str_eq(error->message, "t.csv:4: 1 fields: expected 2, as many as the header has");
    g_error_free(error);
}
END_TEST

START_TEST(whole_read_is_the_stream)
{
    GError *error = NULL;
    g_autoptr(SimCsv) whole = sim_csv_read_data(TABLE, strlen(TABLE), "t.csv", &error);
    ck_assert_ptr_nonnull(whole);
    ck_assert_uint_eq(whole->rows->len, 3);
    ck_assert_str_eq(sim_csv_field(whole, 1, 0), "x\ny");
    ck_assert_str_eq(sim_csv_field(whole, 2, 1), "5");
    ck_assert_uint_eq(g_array_index(whole->lines, uint32_t, 2), 5);
    static const char empty[] = "";
    ck_assert_ptr_null(sim_csv_stream_new_data(empty, 0, "e.csv", &error));
    ck_assert_str_eq(error->message, "e.csv: empty: expected a header row naming the columns");
    g_error_free(error);
}
END_TEST

/* A file of many rows streams through blocks of the reader: every row
 * comes whole, with its line, wherever the blocks cut the text. */
START_TEST(file_across_blocks)
{
    g_autofree char *dir = g_dir_make_tmp("core-csv-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "rows.csv", NULL);
    GString *text = g_string_new("n,label\n");
    const guint n = 20000; /* about 600 KB: several blocks */
    for (guint i = 0; i < n; i++)
        g_string_append_printf(text, "%u,row number %u of the file\n", i, i);
    ck_assert(g_file_set_contents(path, text->str, (gssize)text->len, NULL));
    g_string_free(text, TRUE);
    GError *error = NULL;
    g_autoptr(SimCsvStream) s = sim_csv_stream_open(path, &error);
    ck_assert_ptr_nonnull(s);
    const SimCsv *t = sim_csv_stream_table(s);
    guint seen = 0;
    while (sim_csv_stream_next(s, &error)) {
        g_autofree char *want = g_strdup_printf("row number %u of the file", seen);
        ck_assert_str_eq(sim_csv_field(t, 0, 1), want);
        ck_assert_uint_eq(g_array_index(t->lines, uint32_t, 0), seen + 2);
        seen++;
    }
    ck_assert_ptr_null(error);
    ck_assert_uint_eq(seen, n);
    g_unlink(path);
    g_rmdir(dir);
}
END_TEST

/* Fields a reader could not take as they are, and plain ones around them. */
static const char *const AWKWARD[] = {
    "a,b", "say \"hi\"", "two\nlines", " lead", "trail\t", "", "plain words", "1.2500",
};

/* One row of AWKWARD, then a row of numbers, written by w. */
static void
write_rows(SimCsvWriter *w)
{
    for (guint i = 0; i < G_N_ELEMENTS(AWKWARD); i++)
        sim_csv_put(w, AWKWARD[i]);
    sim_csv_end_row(w);
    sim_csv_put_plain(w, "%u,%.3f", 7u, 0.5);
    sim_csv_put(w, NULL);
    sim_csv_put(w, "50%, half");
    sim_csv_put_line(w, "x\r\ny");
    sim_csv_put_plain(w, ",");
    sim_csv_put(w, "z");
    sim_csv_end_row(w);
}

static const char WRITTEN[] = "\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\" lead\",\"trail\t\",,"
                              "plain words,1.2500\n"
                              "7,0.500,,\"50%, half\",x  y,,,z\n";

START_TEST(written_fields_quote_only_when_needed)
{
    g_autoptr(GString) text = g_string_new(NULL);
    SimCsvWriter w = {.text = text};
    write_rows(&w);
    ck_assert_str_eq(text->str, WRITTEN);
}
END_TEST

START_TEST(written_fields_read_back)
{
    g_autoptr(GString) text = g_string_new(NULL);
    SimCsvWriter w = {.text = text};
    write_rows(&w);
    GError *error = NULL;
    g_autoptr(SimCsv) t = sim_csv_read_data(text->str, text->len, "w.csv", &error);
    ck_assert_msg(t != NULL, "%s", error ? error->message : "");
    ck_assert_uint_eq(t->columns->len, G_N_ELEMENTS(AWKWARD));
    for (guint i = 0; i < G_N_ELEMENTS(AWKWARD); i++)
        ck_assert_str_eq(t->columns->pdata[i], AWKWARD[i]);
    static const char *const second[] = {"7", "0.500", "", "50%, half", "x  y", "", "", "z"};
    ck_assert_uint_eq(t->rows->len, 1);
    for (guint i = 0; i < G_N_ELEMENTS(second); i++)
        ck_assert_str_eq(sim_csv_field(t, 0, (int)i), second[i]);
}
END_TEST

/* A writer on a file writes the bytes a writer on text appends. */
START_TEST(file_writer_writes_the_same_bytes)
{
    g_autofree char *dir = g_dir_make_tmp("core-csv-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "w.csv", NULL);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    SimCsvWriter w = {.file = f};
    write_rows(&w);
    ck_assert_int_eq(fclose(f), 0);
    g_autofree char *got = NULL;
    ck_assert(g_file_get_contents(path, &got, NULL, NULL));
    ck_assert_str_eq(got, WRITTEN);
    g_unlink(path);
    g_rmdir(dir);
}
END_TEST

Suite *
core_csv_suite(void)
{
    Suite *s = suite_create("core-csv");
    TCase *tc = tcase_create("stream");
    tcase_add_test(tc, rows_one_at_a_time);
    tcase_add_test(tc, error_after_good_rows);
    tcase_add_test(tc, whole_read_is_the_stream);
    tcase_add_test(tc, file_across_blocks);
    suite_add_tcase(s, tc);
    TCase *write = tcase_create("write");
    tcase_add_test(write, written_fields_quote_only_when_needed);
    tcase_add_test(write, written_fields_read_back);
    tcase_add_test(write, file_writer_writes_the_same_bytes);
    suite_add_tcase(s, write);
    return s;
}
