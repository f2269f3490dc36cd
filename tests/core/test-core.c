/* SPDX-License-Identifier: Apache-2.0 */
/* Runs every sim/core suite; exits non-zero when a test fails. */
#include <stdlib.h>

#include "core-suites.h"

int
main(void)
{
    SRunner *runner = srunner_create(core_engine_suite());
    srunner_add_suite(runner, core_csv_suite());
    srunner_add_suite(runner, core_output_suite());
    srunner_add_suite(runner, core_queue_suite());
    srunner_add_suite(runner, core_rng_suite());
    srunner_add_suite(runner, core_text_suite());
    srunner_add_suite(runner, core_time_suite());
    srunner_add_suite(runner, core_units_suite());
    srunner_run_all(runner, CK_NORMAL);
    int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
