/* SPDX-License-Identifier: Apache-2.0 */
/* Atomic output files (see core-output.h): mkstemp's unique name with an
 * ordinary file's mode, fsync before the rename so that a crash leaves the
 * old file or the new one, never part of it; "-" and what is not a
 * regular file are written in place.
 *
 * Every temporary still open is listed where a signal handler can read it
 * without a lock: a list of slots that only grows, each slot a path buffer
 * and an atomic state word (a generation count and free, taken or open).
 * SIGINT, SIGTERM and SIGHUP remove the open ones, stop the children
 * registered (gnuplot), then end the process by the same signal. Costs: a
 * few atomic operations and a signal-mask change per output file.
 */
#include "core/core-output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include <time.h>
#include <unistd.h>

/* ---- The registry of open temporaries and children. ---- */

enum { SLOT_FREE, SLOT_TAKEN, SLOT_OPEN, SLOT_STATES = 4 };

typedef struct TempSlot {
    struct TempSlot *next; /* set before the slot is published, never changed */
    atomic_uint state;     /* generation * SLOT_STATES + SLOT_FREE, _TAKEN or _OPEN */
    char path[PATH_MAX];   /* written only while the slot is taken */
} TempSlot;

static _Atomic(TempSlot *) slots;
/* Threads between creating a temporary and publishing it; the handler
 * waits for them, and they give up once it has started (dying). */
static atomic_int n_creating;
static atomic_int dying;

#define N_CHILDREN 8
static atomic_int children[N_CHILDREN]; /* process groups to stop; 0: none */

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};

static unsigned
next_state(unsigned state, unsigned what)
{
    return (state / SLOT_STATES + 1) * SLOT_STATES + what;
}

/* A slot taken for this thread: a free one, or a new one pushed on the
 * list. */
static TempSlot *
slot_take(void)
{
    for (TempSlot *s = atomic_load(&slots); s != NULL; s = s->next) {
        unsigned state = atomic_load(&s->state);
        if (state % SLOT_STATES == SLOT_FREE &&
            atomic_compare_exchange_strong(&s->state, &state, next_state(state, SLOT_TAKEN)))
            return s;
    }
    TempSlot *s = g_new0(TempSlot, 1);
    atomic_init(&s->state, SLOT_TAKEN);
    TempSlot *head = atomic_load(&slots);
    do
        s->next = head;
    while (!atomic_compare_exchange_weak(&slots, &head, s));
    return s;
}

static void
slot_set(TempSlot *s, unsigned what)
{
    atomic_store(&s->state, next_state(atomic_load(&s->state), what));
}

/* Forgets the temporary at tmp_path (removed or renamed by now). */
static void
forget(const char *tmp_path)
{
    for (TempSlot *s = atomic_load(&slots); s != NULL; s = s->next)
        if (atomic_load(&s->state) % SLOT_STATES == SLOT_OPEN && strcmp(s->path, tmp_path) == 0) {
            slot_set(s, SLOT_FREE);
            return;
        }
}

/* Removes one open temporary; async-signal-safe. The path is copied and
 * the state read again, so that a slot closed and reused meanwhile (its
 * buffer rewritten) is left alone. */
static void
remove_open(TempSlot *s)
{
    char path[PATH_MAX];
    unsigned before = atomic_load(&s->state);
    if (before % SLOT_STATES != SLOT_OPEN)
        return;
    size_t n = 0;
    while (n + 1 < sizeof path && s->path[n] != '\0') {
        path[n] = s->path[n];
        n++;
    }
    path[n] = '\0';
    if (atomic_load(&s->state) == before)
        unlink(path);
}

static void
on_signal(int sig)
{
    int saved = errno;
    atomic_store(&dying, 1);
    /* A thread creating a temporary has the signals blocked and takes
     * microseconds; wait for it, up to a second. */
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 1000 && atomic_load(&n_creating) > 0; i++)
        nanosleep(&ms, NULL);
    for (int i = 0; i < N_CHILDREN; i++) {
        int group = atomic_load(&children[i]);
        if (group > 0)
            kill(-group, SIGTERM);
    }
    for (TempSlot *s = atomic_load(&slots); s != NULL; s = s->next)
        remove_open(s);
    /* The default action, once this handler returns (the signal is blocked
     * until then): the exit status says which signal it was. */
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
    errno = saved;
}

