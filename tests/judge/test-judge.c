/* SPDX-License-Identifier: Apache-2.0 */
/* Runs every sim/judge suite; exits non-zero when a test fails. */
#include <stdlib.h>

#include "judge-suites.h"

int
main(void)
{
    SRunner *runner = srunner_create(judge_log_suite());
    srunner_add_suite(runner, judge_decompose_suite());
    srunner_run_all(runner, CK_NORMAL);
    int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
