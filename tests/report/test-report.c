/* SPDX-License-Identifier: Apache-2.0 */
/* The report layer's Check suites. */
#include <check.h>
#include <stdlib.h>

#include "report-suites.h"

int
main(void)
{
    SRunner *runner = srunner_create(report_trace_suite());
    srunner_add_suite(runner, report_replay_suite());
    srunner_add_suite(runner, report_chrome_suite());
    srunner_add_suite(runner, report_links_suite());
    srunner_run_all(runner, CK_NORMAL);
    int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
