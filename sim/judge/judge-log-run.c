/* SPDX-License-Identifier: Apache-2.0 */
/* A test of a log as nvlsim runs it: its ranks placed on a system as the
 * log shows them, and its calls timed as its harness timed them. Shared
 * by compare --measured and calibrate cluster. */
#include "judge/judge-log.h"

#include "topo/topo-place.h"

CollHarness
judge_log_test_harness(const JudgeLogTest *t)
{
    CollHarness h = COLL_HARNESS_DEFAULT;
    h.kind = t->blocking ? COLL_HARNESS_BLOCKING : COLL_HARNESS_NCCL_TESTS;
    h.mode = t->n_gpus_per_thread > 1 ? COLL_LAUNCH_THREADS : COLL_LAUNCH_MPI;
    h.cuda_graph = t->cuda_graph;
    return h;
}

CollComm *
judge_log_test_comm(const JudgeLogTest *t, HwSystem *system, TopoWorld **world, bool *networked,
                    GError **error)
{
    TopoPlaceAsk ask = {
        .n_gpus = t->n_ranks, .n_hosts = t->n_hosts, .gpus_per_host = t->ranks_per_host};
    g_auto(TopoPlace) place = {0};
    TopoPlaceField bad;
    *world = NULL;
    if (!hw_nccl_env_parse(t->nccl_env != NULL ? t->nccl_env : "", &system->nccl, error) ||
        !topo_place(system, &ask, &place, &bad, error)) {
        hw_system_free(system);
        return NULL;
    }
    if (networked != NULL)
        *networked = place.n_domains > 1;
    *world = topo_world_for_gpus(system, place.n_domains, 0, NULL, error);
    if (*world == NULL)
        return NULL;
    return coll_comm_new_local((*world)->system, (*world)->graph, (*world)->router, place.local,
                               place.per_domain, place.n_domains, place.domain_ranks, error);
}
