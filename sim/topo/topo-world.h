/* SPDX-License-Identifier: Apache-2.0 */
/* A world to run traffic in: a system model, its graph for some number of
 * nodes (faults applied) and its routing, owned together. What every
 * command that simulates a system builds first. Reference counted: runs
 * on several threads may share one (nothing in it changes once built).
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-system.h"
#include "topo/topo-fault.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

typedef struct TopoWorld {
    HwSystem *system;
    TopoGraph *graph;
    TopoRouter *router;
    gatomicrefcount ref_count;
} TopoWorld;

/* Loads the system SYSTEM_ID (or a path; hw_system_load_by_id, the models'
 * search path) and builds n_nodes of it (0: the system's own count) with
 * faults (borrowed; NULL: none). NULL and error ("PATH: [group] key: ...")
 * on bad input. */
TopoWorld *topo_world_load(const char *system_id, uint32_t n_nodes, const TopoFaults *faults,
                           GError **error);
/* The same for a system already loaded (taken: freed with the world, or
 * on error), n_nodes 0 meaning enough nodes for n_gpus GPUs. */
TopoWorld *topo_world_for_gpus(HwSystem *system, uint32_t n_nodes, uint32_t n_gpus,
                               const TopoFaults *faults, GError **error);
/* The nodes such a world has: n_nodes, or (0) enough for n_gpus. */
uint32_t topo_world_nodes(const HwSystem *system, uint32_t n_nodes, uint32_t n_gpus);
TopoWorld *topo_world_ref(TopoWorld *world);
void topo_world_unref(TopoWorld *world);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(TopoWorld, topo_world_unref)

/* Faults from items of option `what` (KEY=VALUE; NULL: none) checked
 * against system: NULL and an error naming what when an item is malformed
 * or does not fit the system; an empty set without items. */
TopoFaults *topo_world_faults(char **items, const char *what, const HwSystem *system,
                              GError **error);
