/* Building the graph of a system model: n_nodes copies of its NVLink
 * domain (GPUs, NVSwitch planes and trunks or direct GPU pairs, hosts with
 * CPUs and PCIe switches, NICs) and the scale-out fabric joining them
 * (leaf switches per rail, one spine tier), non-blocking by default.
 */
#pragma once

#include <glib.h>

#include "hw/hw-system.h"
#include "topo/topo-graph.h"

/* Builds the graph of n_nodes nodes of system (borrowed: the graph points
 * into its models, so system must outlive it). n_nodes 0 means the system's
 * own node count. NULL and error when the system cannot be built that way
 * (several nodes but no NIC or fabric switch). */
TopoGraph *topo_build_system(const HwSystem *system, uint32_t n_nodes, GError **error);
