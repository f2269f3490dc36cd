/* SPDX-License-Identifier: Apache-2.0 */
/* The world (see topo-world.h): load the system model, build its graph
 * for some number of nodes, prepare routing. */
#include "topo/topo-world.h"

#include "hw/hw-models.h"
#include "topo/topo-build.h"

/* n_nodes of system (taken) with faults, built and routed. */
static TopoWorld *
world_build(HwSystem *system, uint32_t n_nodes, const TopoFaults *faults, GError **error)
{
    g_autoptr(HwSystem) owned = system;
    TopoGraph *graph = topo_build_system_faulted(owned, n_nodes, faults, error);
    if (graph == NULL)
        return NULL;
    TopoWorld *world = g_new0(TopoWorld, 1);
    g_atomic_ref_count_init(&world->ref_count);
    world->system = g_steal_pointer(&owned);
    world->graph = graph;
    world->router = topo_router_new(graph);
    return world;
}

TopoWorld *
topo_world_load(const char *system_id, uint32_t n_nodes, const TopoFaults *faults, GError **error)
{
    HwSystem *system = hw_system_load_by_id(system_id, hw_models_dir(), error);
    return system != NULL ? world_build(system, n_nodes, faults, error) : NULL;
}

TopoWorld *
topo_world_for_gpus(HwSystem *system, uint32_t n_nodes, uint32_t n_gpus, const TopoFaults *faults,
                    GError **error)
{
    return world_build(system, topo_world_nodes(system, n_nodes, n_gpus), faults, error);
}

uint32_t
topo_world_nodes(const HwSystem *system, uint32_t n_nodes, uint32_t n_gpus)
{
    return n_nodes != 0 ? n_nodes : MAX(1, (n_gpus + system->n_gpus - 1) / system->n_gpus);
}

TopoWorld *
topo_world_ref(TopoWorld *world)
{
    g_atomic_ref_count_inc(&world->ref_count);
    return world;
}

void
topo_world_unref(TopoWorld *world)
{
    if (world == NULL || !g_atomic_ref_count_dec(&world->ref_count))
        return;
    topo_router_free(world->router);
    topo_graph_free(world->graph);
    hw_system_free(world->system);
    g_free(world);
}

TopoFaults *
topo_world_faults(char **items, const char *what, const HwSystem *system, GError **error)
{
    g_autoptr(TopoFaults) faults = topo_faults_from_sets(items, what, error);
    if (faults == NULL)
        return NULL;
    if (!topo_faults_check(faults, system, error)) {
        g_prefix_error(error, "%s: ", what);
        return NULL;
    }
    return g_steal_pointer(&faults);
}
