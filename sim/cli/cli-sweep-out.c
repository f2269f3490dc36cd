/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim sweep's output folder (cli-sweep.h): sweep.ini names the sweep a
 * folder holds, .lock keeps a second sweep out, points/ journals each
 * finished point as its own one-row file, and results.csv gathers the rows
 * in point order at the end.
 *
 * Crash safety rests on rename(2): every file is written to a temporary
 * beside it (a name starting with '.'), flushed to disk and renamed into
 * place, so a reader finds a whole file or none, whenever the writer was
 * killed. Temporaries a killed run left behind are removed when the folder
 * is opened again, under the lock.
 */
#include "cli/cli-sweep.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/core-output.h"
#include "hw/hw-keys.h"

struct CliSweepOut {
    char *dir;
    char *manifest_path; /* DIR/sweep.ini */
    char *points_dir;    /* DIR/points */
    char *results_path;  /* DIR/results.csv */
    uint32_t n_points;
    uint8_t *found; /* per point: a whole row was on disk when the folder was opened */
    uint32_t n_found;
    int lock_fd;
};

static bool
fail_errno(GError **error, int saved, const char *path, const char *what)
{
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved), "%s: %s: %s", path, what,
                g_strerror(saved));
    return false;
}

static bool
atomic_write(const char *path, const char *text, GError **error)
{
    return sim_output_write_all(path, text, strlen(text), error);
}

/* What sweep.ini holds: enough to tell whether a folder holds this sweep
 * (the base scenario's text by its hash, the axes and their values). */
static char *
manifest_text(const CliSweep *sweep)
{
    GString *m = g_string_new("# nvlsim sweep: the sweep this folder holds. A rerun with the same "
                              "--out resumes\n# it, and only it: the same base text, the same "
                              "axes and values.\n[sweep]\n");
    g_autofree char *sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, sweep->base_text, -1);
    g_string_append_printf(m, "base = %s\nbase_sha256 = %s\n[axes]\n", sweep->base_name, sha);
    for (guint a = 0; a < sweep->axes->len; a++) {
        const CliSweepAxis *axis = g_ptr_array_index(sweep->axes, a);
        g_autofree char *values = g_strjoinv(", ", axis->values);
        g_string_append_printf(m, "%s = %s\n", axis->key, values);
    }
    return g_string_free(m, FALSE);
}

/* An error naming the first line where the folder's sweep.ini and this
 * sweep's differ. */
static bool
fail_other_sweep(GError **error, const CliSweepOut *out, const CliSweep *sweep, const char *old,
                 const char *new)
{
    g_auto(GStrv) a = g_strsplit(old, "\n", -1);
    g_auto(GStrv) b = g_strsplit(new, "\n", -1);
    guint i = 0;
    while (a[i] != NULL && b[i] != NULL && strcmp(a[i], b[i]) == 0)
        i++;
    const char *there = a[i] != NULL ? a[i] : "(end of file)";
    const char *here = b[i] != NULL ? b[i] : "(end of file)";
    const char *what = g_str_has_prefix(there, "base") || g_str_has_prefix(here, "base")
                           ? "a sweep of another base scenario"
                           : "another sweep";
    g_set_error(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID,
                "%s: the folder holds %s ('%s' there, '%s' for %s); its results are left as they "
                "are: give another --out, or remove the folder to start over",
                out->manifest_path, what, there, here, sweep->path);
    return false;
}

/* Whether dir holds anything but temporaries (names starting with '.'). */
static bool
check_empty(const char *dir, GError **error)
{
    GError *local = NULL;
    g_autoptr(GDir) d = g_dir_open(dir, 0, &local);
    if (d == NULL) {
        g_set_error(error, G_FILE_ERROR, local->code, "%s", local->message);
        g_error_free(local);
        return false;
    }
    for (const char *name; (name = g_dir_read_name(d)) != NULL;)
        if (name[0] != '.') {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                        "%s: the folder holds %s but no sweep.ini: not a sweep's output folder; "
                        "give a new or empty folder",
                        dir, name);
            return false;
        }
    return true;
}

