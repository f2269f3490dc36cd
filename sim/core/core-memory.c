/* SPDX-License-Identifier: Apache-2.0 */
/* The memory limit and the memory held (see core-memory.h): /proc/meminfo
 * once, /proc/self/statm at each check (one small read). */
#include "core/core-memory.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "core/core-units.h"

#define ENV_NAME "NVLSIM_MEMORY_LIMIT"

typedef struct Limit {
    uint64_t resident_bytes; /* the resident set's limit; UINT64_MAX: none known */
    const char *resident_origin;
    uint64_t virtual_bytes; /* RLIMIT_AS; UINT64_MAX: none */
} Limit;

/* Resident and virtual size of this process, bytes; false if unreadable. */
static bool
read_statm(uint64_t *resident, uint64_t *size)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return false;
    unsigned long long pages = 0, rss = 0;
    bool ok = fscanf(f, "%llu %llu", &pages, &rss) == 2;
    fclose(f);
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    *size = pages * page;
    *resident = rss * page;
    return ok;
}

/* MemAvailable of /proc/meminfo, bytes; false if absent. */
static bool
read_available(uint64_t *bytes)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (f == NULL)
        return false;
    char line[256];
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        unsigned long long kib;
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
            *bytes = kib * 1024;
            found = true;
        }
    }
    fclose(f);
    return found;
}

static bool
env_limit(uint64_t *bytes, GError **error)
{
    const char *text = g_getenv(ENV_NAME);
    if (text == NULL || *text == '\0')
        return false;
    GError *local = NULL;
    if (!sim_units_parse_size_bytes(text, bytes, &local) || *bytes == 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s: '%s': expected a size of more than 0 bytes, such as 8GiB", ENV_NAME, text);
        g_clear_error(&local);
        return false;
    }
    return true;
}

static gpointer
find_limit(gpointer data)
{
    (void)data;
    static Limit limit = {.resident_bytes = UINT64_MAX,
                          .resident_origin = "no limit known",
                          .virtual_bytes = UINT64_MAX};
    uint64_t resident = 0, size = 0, available = 0;
    if (read_statm(&resident, &size) && read_available(&available)) {
        limit.resident_bytes = resident + available;
        limit.resident_origin = "the memory available when nvlsim started";
    }
    uint64_t env = 0;
    if (env_limit(&env, NULL) && env < limit.resident_bytes) {
        limit.resident_bytes = env;
        limit.resident_origin = ENV_NAME;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        limit.virtual_bytes = (uint64_t)rl.rlim_cur;
    return &limit;
}

static const Limit *
get_limit(void)
{
    static GOnce once = G_ONCE_INIT;
    return g_once(&once, find_limit, NULL);
}

bool
sim_memory_check_env(GError **error)
{
    uint64_t bytes;
    GError *local = NULL;
    if (!env_limit(&bytes, &local) && local != NULL) {
        g_propagate_error(error, local);
        return false;
    }
    get_limit();
    return true;
}

void
sim_memory_now(SimMemory *m)
{
    const Limit *limit = get_limit();
    uint64_t resident = 0, size = 0;
    read_statm(&resident, &size);
    /* The virtual size is the one reported where ulimit -v is what it
     * nears first (in proportion); the resident set otherwise. */
    bool virtual_first =
        limit->virtual_bytes != UINT64_MAX &&
        (limit->resident_bytes == UINT64_MAX ||
         (double)size / limit->virtual_bytes > (double)resident / limit->resident_bytes);
    m->in_use_bytes = virtual_first ? size : resident;
    m->limit_bytes = virtual_first ? limit->virtual_bytes : limit->resident_bytes;
    m->limit_origin = virtual_first ? "ulimit -v" : limit->resident_origin;
}

bool
sim_memory_exceeded(SimMemory *m)
{
    sim_memory_now(m);
    return m->in_use_bytes > m->limit_bytes;
}

/* MiB below a GiB, GiB above (GLib's g_format_size puts a no-break space
 * between number and unit, which a message read by grep should not). */
static char *
size_text(uint64_t bytes)
{
    double mib = (double)bytes / (1024.0 * 1024.0);
    return mib < 1024.0 ? g_strdup_printf("%.1f MiB", mib)
                        : g_strdup_printf("%.2f GiB", mib / 1024.0);
}

void
sim_memory_error(GError **error, const char *what, const char *shrink)
{
    SimMemory m;
    sim_memory_now(&m);
    g_autofree char *held = size_text(m.in_use_bytes);
    g_autofree char *limit = size_text(m.limit_bytes);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                "%s outgrew the memory available: %s held, the limit %s (%s); %s", what, held,
                limit, m.limit_origin, shrink);
}

/* What is left of the limit now. */
static uint64_t
left_bytes(SimMemory *m)
{
    sim_memory_now(m);
    return m->limit_bytes > m->in_use_bytes ? m->limit_bytes - m->in_use_bytes : 0;
}

bool
sim_memory_fits(uint64_t need_bytes)
{
    SimMemory m;
    return need_bytes <= left_bytes(&m);
}

void
sim_memory_need_error(GError **error, uint64_t need_bytes, const char *what, const char *detail,
                      const char *shrink)
{
    SimMemory m;
    g_autofree char *left = size_text(left_bytes(&m));
    g_autofree char *need = size_text(need_bytes);
    g_autofree char *limit = size_text(m.limit_bytes);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                "%s needs about %s (%s), more than the %s left of the memory limit, %s (%s): %s",
                what, need, detail, left, limit, m.limit_origin, shrink);
}
