/* SPDX-License-Identifier: Apache-2.0 */
/* Runs every sim/work suite; exits non-zero when a test fails. */
#include <stdlib.h>

#include "work-suites.h"

int
main(void)
{
    SRunner *runner = srunner_create(work_model_suite());
    srunner_add_suite(runner, work_compute_suite());
    srunner_add_suite(runner, work_layout_suite());
    srunner_add_suite(runner, work_memory_suite());
    srunner_add_suite(runner, work_pipeline_suite());
    srunner_add_suite(runner, work_gen_suite());
    srunner_add_suite(runner, work_replay_suite());
    srunner_add_suite(runner, work_cache_suite());
    srunner_add_suite(runner, work_steady_suite());
    srunner_add_suite(runner, work_fault_suite());
    srunner_add_suite(runner, work_ranges_suite());
    srunner_add_suite(runner, work_place_suite());
    srunner_run_all(runner, CK_NORMAL);
    int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
