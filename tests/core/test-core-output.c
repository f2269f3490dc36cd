/* SPDX-License-Identifier: Apache-2.0 */
/* Atomic output files: written to a temporary beside the path, renamed
 * into place with an ordinary file's mode; a folder or a missing folder is
 * an error naming the path, and nothing is left behind; a signal removes
 * the temporaries still open, in every thread, and ends the process by
 * that signal, leaving finished outputs whole. */
#include <check.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* The names in dir, sorted, joined by spaces. */
static char *
listing(const char *dir)
{
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;)
        g_ptr_array_add(names, g_strdup(name));
    g_ptr_array_sort(names, (GCompareFunc)g_strcmp0);
    g_ptr_array_add(names, NULL);
    return g_strjoinv(" ", (char **)names->pdata);
}

static void
remove_all(const char *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;) {
        g_autofree char *path = g_build_filename(dir, name, NULL);
        g_unlink(path);
    }
    g_rmdir(dir);
}

/* Writes outputs dir/tN-K.csv over and over until the process ends. */
static gpointer
write_forever(gpointer data)
{
    const char *dir = data;
    static int n_threads;
    int t = g_atomic_int_add(&n_threads, 1);
    for (unsigned k = 0;; k = (k + 1) % 4) {
        g_autofree char *name = g_strdup_printf("t%d-%u.csv", t, k);
        g_autofree char *path = g_build_filename(dir, name, NULL);
        char *tmp = NULL;
        FILE *f = sim_output_open(path, &tmp, NULL);
        if (f == NULL)
            continue;
        fputs("a,b\n1,2\n", f);
        sim_output_commit(f, tmp, path, NULL);
    }
    return NULL;
}

/* A child that catches the signals: case 0 has one output open and one
 * committed when it raises SIGTERM; case 1 has four threads writing
 * outputs as fast as they can when SIGINT comes from outside; case 2
 * started with SIGHUP ignored, which it keeps. The committed outputs are
 * whole, and no temporary is left. */
START_TEST(signal_removes_temporaries)
{
    g_autofree char *dir = g_dir_make_tmp("core-output-XXXXXX", NULL);
    g_autofree char *done = g_build_filename(dir, "done.csv", NULL);
    g_autofree char *open_path = g_build_filename(dir, "open.csv", NULL);
    int sig = (int[]){SIGTERM, SIGINT, SIGHUP}[_i];
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (_i == 2)
            signal(SIGHUP, SIG_IGN);
        sim_output_catch_signals();
        if (_i == 1) {
            for (int t = 0; t < 4; t++)
                g_thread_unref(g_thread_new("writer", write_forever, dir));
            pause();
        }
        char *tmp = NULL;
        FILE *f = sim_output_open(done, &tmp, NULL);
        fputs("whole\n", f);
        if (!sim_output_commit(f, tmp, done, NULL))
            _exit(3);
        f = sim_output_open(open_path, &tmp, NULL);
        fputs("part", f);
        fflush(f);
        raise(sig);
        _exit(_i == 2 ? 0 : 4);
    }
    if (_i == 1) {
        g_usleep(200000);
        kill(pid, sig);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    g_autofree char *names = listing(dir);
    if (_i == 2) {
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "case 2: status %d",
                      status);
    } else {
        ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig,
                      "case %d: status %d, not killed by signal %d", _i, status, sig);
        ck_assert_msg(names[0] != '.' && strstr(names, " .") == NULL,
                      "case %d: a temporary is left: %s", _i, names);
    }
    if (_i == 0)
        ck_assert_str_eq(names, "done.csv");
    if (_i == 1) {
        /* Every output there is whole. */
        g_auto(GStrv) files = g_strsplit(names, " ", -1);
        for (char **name = files; *name != NULL && **name != '\0'; name++) {
            g_autofree char *path = g_build_filename(dir, *name, NULL);
            g_autofree char *text = NULL;
            ck_assert(g_file_get_contents(path, &text, NULL, NULL));
            ck_assert_msg(strcmp(text, "a,b\n1,2\n") == 0, "%s: '%s'", *name, text);
        }
    }
    remove_all(dir);
}
END_TEST

Suite *
core_output_suite(void)
{
    Suite *s = suite_create("core-output");
    TCase *tc = tcase_create("output");
    tcase_add_test(tc, output_is_atomic);
    tcase_add_test(tc, folder_refused_abandon_leaves_nothing);
    tcase_add_loop_test(tc, signal_removes_temporaries, 0, 3);
    suite_add_tcase(s, tc);
    return s;
}
