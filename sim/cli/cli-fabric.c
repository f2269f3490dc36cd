/* SPDX-License-Identifier: Apache-2.0 */
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

bool
cli_output_check(const char *path, GError **error)
{
    char *tmp = NULL;
    FILE *f = sim_output_open(path, &tmp, error);
    if (f == NULL)
        return false;
    sim_output_abandon(f, tmp);
    return true;
}
