/* Atomic output files (see core-output.h): mkstemp's unique name with an
 * ordinary file's mode, fsync before the rename so that a crash leaves the
 * old file or the new one, never part of it. */
#include "core/core-output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

static bool
fail(const char *path, int saved, GError **error)
{
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved), "%s: cannot write: %s", path,
                g_strerror(saved));
    return false;
}

int
sim_output_temp(const char *path, const char *suffix, char **tmp_path, GError **error)
{
    g_autofree char *dir = g_path_get_dirname(path);
    g_autofree char *base = g_path_get_basename(path);
    g_autofree char *templ = g_strdup_printf("%s/.%s.XXXXXX%s", dir, base, suffix ? suffix : "");
    int fd = g_mkstemp_full(templ, O_WRONLY | O_CLOEXEC, 0666);
    if (fd < 0) {
        fail(path, errno, error);
        return -1;
    }
    *tmp_path = g_steal_pointer(&templ);
    return fd;
}

FILE *
sim_output_open(const char *path, char **tmp_path, GError **error)
{
    if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
        fail(path, EISDIR, error);
        return NULL;
    }
    int fd = sim_output_temp(path, NULL, tmp_path, error);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        int saved = errno;
        close(fd);
        g_unlink(*tmp_path);
        g_clear_pointer(tmp_path, g_free);
        fail(path, saved, error);
    }
    return f;
}

bool
sim_output_rename(const char *tmp_path, const char *path, GError **error)
{
    if (g_rename(tmp_path, path) == 0)
        return true;
    int saved = errno;
    g_unlink(tmp_path);
    return fail(path, saved, error);
}

bool
sim_output_commit(FILE *f, char *tmp_path, const char *path, GError **error)
{
    g_autofree char *tmp = tmp_path;
    int saved = 0;
    if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0)
        saved = errno != 0 ? errno : EIO;
    if (fclose(f) != 0 && saved == 0)
        saved = errno;
    if (saved == 0)
        return sim_output_rename(tmp, path, error);
    g_unlink(tmp);
    return fail(path, saved, error);
}

void
sim_output_abandon(FILE *f, char *tmp_path)
{
    fclose(f);
    g_unlink(tmp_path);
    g_free(tmp_path);
}
