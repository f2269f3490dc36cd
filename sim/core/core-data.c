/* SPDX-License-Identifier: Apache-2.0 */
/* The data folder (models/, scenarios/, plots/, data/measurements/): the
 * source tree's only for a program the build tree built, so that an
 * installed nvlsim never reads a checkout that happens to be there; else
 * the install it belongs to, found from its own folder first (a staged
 * install moved into place) and from the $(pkgdatadir) fixed at build time
 * last. The paths come from Makefile.am; the program's own path from
 * /proc/self/exe (Linux: elsewhere only the fixed path is used).
 */
#include "core/core-data.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if !defined(NVLSIM_BUILD_DIR) || !defined(NVLSIM_SOURCE_DIR) || !defined(NVLSIM_PREFIX) ||        \
    !defined(NVLSIM_BINDIR) || !defined(NVLSIM_PKGDATADIR)
#error "NVLSIM_BUILD_DIR, _SOURCE_DIR, _PREFIX, _BINDIR and _PKGDATADIR come from Makefile.am"
#endif

typedef struct DataDir {
    char *path;
    SimDataOrigin origin;
} DataDir;

/* The folder of the running program, resolved, or NULL. */
static char *
program_dir(void)
{
    g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
    return exe != NULL && g_path_is_absolute(exe) ? g_path_get_dirname(exe) : NULL;
}

/* Whether dir (resolved) is the build folder or lies under its tests/:
 * where make puts nvlsim and the test programs. An install under the
 * build folder (bin/, share/) is not. */
static bool
is_build_tree(const char *dir)
{
    char resolved[PATH_MAX];
    if (realpath(NVLSIM_BUILD_DIR, resolved) == NULL)
        return false;
    if (strcmp(dir, resolved) == 0)
        return true;
    g_autofree char *tests = g_build_filename(resolved, "tests", NULL);
    size_t n = strlen(tests);
    return strncmp(dir, tests, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

/* The part of path after prefix and a '/', or NULL when path is not under
 * prefix. */
static const char *
under(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    while (n > 0 && prefix[n - 1] == '/')
        n--;
    if (strncmp(path, prefix, n) != 0 || path[n] != '/')
        return NULL;
    return path + n + 1;
}

/* The way from $(bindir) to $(pkgdatadir), both under $(prefix):
 * "../share/nvlsim" by default; NULL when either lies elsewhere. */
static char *
bindir_to_pkgdatadir(void)
{
    const char *bin = under(NVLSIM_BINDIR, NVLSIM_PREFIX);
    const char *data = under(NVLSIM_PKGDATADIR, NVLSIM_PREFIX);
    if (bin == NULL || data == NULL)
        return NULL;
    GString *way = g_string_new(NULL);
    g_auto(GStrv) parts = g_strsplit(bin, "/", -1);
    for (char **p = parts; *p != NULL; p++) {
        if (strcmp(*p, "..") == 0) {
            g_string_free(way, TRUE);
            return NULL;
        }
        if (**p != '\0' && strcmp(*p, ".") != 0)
            g_string_append(way, "../");
    }
    g_string_append(way, data);
    return g_string_free(way, FALSE);
}

static DataDir
find_data_dir(void)
{
    g_autofree char *dir = program_dir();
    if (dir != NULL && is_build_tree(dir))
        return (DataDir){g_canonicalize_filename(NVLSIM_SOURCE_DIR, NULL), SIM_DATA_BUILD_TREE};
    g_autofree char *way = bindir_to_pkgdatadir();
    if (dir != NULL && way != NULL) {
        g_autofree char *beside = g_build_filename(dir, way, NULL);
        g_autofree char *clean = g_canonicalize_filename(beside, NULL);
        if (g_file_test(clean, G_FILE_TEST_IS_DIR))
            return (DataDir){g_steal_pointer(&clean), SIM_DATA_BESIDE};
    }
    return (DataDir){g_strdup(NVLSIM_PKGDATADIR), SIM_DATA_INSTALLED};
}

static const DataDir *
data_dir(void)
{
    static DataDir found;
    static gsize once = 0;
    if (g_once_init_enter(&once)) {
        found = find_data_dir();
        g_once_init_leave(&once, 1);
    }
    return &found;
}

const char *
sim_data_dir(void)
{
    return data_dir()->path;
}

SimDataOrigin
sim_data_origin(void)
{
    return data_dir()->origin;
}

const char *
sim_data_origin_name(SimDataOrigin origin)
{
    switch (origin) {
    case SIM_DATA_BUILD_TREE:
        return "the source tree, for the build tree's program";
    case SIM_DATA_BESIDE:
        return "installed, found from the program's folder";
    case SIM_DATA_INSTALLED:
        break;
    }
    return "installed, at the configured path";
}

char *
sim_data_path(const char *part)
{
    g_return_val_if_fail(part != NULL, NULL);
    return g_build_filename(sim_data_dir(), part, NULL);
}