/* Checks that the folder holds this sweep or none (then it must be empty);
 * *fresh tells which. Reads only. */
static bool
check_manifest(const CliSweepOut *out, const CliSweep *sweep, const char *manifest, bool *fresh,
               GError **error)
{
    g_autofree char *old = NULL;
    GError *local = NULL;
    if (!g_file_get_contents(out->manifest_path, &old, NULL, &local)) {
        bool absent = g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT);
        if (!absent)
            g_propagate_error(error, local);
        else
            g_error_free(local);
        *fresh = true;
        return absent && check_empty(out->dir, error);
    }
    *fresh = false;
    return strcmp(old, manifest) == 0 || fail_other_sweep(error, out, sweep, old, manifest);
}

static bool
make_folder(const char *dir, GError **error)
{
    if (g_mkdir_with_parents(dir, 0777) != 0)
        return fail_errno(error, errno, dir, "cannot create the folder");
    return true;
}

/* Takes DIR/.lock; held until the folder is freed (or the process dies,
 * even by SIGKILL: the kernel drops the lock). */
static bool
lock_folder(CliSweepOut *out, GError **error)
{
    g_autofree char *path = g_build_filename(out->dir, ".lock", NULL);
    out->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (out->lock_fd < 0)
        return fail_errno(error, errno, out->dir, "cannot write");
    if (flock(out->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK)
            return fail_errno(error, errno, path, "cannot lock");
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_EXIST,
                    "%s: another nvlsim sweep is writing to this folder", out->dir);
        return false;
    }
    return true;
}

static char *
point_path(const CliSweepOut *out, uint32_t index)
{
    g_autofree char *name = g_strdup_printf("%06u.csv", index);
    return g_build_filename(out->points_dir, name, NULL);
}

/* Whether text is point index's row: "INDEX,ok," or "INDEX,invalid,", one
 * line ending in '\n'. */
static bool
row_is_whole(const char *text, size_t len, uint32_t index)
{
    char prefix[32];
    int n = g_snprintf(prefix, sizeof prefix, "%u,", index);
    if (len <= (size_t)n || strncmp(text, prefix, (size_t)n) != 0 || text[len - 1] != '\n' ||
        memchr(text, '\n', len - 1) != NULL || memchr(text, '\0', len) != NULL)
        return false;
    return g_str_has_prefix(text + n, "ok,") || g_str_has_prefix(text + n, "invalid,");
}

/* The row of point index read from its file; NULL if there is no whole
 * row. */
static char *
read_row(const CliSweepOut *out, uint32_t index)
{
    g_autofree char *path = point_path(out, index);
    char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &text, &len, NULL))
        return NULL;
    if (!row_is_whole(text, len, index)) {
        g_free(text);
        return NULL;
    }
    return text;
}

/* The index a journal file's name stands for, or false for another name. */
static bool
parse_point_name(const char *name, uint32_t n_points, uint32_t *index)
{
    guint64 value;
    size_t n_digits = strspn(name, "0123456789");
    if (n_digits < 6 || strcmp(name + n_digits, ".csv") != 0)
        return false;
    g_autofree char *digits = g_strndup(name, n_digits);
    if (!g_ascii_string_to_unsigned(digits, 10, 0, n_points - 1, &value, NULL))
        return false;
    g_autofree char *canonical = g_strdup_printf("%06u.csv", (uint32_t)value);
    *index = (uint32_t)value;
    return strcmp(name, canonical) == 0;
}

/* Creates points/ or reads which points it holds whole; removes the
 * temporaries of a killed run. */
