/* SPDX-License-Identifier: Apache-2.0 */
/* Runs every sim/topo suite; exits non-zero when a test fails. Also holds
 * the helpers the suites share: loading the shipped systems and reading
 * the vertices and link kinds along a path. */
#include <stdlib.h>

#include "topo-suites.h"

char *
topo_test_models_dir(void)
{
    const char *top = g_getenv("top_srcdir");
    return g_build_filename(top ? top : ".", "models", NULL);
}

HwSystem *
topo_test_load_system(const char *id)
{
    g_autofree char *dir = topo_test_models_dir();
    g_autoptr(GError) error = NULL;
    HwSystem *system = hw_system_load_by_id(id, dir, &error);
    ck_assert_msg(system != NULL, "%s: %s", id, error ? error->message : "");
    return system;
}

void
topo_test_path_kinds(const TopoGraph *graph, const TopoPath *path, TopoVertexKind *kinds)
{
    g_assert(path->n_hops > 0);
    kinds[0] = topo_graph_vertex(graph, topo_graph_link(graph, path->link[0])->src)->kind;
    for (uint32_t h = 0; h < path->n_hops; h++)
        kinds[h + 1] = topo_graph_vertex(graph, topo_graph_link(graph, path->link[h])->dst)->kind;
}

bool
topo_test_path_visits(const TopoGraph *graph, const TopoPath *path, TopoVertexKind kind)
{
    TopoVertexKind kinds[TOPO_MAX_HOPS + 1];
    topo_test_path_kinds(graph, path, kinds);
    for (uint32_t i = 0; i <= path->n_hops; i++)
        if (kinds[i] == kind)
            return true;
    return false;
}

bool
topo_test_path_uses(const TopoGraph *graph, const TopoPath *path, HwLinkKind kind)
{
    for (uint32_t h = 0; h < path->n_hops; h++)
        if (topo_graph_link(graph, path->link[h])->spec->kind == kind)
            return true;
    return false;
}

void
topo_test_assert_path_joins(const char *case_name, const TopoGraph *graph, const TopoPath *path,
                            uint32_t src, uint32_t dst)
{
    ck_assert_msg(path->n_hops > 0 && path->n_hops <= TOPO_MAX_HOPS, "%s: %u hops", case_name,
                  path->n_hops);
    uint32_t at = src;
    for (uint32_t h = 0; h < path->n_hops; h++) {
        const TopoLink *link = topo_graph_link(graph, path->link[h]);
        ck_assert_msg(link->src == at, "%s: hop %u leaves vertex %u, expected %u", case_name, h,
                      link->src, at);
        at = link->dst;
    }
    ck_assert_msg(at == dst, "%s: path ends at vertex %u, expected %u", case_name, at, dst);
}

int
main(void)
{
    SRunner *runner = srunner_create(topo_build_suite());
    srunner_add_suite(runner, topo_route_suite());
    srunner_add_suite(runner, topo_fault_suite());
    srunner_add_suite(runner, topo_ranges_suite());
    srunner_add_suite(runner, topo_place_suite());
    srunner_run_all(runner, CK_NORMAL);
    int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
