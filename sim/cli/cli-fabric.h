/* SPDX-License-Identifier: Apache-2.0 */
/* A simulated system ready to run traffic on, and the check of output paths. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/core-output.h"
#include "hw/hw-system.h"
#include "topo/topo-fault.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

typedef struct CliFabric {
    HwSystem *system;
    TopoGraph *graph;
    TopoRouter *router;
} CliFabric;

/* Loads models/system/SYSTEM_ID.ini and builds n_nodes of it (0: the
 * system's own count). NULL and error ("PATH: [group] key: ...") on bad
 * input. */
CliFabric *cli_fabric_load(const char *system_id, uint32_t n_nodes, GError **error);
/* The same with faults (borrowed; NULL: none) applied to its graph. */
CliFabric *cli_fabric_load_faults(const char *system_id, uint32_t n_nodes, const TopoFaults *faults,
                                  GError **error);
/* The same for a system already loaded (taken: freed with the fabric, or
 * on error), n_nodes 0 meaning enough nodes for n_gpus GPUs; faults as
 * above. */
CliFabric *cli_fabric_for_gpus(HwSystem *system, uint32_t n_nodes, uint32_t n_gpus,
                               const TopoFaults *faults, GError **error);

/* Faults from --fault KEY=VALUE items (NULL: none) checked against
 * system: NULL and an error (a usage error) when an item is malformed or
 * does not fit the system; an empty set without items. */
TopoFaults *cli_fabric_faults(char **items, const HwSystem *system, GError **error);
void cli_fabric_free(CliFabric *fabric);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CliFabric, cli_fabric_free)

/* Output files appear whole or not at all: sim_output_open,
 * sim_output_commit and sim_output_abandon (core-output.h). */

/* Whether path could be written (its folder exists and takes a file, and
 * path is not a folder), tried with a temporary that is removed: for a
 * command that writes several files, before it writes any. */
bool cli_output_check(const char *path, GError **error);
