/* Atomic output files (see core-output.h): mkstemp's unique name with an
 * ordinary file's mode, fsync before the rename so that a crash leaves the
 * old file or the new one, never part of it; "-" and what is not a
 * regular file are written in place. */
#include "core/core-output.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
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
    *tmp_path = NULL;
    if (strcmp(path, "-") == 0)
        return stdout;
    GStatBuf st;
    bool exists = g_lstat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        fail(path, EISDIR, error);
        return NULL;
    }
    /* What is not a regular file (a device such as /dev/null, a FIFO, a
     * link) is written where it is: a rename would replace it. */
    if (exists && !S_ISREG(st.st_mode)) {
        FILE *f = g_fopen(path, "w");
        if (f == NULL)
            fail(path, errno, error);
        return f;
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
    errno = 0;
    if (fflush(f) != 0 || ferror(f) || (tmp != NULL && fsync(fileno(f)) != 0))
        saved = errno != 0 ? errno : EIO;
    if (f != stdout && fclose(f) != 0 && saved == 0)
        saved = errno;
    if (saved == 0)
        return tmp == NULL || sim_output_rename(tmp, path, error);
    if (tmp != NULL)
        g_unlink(tmp);
    return fail(path, saved, error);
}

void
sim_output_abandon(FILE *f, char *tmp_path)
{
    if (f != stdout)
        fclose(f);
    if (tmp_path != NULL)
        g_unlink(tmp_path);
    g_free(tmp_path);
}