static bool
scan_points(CliSweepOut *out, GError **error)
{
    if (g_mkdir(out->points_dir, 0777) != 0 && errno != EEXIST)
        return fail_errno(error, errno, out->points_dir, "cannot create the folder");
    GError *local = NULL;
    g_autoptr(GDir) d = g_dir_open(out->points_dir, 0, &local);
    if (d == NULL) {
        g_set_error(error, G_FILE_ERROR, local->code, "%s", local->message);
        g_error_free(local);
        return false;
    }
    for (const char *name; (name = g_dir_read_name(d)) != NULL;) {
        uint32_t index;
        if (name[0] == '.') {
            g_autofree char *path = g_build_filename(out->points_dir, name, NULL);
            g_unlink(path);
        } else if (parse_point_name(name, out->n_points, &index) && !out->found[index]) {
            g_autofree char *row = read_row(out, index);
            if (row != NULL) {
                out->found[index] = 1;
                out->n_found++;
            }
        }
    }
    return true;
}

CliSweepOut *
cli_sweep_out_open(const char *dir, const CliSweep *sweep, GError **error)
{
    g_autoptr(CliSweepOut) out = g_new0(CliSweepOut, 1);
    out->lock_fd = -1;
    out->dir = g_strdup(dir);
    out->manifest_path = g_build_filename(dir, "sweep.ini", NULL);
    out->points_dir = g_build_filename(dir, "points", NULL);
    out->results_path = g_build_filename(dir, "results.csv", NULL);
    out->n_points = sweep->n_points;
    out->found = g_new0(uint8_t, sweep->n_points);
    g_autofree char *manifest = manifest_text(sweep);
    bool fresh = true;
    /* Check before writing anything, then again under the lock: another
     * sweep may have started here between the two. */
    if (g_file_test(dir, G_FILE_TEST_EXISTS)) {
        if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR, "%s: not a folder", dir);
            return NULL;
        }
        if (!check_manifest(out, sweep, manifest, &fresh, error))
            return NULL;
    }
    if (!make_folder(dir, error) || !lock_folder(out, error) ||
        !check_manifest(out, sweep, manifest, &fresh, error))
        return NULL;
    if (fresh && !atomic_write(out->manifest_path, manifest, error))
        return NULL;
    if (!scan_points(out, error))
        return NULL;
    return g_steal_pointer(&out);
}

void
cli_sweep_out_free(CliSweepOut *out)
{
    if (out == NULL)
        return;
    if (out->lock_fd >= 0)
        close(out->lock_fd);
    g_free(out->dir);
    g_free(out->manifest_path);
    g_free(out->points_dir);
    g_free(out->results_path);
    g_free(out->found);
    g_free(out);
}

bool
cli_sweep_out_has(const CliSweepOut *out, uint32_t index)
{
    g_return_val_if_fail(index < out->n_points, false);
    return out->found[index] != 0;
}

uint32_t
cli_sweep_out_n_found(const CliSweepOut *out)
{
    return out->n_found;
}

const char *
cli_sweep_out_results_path(const CliSweepOut *out)
{
    return out->results_path;
}

bool
cli_sweep_out_put(CliSweepOut *out, uint32_t index, const char *row, GError **error)
{
    g_return_val_if_fail(index < out->n_points, false);
    g_return_val_if_fail(row_is_whole(row, strlen(row), index), false);
    g_autofree char *path = point_path(out, index);
    return atomic_write(path, row, error);
}

bool
cli_sweep_out_finish(CliSweepOut *out, const char *header, uint32_t *n_ok, GError **error)
{
    char *tmp = NULL;
    FILE *f = sim_output_open(out->results_path, &tmp, error);
    if (f == NULL)
        return false;
    fprintf(f, "%s\n", header);
    *n_ok = 0;
    for (uint32_t i = 0; i < out->n_points; i++) {
        g_autofree char *row = read_row(out, i);
        if (row == NULL) {
            g_autofree char *path = point_path(out, i);
            sim_output_abandon(f, tmp);
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT, "%s: no whole row of point %u",
                        path, i);
            return false;
        }
        const char *status = strchr(row, ',') + 1;
        *n_ok += g_str_has_prefix(status, "ok,");
        fputs(row, f);
    }
    return sim_output_commit(f, tmp, out->results_path, error);
}