void
sim_output_catch_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < G_N_ELEMENTS(caught); i++)
        sigaddset(&sa.sa_mask, caught[i]);
    for (size_t i = 0; i < G_N_ELEMENTS(caught); i++) {
        struct sigaction old;
        /* A signal ignored when the program started (nohup, a background
         * job of a shell without job control) stays ignored. */
        if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(caught[i], &sa, NULL);
    }
}

static void
block_caught(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < G_N_ELEMENTS(caught); i++)
        sigaddset(&set, caught[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

void
sim_output_child_add(int pid)
{
    for (int i = 0; i < N_CHILDREN; i++) {
        int none = 0;
        if (atomic_compare_exchange_strong(&children[i], &none, pid))
            return;
    }
}

void
sim_output_child_remove(int pid)
{
    for (int i = 0; i < N_CHILDREN; i++) {
        int expected = pid;
        if (atomic_compare_exchange_strong(&children[i], &expected, 0))
            return;
    }
}

/* ---- Output files. ---- */

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
    if (strlen(templ) >= PATH_MAX) {
        fail(path, ENAMETOOLONG, error);
        return -1;
    }
    TempSlot *slot = slot_take();
    /* From the file's creation to its slot being open, no signal may end
     * this thread (blocked), and a handler running on another waits. */
    sigset_t old;
    block_caught(&old);
    atomic_fetch_add(&n_creating, 1);
    if (atomic_load(&dying)) {
        atomic_fetch_sub(&n_creating, 1);
        for (;;)
            pause(); /* the handler ends the process */
    }
    int fd = g_mkstemp_full(templ, O_WRONLY | O_CLOEXEC, 0666);
    int saved = errno;
    if (fd >= 0) {
        memcpy(slot->path, templ, strlen(templ) + 1);
        slot_set(slot, SLOT_OPEN);
    } else {
        slot_set(slot, SLOT_FREE);
    }
    atomic_fetch_sub(&n_creating, 1);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (fd < 0) {
        fail(path, saved, error);
        return -1;
    }
    *tmp_path = g_steal_pointer(&templ);
    return fd;
}

void
sim_output_temp_remove(const char *tmp_path)
{
    g_unlink(tmp_path);
    forget(tmp_path);
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
        sim_output_temp_remove(*tmp_path);
        g_clear_pointer(tmp_path, g_free);
        fail(path, saved, error);
    }
    return f;
}

bool
sim_output_rename(const char *tmp_path, const char *path, GError **error)
{
    if (g_rename(tmp_path, path) == 0) {
        forget(tmp_path);
        return true;
    }
    int saved = errno;
    sim_output_temp_remove(tmp_path);
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
        sim_output_temp_remove(tmp);
    return fail(path, saved, error);
}

void
sim_output_abandon(FILE *f, char *tmp_path)
{
    if (f != stdout)
        fclose(f);
    if (tmp_path != NULL)
        sim_output_temp_remove(tmp_path);
    g_free(tmp_path);
}

bool
sim_output_write_all(const char *path, const char *data, size_t length, GError **error)
{
    char *tmp = NULL;
    FILE *f = sim_output_open(path, &tmp, error);
    if (f == NULL)
        return false;
    if (length > 0 && fwrite(data, 1, length, f) != length) {
        int saved = errno != 0 ? errno : EIO;
        sim_output_abandon(f, tmp);
        return fail(path, saved, error);
    }
    return sim_output_commit(f, tmp, path, error);
}

bool
sim_output_check(const char *path, GError **error)
{
    char *tmp = NULL;
    FILE *f = sim_output_open(path, &tmp, error);
    if (f == NULL)
        return false;
    sim_output_abandon(f, tmp);
    return true;
}
