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
