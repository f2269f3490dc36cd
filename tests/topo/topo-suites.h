/* SPDX-License-Identifier: Apache-2.0 */
/* The Check suites of sim/topo, one per module, run by test-topo; and the
 * helpers they share (defined in test-topo.c). */
#pragma once

#include <check.h>
#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-system.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

Suite *topo_build_suite(void);
Suite *topo_route_suite(void);
Suite *topo_fault_suite(void);
Suite *topo_ranges_suite(void);
Suite *topo_place_suite(void);

/* $top_srcdir/models (the shipped models), newly allocated. */
char *topo_test_models_dir(void);

/* Loads the shipped system models/system/ID.ini; fails the test (naming
 * id) when it does not load. */
HwSystem *topo_test_load_system(const char *id);

/* The kind of every vertex path visits, from its source to its
 * destination: n_hops + 1 entries written to kinds. */
void topo_test_path_kinds(const TopoGraph *graph, const TopoPath *path, TopoVertexKind *kinds);

/* Whether path visits a vertex of kind (endpoints included). */
bool topo_test_path_visits(const TopoGraph *graph, const TopoPath *path, TopoVertexKind kind);

/* Whether some hop of path is a bundle of link kind. */
bool topo_test_path_uses(const TopoGraph *graph, const TopoPath *path, HwLinkKind kind);

/* Asserts that path is connected and runs from vertex src to vertex dst,
 * naming case_name. */
void topo_test_assert_path_joins(const char *case_name, const TopoGraph *graph,
                                 const TopoPath *path, uint32_t src, uint32_t dst);
