/* SPDX-License-Identifier: Apache-2.0 */
/* sim_text_check, sim_text_read, the line stream and sim_text_excerpt: the
 * line at fault is named (the stream's as the whole text's), a folder is
 * not read as a file, excerpts are safe to print. */
#include <glib/gstdio.h>
#include <string.h>

#include "core/core-text.h"
#include "core-suites.h"

static const struct {
    const char *name;
    const char *data;
    gsize length;      /* 0: strlen(data) */
    const char *error; /* NULL: the text passes */
} checks[] = {
    {"empty text passes", "", 0, NULL},
    {"lines of UTF-8 pass", "[gpu]\nname = H100 \xc2\xb5\n", 0, NULL},
    {"no final newline passes", "a = 1\nb = 2", 0, NULL},
    {"a NUL byte names its line", "a = 1\nb = \0 2\n", 12, "t:2: not text"},
    {"invalid UTF-8 names its line", "a = 1\nb = 2\nc = \xff\n", 0, "t:3: not text"},
    {"a cut UTF-8 sequence", "a = \xc2", 0, "t:1: not text"},
};

START_TEST(check_lines)
{
    gsize length = checks[_i].length ? checks[_i].length : strlen(checks[_i].data);
    GError *error = NULL;
    bool ok = sim_text_check("t", checks[_i].data, length, &error);
    if (checks[_i].error == NULL) {
        ck_assert_msg(ok && error == NULL, "%s: %s", checks[_i].name, error ? error->message : "");
    } else {
        ck_assert_msg(!ok && error != NULL && g_str_has_prefix(error->message, checks[_i].error),
                      "%s: got '%s', expected '%s...'", checks[_i].name,
                      error ? error->message : "(none)", checks[_i].error);
        g_error_free(error);
    }
}
END_TEST

/* The stream finds what sim_text_check finds, with the same message, and
 * gives every line of a text that passes. */
START_TEST(stream_lines)
{
    gsize length = checks[_i].length ? checks[_i].length : strlen(checks[_i].data);
    g_autoptr(SimTextStream) s = sim_text_stream_new_data("t", checks[_i].data, length);
    GError *error = NULL;
    GString *back = g_string_new(NULL);
    const char *line;
    gsize n;
    while (sim_text_stream_next(s, &line, &n, &error))
        g_string_append_len(back, line, (gssize)n);
    if (checks[_i].error == NULL) {
        ck_assert_msg(error == NULL, "%s: %s", checks[_i].name, error ? error->message : "");
        ck_assert(back->len == length && memcmp(back->str, checks[_i].data, length) == 0);
    } else {
        ck_assert_msg(error != NULL && g_str_has_prefix(error->message, checks[_i].error),
                      "%s: got '%s', expected '%s...'", checks[_i].name,
                      error ? error->message : "(none)", checks[_i].error);
        g_error_free(error);
    }
    g_string_free(back, TRUE);
}
END_TEST

/* A file streams in blocks: a NUL byte far into it names its line, found
 * without the lines after it; an overlong line is refused as it grows. */
