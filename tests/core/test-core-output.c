/* Atomic output files: written to a temporary beside the path, renamed
 * into place with an ordinary file's mode; a folder or a missing folder is
 * an error naming the path, and nothing is left behind. */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core-suites.h"
#include "core/core-output.h"

/* An output appears whole: nothing at path until the commit, then exactly
 * what was written, with the umask's mode, and no temporary left; an
 * unwritable directory is an error naming the path. */
START_TEST(output_is_atomic)
{
    g_autofree char *dir = g_dir_make_tmp("core-output-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "rows.csv", NULL);
    char *tmp = NULL; /* taken by sim_output_commit */
    g_autoptr(GError) error = NULL;
    mode_t old = umask(022);
    FILE *f = sim_output_open(path, &tmp, &error);
    umask(old);
    ck_assert_msg(f != NULL, "%s", error ? error->message : "");
    fputs("a,b\n1,2\n", f);
    ck_assert(!g_file_test(path, G_FILE_TEST_EXISTS));
    g_autofree char *tmp_name = g_strdup(tmp);
    ck_assert(sim_output_commit(f, tmp, path, &error));
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(path, &text, NULL, NULL));
    ck_assert_str_eq(text, "a,b\n1,2\n");
    GStatBuf st;
    ck_assert_int_eq(g_stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0644);
    ck_assert(!g_file_test(tmp_name, G_FILE_TEST_EXISTS));
    g_unlink(path);
    ck_assert_int_eq(g_rmdir(dir), 0); /* nothing else was left in it */

    g_autofree char *nowhere = g_build_filename(dir, "gone", "rows.csv", NULL);
    g_autofree char *tmp2 = NULL;
    ck_assert_ptr_null(sim_output_open(nowhere, &tmp2, &error));
    ck_assert_ptr_null(tmp2);
    ck_assert_msg(strstr(error->message, nowhere) != NULL, "%s", error->message);
}
END_TEST

/* A folder at the path is refused before anything is written; an
 * abandoned output leaves nothing. */
START_TEST(folder_refused_abandon_leaves_nothing)
{
    g_autofree char *dir = g_dir_make_tmp("core-output-XXXXXX", NULL);
    g_autoptr(GError) error = NULL;
    char *tmp = NULL;
    ck_assert_ptr_null(sim_output_open(dir, &tmp, &error));
    ck_assert_msg(strstr(error->message, ": cannot write: ") != NULL, "%s", error->message);
    g_autofree char *path = g_build_filename(dir, "x.csv", NULL);
    FILE *f = sim_output_open(path, &tmp, NULL);
    ck_assert_ptr_nonnull(f);
    sim_output_abandon(f, tmp);
    ck_assert_int_eq(g_rmdir(dir), 0);
}
END_TEST

Suite *
core_output_suite(void)
{
    Suite *s = suite_create("core-output");
    TCase *tc = tcase_create("output");
    tcase_add_test(tc, output_is_atomic);
    tcase_add_test(tc, folder_refused_abandon_leaves_nothing);
    suite_add_tcase(s, tc);
    return s;
}
