/* SPDX-License-Identifier: Apache-2.0 */
/* Building the graph of a system model: n_nodes copies of its NVLink
 * domain (GPUs, NVSwitch planes and trunks or direct GPU pairs, hosts with
 * CPUs and PCIe switches, NICs) and the scale-out fabric joining them
 * (leaf switches per rail, one spine tier), non-blocking by default.
 */
#pragma once

#include <glib.h>

#include "hw/hw-system.h"
#include "topo/topo-fault.h"
#include "topo/topo-graph.h"

/* Builds the graph of n_nodes nodes of system (borrowed: the graph points
 * into its models, so system must outlive it). n_nodes 0 means the system's
 * own node count. NULL and error when the system cannot be built that way
 * (several nodes but no NIC or fabric switch). */
TopoGraph *topo_build_system(const HwSystem *system, uint32_t n_nodes, GError **error);

/* The same with faults (NULL or empty: none) applied to every node's
 * NVLink fabric as it is laid: a bundle down is not laid, one that lost
 * links is laid with the links left, a plane down takes its GPU bundles
 * and trunks, and slow or noisy bundles are degraded
 * (topo_graph_degrade_bundle). The graph is marked faulted when a fault
 * applies. NULL and an error "[faults] KEY: ..." when a fault does not fit
 * the system (topo_faults_check). */
TopoGraph *topo_build_system_faulted(const HwSystem *system, uint32_t n_nodes,
                                     const TopoFaults *faults, GError **error);
