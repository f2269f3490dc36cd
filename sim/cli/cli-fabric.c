/* Shared by the commands that simulate a system: load the system model by
 * id, build its graph for some number of nodes, prepare routing; and write
 * output files whole or not at all. */
#include "cli/cli-fabric.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>

#include "hw/hw-models.h"
#include "topo/topo-build.h"

/* n_nodes of system (taken) with faults, built and routed. */
static CliFabric *
fabric_build(HwSystem *system, uint32_t n_nodes, const TopoFaults *faults, GError **error)
{
    g_autoptr(HwSystem) owned = system;
    TopoGraph *graph = topo_build_system_faulted(owned, n_nodes, faults, error);
    if (graph == NULL)
        return NULL;
    CliFabric *fabric = g_new0(CliFabric, 1);
    fabric->system = g_steal_pointer(&owned);
    fabric->graph = graph;
    fabric->router = topo_router_new(graph);
    return fabric;
}

CliFabric *
cli_fabric_load(const char *system_id, uint32_t n_nodes, GError **error)
{
    return cli_fabric_load_faults(system_id, n_nodes, NULL, error);
}

CliFabric *
cli_fabric_load_faults(const char *system_id, uint32_t n_nodes, const TopoFaults *faults,
                       GError **error)
{
    HwSystem *system = hw_system_load_by_id(system_id, hw_models_dir(), error);
    return system != NULL ? fabric_build(system, n_nodes, faults, error) : NULL;
}

CliFabric *
cli_fabric_for_gpus(HwSystem *system, uint32_t n_nodes, uint32_t n_gpus, const TopoFaults *faults,
                    GError **error)
{
    if (n_nodes == 0)
        n_nodes = MAX(1, (n_gpus + system->n_gpus - 1) / system->n_gpus);
    return fabric_build(system, n_nodes, faults, error);
}

TopoFaults *
cli_fabric_faults(char **items, const HwSystem *system, GError **error)
{
    g_autoptr(TopoFaults) faults = topo_faults_from_sets(items, "--fault", error);
    if (faults == NULL)
        return NULL;
    if (!topo_faults_check(faults, system, error)) {
        g_prefix_error(error, "--fault: ");
        return NULL;
    }
    return g_steal_pointer(&faults);
}

void
cli_fabric_free(CliFabric *fabric)
{
    if (fabric == NULL)
        return;
    topo_router_free(fabric->router);
    topo_graph_free(fabric->graph);
    hw_system_free(fabric->system);
    g_free(fabric);
}

/* Sets error from errno for path and removes the temporary file. */
static void
fail_write(const char *path, int fd, const char *tmp, GError **error)
{
    int saved = errno;
    if (fd >= 0)
        close(fd);
    if (tmp != NULL)
        g_unlink(tmp);
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(saved), "%s: cannot write: %s", path,
                g_strerror(saved));
}

/* The umask, read once: reading it means setting it, which is
 * process-wide, so it is not done again while threads may create files. */
static mode_t
process_umask(void)
{
    static gsize once = 0;
    static mode_t mask;
    if (g_once_init_enter(&once)) {
        mask = umask(0);
        umask(mask);
        g_once_init_leave(&once, 1);
    }
    return mask;
}

FILE *
cli_output_open(const char *path, char **tmp_path, GError **error)
{
    /* A folder at path would only refuse the rename, after all the work. */
    if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
        errno = EISDIR;
        fail_write(path, -1, NULL, error);
        return NULL;
    }
    g_autofree char *dir = g_path_get_dirname(path);
    g_autofree char *base = g_path_get_basename(path);
    g_autofree char *templ = g_strdup_printf("%s/.%s.XXXXXX", dir, base);
    int fd = g_mkstemp(templ);
    if (fd < 0) {
        fail_write(path, -1, NULL, error);
        return NULL;
    }
    /* mkstemp makes the file private; an output file gets the usual
     * permissions, 0666 less the umask. */
    mode_t mask = process_umask();
    FILE *f = fchmod(fd, 0666 & ~mask) == 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        fail_write(path, fd, templ, error);
        return NULL;
    }
    *tmp_path = g_steal_pointer(&templ);
    return f;
}

bool
cli_output_commit(FILE *f, char *tmp_path, const char *path, GError **error)
{
    g_autofree char *tmp = tmp_path;
    bool ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    if (ok && g_rename(tmp, path) == 0)
        return true;
    fail_write(path, -1, tmp, error);
    return false;
}

void
cli_output_abandon(FILE *f, char *tmp_path)
{
    fclose(f);
    g_unlink(tmp_path);
    g_free(tmp_path);
}

bool
cli_output_check(const char *path, GError **error)
{
    char *tmp = NULL;
    FILE *f = cli_output_open(path, &tmp, error);
    if (f == NULL)
        return false;
    cli_output_abandon(f, tmp);
    return true;
}