START_TEST(stream_file_errors)
{
    g_autofree char *dir = g_dir_make_tmp("core-text-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "f.csv", NULL);
    GString *text = g_string_new(NULL);
    for (int i = 0; i < 10000; i++)
        g_string_append(text, "a line of text, about forty bytes long\n");
    g_string_append_len(text, "bad \0 byte\n", 11);
    ck_assert(g_file_set_contents(path, text->str, (gssize)text->len, NULL));
    g_autoptr(SimTextStream) s = sim_text_stream_open(path, "a CSV file", NULL);
    const char *line;
    gsize n;
    GError *error = NULL;
    unsigned good = 0;
    while (sim_text_stream_next(s, &line, &n, &error))
        good++;
    ck_assert_uint_eq(good, 10000);
    g_autofree char *want = g_strdup_printf("%s:10001: not text (a NUL byte or invalid UTF-8)", path);
    ck_assert_str_eq(error->message, want);
    g_clear_error(&error);
    g_string_truncate(text, 0);
    g_string_append(text, "short\n");
    for (int i = 0; i < 3 * SIM_TEXT_MAX_LINE_BYTES; i++)
        g_string_append_c(text, 'x');
    g_string_append(text, "\nafter\n");
    ck_assert(g_file_set_contents(path, text->str, (gssize)text->len, NULL));
    g_autoptr(SimTextStream) t = sim_text_stream_open(path, "a CSV file", NULL);
    ck_assert(sim_text_stream_next(t, &line, &n, &error));
    ck_assert(!sim_text_stream_next(t, &line, &n, &error));
    ck_assert_msg(strstr(error->message, ":2: a line of more than 65536 bytes") != NULL, "%s",
                  error->message);
    g_error_free(error);
    g_string_free(text, TRUE);
    g_unlink(path);
    g_rmdir(dir);
}
END_TEST

START_TEST(long_line)
{
    gsize n = SIM_TEXT_MAX_LINE_BYTES + 1;
    char *data = g_malloc(n + 3);
    memcpy(data, "a\n", 2);
    memset(data + 2, 'x', n);
    GError *error = NULL;
    ck_assert(!sim_text_check("t", data, n + 2, &error));
    ck_assert_msg(strstr(error->message, "t:2: a line of 65537 bytes") != NULL, "%s",
                  error->message);
    g_error_free(error);
    ck_assert(sim_text_check("t", data, n + 1, NULL)); /* 65536 bytes: the most allowed */
    g_free(data);
}
END_TEST

START_TEST(read_files)
{
    g_autofree char *dir = g_dir_make_tmp("core-text-XXXXXX", NULL);
    g_autofree char *file = g_build_filename(dir, "f.csv", NULL);
    g_autofree char *missing = g_build_filename(dir, "missing.csv", NULL);
    g_autofree char *through = g_build_filename(file, "x.csv", NULL);
    ck_assert(g_file_set_contents(file, "a,b\n1,2\n", -1, NULL));
    char *text = NULL;
    gsize length = 0;
    ck_assert(sim_text_read(file, "a CSV file", &text, &length, NULL));
    ck_assert_str_eq(text, "a,b\n1,2\n");
    ck_assert_uint_eq(length, 8);
    g_free(text);
    const char *paths[] = {dir, missing, through};
    const char *expect[] = {": is a folder: expected a CSV file", ": No such file or directory",
                            ": Not a directory"};
    for (int i = 0; i < 3; i++) {
        GError *error = NULL;
        ck_assert(!sim_text_read(paths[i], "a CSV file", &text, &length, &error));
        g_autofree char *want = g_strconcat(paths[i], expect[i], NULL);
        ck_assert_str_eq(error->message, want);
        g_error_free(error);
    }
    g_unlink(file);
    g_rmdir(dir);
}
END_TEST

START_TEST(excerpts)
{
    g_autofree char *cut = sim_text_excerpt("\xc2\xb5\xc2\xb5\xc2\xb5x", 2);
    ck_assert_str_eq(cut, "\xc2\xb5\xc2\xb5\xe2\x80\xa6");
    g_autofree char *safe = sim_text_excerpt("a\tb\x1b[0m", 40);
    ck_assert_str_eq(safe, "a?b?[0m");
}
END_TEST

Suite *
core_text_suite(void)
{
    Suite *s = suite_create("core-text");
    TCase *tc = tcase_create("text");
    tcase_add_loop_test(tc, check_lines, 0, sizeof checks / sizeof checks[0]);
    tcase_add_loop_test(tc, stream_lines, 0, sizeof checks / sizeof checks[0]);
    tcase_add_test(tc, stream_file_errors);
    tcase_add_test(tc, long_line);
    tcase_add_test(tc, read_files);
    tcase_add_test(tc, excerpts);
    suite_add_tcase(s, tc);
    return s;
}
