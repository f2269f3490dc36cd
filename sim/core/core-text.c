/* SPDX-License-Identifier: Apache-2.0 */
/* Reading and checking text files (see core-text.h): a stream of checked
 * lines over a block buffer that holds at most a line and a block; a whole
 * file read is that stream's lines put together.
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

/* Bytes are read in blocks of this size. */
#define BLOCK_BYTES 65536

struct SimTextStream {
    char *name;
    int fd;            /* -1: text in memory */
    const char *data;  /* in memory: the text */
    GByteArray *buf;   /* from a file: bytes read and not yet returned */
    gsize pos, length; /* the unread bytes: data or buf->data, [pos, length) */
    gsize checked;     /* bytes past pos already searched for a newline and NUL */
    bool eof;
    unsigned line;
};

SimTextStream *
sim_text_stream_open(const char *path, const char *what, GError **error)
{
    int fd = g_open(path, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) {
        fail_errno(error, path, errno);
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        fail_errno(error, path, saved);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "%s: is a folder: expected %s", path,
                    what);
        return NULL;
    }
    SimTextStream *s = g_new0(SimTextStream, 1);
    s->name = g_strdup(path);
    s->fd = fd;
    s->buf = g_byte_array_sized_new(2 * BLOCK_BYTES);
    return s;
}

SimTextStream *
sim_text_stream_new_data(const char *name, const char *data, gsize length)
{
    SimTextStream *s = g_new0(SimTextStream, 1);
    s->name = g_strdup(name);
    s->fd = -1;
    s->data = data;
    s->length = length;
    s->eof = true;
    return s;
}

void
sim_text_stream_free(SimTextStream *s)
{
    if (s == NULL)
        return;
    if (s->fd >= 0)
        close(s->fd);
    if (s->buf != NULL)
        g_byte_array_unref(s->buf);
    g_free(s->name);
    g_free(s);
}

unsigned
sim_text_stream_line(const SimTextStream *s)
{
    return s->line;
}

/* Reads a block after the unread bytes (moved to the front first); false
 * on a read error. */
static bool
read_block(SimTextStream *s, GError **error)
{
    if (s->pos > 0) {
        g_byte_array_remove_range(s->buf, 0, (guint)s->pos);
        s->length -= s->pos;
        s->pos = 0;
    }
    g_byte_array_set_size(s->buf, (guint)(s->length + BLOCK_BYTES));
    ssize_t n;
    do
        n = read(s->fd, s->buf->data + s->length, BLOCK_BYTES);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return fail_errno(error, s->name, errno);
    s->length += (gsize)n;
    g_byte_array_set_size(s->buf, (guint)s->length);
    s->eof = n == 0;
    return true;
}

static bool
not_text(const SimTextStream *s, GError **error)
{
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                "%s:%u: not text (a NUL byte or invalid UTF-8)", s->name, s->line);
    return false;
}

bool
sim_text_stream_next(SimTextStream *s, const char **line, gsize *length, GError **error)
{
    s->line++;
    for (;;) {
        const char *text = s->fd >= 0 ? (const char *)s->buf->data : s->data;
        const char *start = text + s->pos;
        gsize n = s->length - s->pos;
        const char *nl = memchr(start + s->checked, '\n', n - s->checked);
        gsize end = nl != NULL ? (gsize)(nl - start) : n;
        if (memchr(start + s->checked, '\0', end - s->checked) != NULL)
            return not_text(s, error);
        if (end > SIM_TEXT_MAX_LINE_BYTES) {
            g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s:%u: a line of %s%" G_GSIZE_FORMAT " bytes: expected at most %d",
                        s->name, s->line, nl != NULL || s->eof ? "" : "more than ",
                        nl != NULL || s->eof ? end : (gsize)SIM_TEXT_MAX_LINE_BYTES,
                        SIM_TEXT_MAX_LINE_BYTES);
            return false;
        }
        if (nl != NULL || (s->eof && n > 0)) {
            if (!g_utf8_validate(start, (gssize)end, NULL))
                return not_text(s, error);
            *line = start;
            *length = end + (nl != NULL);
            s->pos += *length;
            s->checked = 0;
            return true;
        }
        if (s->eof) {
            s->line--;
            return false;
        }
        s->checked = end;
        if (!read_block(s, error))
            return false;
    }
}

bool
sim_text_read(const char *path, const char *what, char **contents, gsize *length, GError **error)
{
    g_autoptr(SimTextStream) s = sim_text_stream_open(path, what, error);
    if (s == NULL)
        return false;
    GString *text = g_string_new(NULL);
    const char *line;
    gsize n;
    GError *failed = NULL;
    while (sim_text_stream_next(s, &line, &n, &failed)) {
        g_string_append_len(text, line, (gssize)n);
        if (text->len > SIM_TEXT_MAX_FILE_BYTES) {
            g_set_error(&failed, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                        "%s: more than %u bytes: expected %s of at most that size", path,
                        SIM_TEXT_MAX_FILE_BYTES, what);
            break;
        }
    }
    if (failed != NULL) {
        g_propagate_error(error, failed);
        g_string_free(text, TRUE);
        return false;
    }
    *length = text->len;
    *contents = g_string_free(text, FALSE);
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
