/* Reading and checking text files (see core-text.h). The whole file is held
 * in memory: the inputs are models, scenarios and CSV tables of at most a
 * few tens of megabytes, and holding them whole lets every check and every
 * parser name exact lines.
 */
#include "core/core-text.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool
sim_text_check(const char *name, const char *data, gsize length, GError **error)
{
    const char *end = data + length;
    unsigned line = 1;
    for (const char *p = data; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        gsize n = (gsize)((nl != NULL ? nl : end) - p);
        if (n > SIM_TEXT_MAX_LINE_BYTES) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%u: a line of %" G_GSIZE_FORMAT " bytes: expected at most %d", name,
                        line, n, SIM_TEXT_MAX_LINE_BYTES);
            return false;
        }
        /* Given a length, g_utf8_validate refuses NUL bytes within it. */
        if (!g_utf8_validate(p, (gssize)n, NULL)) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%u: not text (a NUL byte or invalid UTF-8)", name, line);
            return false;
        }
        p += n + (nl != NULL);
    }
    return true;
}

static bool
fail_errno(GError **error, const char *path, int saved)
{
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved), "%s: %s", path,
                g_strerror(saved));
    return false;
}

bool
sim_text_read(const char *path, const char *what, char **contents, gsize *length, GError **error)
{
    int fd = g_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0)
        return fail_errno(error, path, errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        return fail_errno(error, path, saved);
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "%s: is a folder: expected %s", path,
                    what);
        return false;
    }
    GByteArray *bytes = g_byte_array_new();
    guint8 block[65536];
    ssize_t n;
    gsize line = 0; /* bytes of the line being read */
    while ((n = read(fd, block, sizeof block)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            close(fd);
            g_byte_array_unref(bytes);
            return fail_errno(error, path, saved);
        }
        g_byte_array_append(bytes, block, (guint)n);
        /* An endless or binary input (/dev/zero, a disk image) fails as
         * soon as it shows: a NUL byte, an overlong line, too much. */
        ssize_t last = n - 1;
        while (last >= 0 && block[last] != '\n')
            last--;
        line = last >= 0 ? (gsize)(n - 1 - last) : line + (gsize)n;
        if (memchr(block, '\0', (size_t)n) != NULL) {
            close(fd);
            sim_text_check(path, (const char *)bytes->data, bytes->len, error);
            g_byte_array_unref(bytes);
            return false;
        }
        if (line > SIM_TEXT_MAX_LINE_BYTES) {
            close(fd);
            unsigned number = 1;
            for (guint i = 0; i + line < bytes->len; i++)
                number += bytes->data[i] == '\n';
            g_byte_array_unref(bytes);
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%u: a line of more than %d bytes: expected at most %d", path, number,
                        SIM_TEXT_MAX_LINE_BYTES, SIM_TEXT_MAX_LINE_BYTES);
            return false;
        }
        if (bytes->len > SIM_TEXT_MAX_FILE_BYTES) {
            close(fd);
            g_byte_array_unref(bytes);
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s: more than %u bytes: expected %s of at most that size", path,
                        SIM_TEXT_MAX_FILE_BYTES, what);
            return false;
        }
    }
    close(fd);
    gsize size = bytes->len;
    g_byte_array_append(bytes, (const guint8 *)"", 1);
    char *text = (char *)g_byte_array_free(bytes, FALSE);
    if (!sim_text_check(path, text, size, error)) {
        g_free(text);
        return false;
    }
    *contents = text;
    *length = size;
    return true;
}

char *
sim_text_excerpt(const char *text, glong max_chars)
{
    char *out = NULL;
    if (g_utf8_strlen(text, -1) > max_chars) {
        g_autofree char *head = g_utf8_substring(text, 0, max_chars);
        out = g_strconcat(head, "\xe2\x80\xa6", NULL); /* an ellipsis */
    } else {
        out = g_strdup(text);
    }
    for (char *p = out; *p != '\0'; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return out;
}
