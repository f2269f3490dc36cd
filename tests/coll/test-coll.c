/* SPDX-License-Identifier: Apache-2.0 */
/* Runs every sim/coll suite; exits non-zero when a test fails. Also holds
 * the helpers the suites share: loading the shipped systems and NCCL's
 * view of them. */
#include <stdlib.h>

#include "coll-suites.h"

char *
coll_test_models_dir(void)
{
    const char *top = g_getenv("top_srcdir");
    return g_build_filename(top ? top : ".", "models", NULL);
}

HwSystem *
coll_test_load_system(const char *id)
{
    g_autofree char *dir = coll_test_models_dir();
    g_autoptr(GError) error = NULL;
    HwSystem *system = hw_system_load_by_id(id, dir, &error);
    ck_assert_msg(system != NULL, "%s: %s", id, error ? error->message : "");
    return system;
}

CollExecResult
coll_test_all_reduce(const CollComm *comm, bool (*build)(CollBuild *, GError **), CollAlgo algo,
                     uint64_t S, uint32_t n_channels, uint64_t chunk, NetFidelity fidelity,
                     uint64_t *sent, uint64_t *received)
{
    CollCall call = {.op = COLL_OP_ALL_REDUCE,
                     .n_bytes = S,
                     .elem_bytes = 4,
                     .algo = algo,
                     .proto = COLL_PROTO_SIMPLE};
    CollBuild b = {.comm = comm,
                   .call = &call,
                   .algo = algo,
                   .proto = COLL_PROTO_SIMPLE,
                   .plan = {.n_channels = n_channels,
                            .chunk_bytes = chunk,
                            .slice_bytes = chunk,
                            .slices_in_flight = 4}};
    b.ex = coll_exec_new(comm->graph, comm->router, NULL, COLL_PROTO_SIMPLE, n_channels, 0, 0);
    g_autofree uint32_t *parts = g_new(uint32_t, comm->n_ranks);
    for (uint32_t r = 0; r < comm->n_ranks; r++)
        parts[r] = coll_exec_participant(b.ex, comm->rank_vertex[r]);
    b.rank_part = parts;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(build(&b, &error), "%s", error ? error->message : "");
    CollExecResult result;
    ck_assert_msg(coll_exec_run(b.ex, fidelity, &result, &error), "%s",
                  error ? error->message : "");
    for (uint32_t r = 0; sent != NULL && r < comm->n_ranks; r++)
        coll_exec_participant_bytes(b.ex, parts[r], &sent[r], &received[r]);
    coll_exec_free(b.ex);
    return result;
}

void
coll_test_info(const char *id, uint32_t n_nodes, CollTopoInfo *info)
{
    g_autoptr(HwSystem) system = coll_test_load_system(id);
    coll_tune_info(system, system->n_gpus * n_nodes, n_nodes, info);
}

int
main(void)
{
    SRunner *runner = srunner_create(coll_names_suite());
    srunner_add_suite(runner, coll_tune_suite());
    srunner_add_suite(runner, coll_estimate_suite());
    srunner_add_suite(runner, coll_exec_suite());
    srunner_add_suite(runner, coll_harness_suite());
    srunner_add_suite(runner, coll_latency_suite());
    srunner_add_suite(runner, coll_loopback_suite());
    srunner_add_suite(runner, coll_fault_suite());
    srunner_add_suite(runner, coll_rings_suite());
    srunner_add_suite(runner, coll_nvls_tree_suite());
    srunner_add_suite(runner, coll_pat_suite());
    srunner_add_suite(runner, coll_place_suite());
    srunner_add_suite(runner, coll_session_suite());
    srunner_run_all(runner, CK_NORMAL);
    int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
