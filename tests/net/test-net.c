/* SPDX-License-Identifier: Apache-2.0 */
/* Runs every sim/net suite; exits non-zero when a test fails. */
#include <stdlib.h>

#include "net-suites.h"

int
main(void)
{
    SRunner *runner = srunner_create(net_flow_suite());
    srunner_add_suite(runner, net_packet_suite());
    srunner_add_suite(runner, net_agree_suite());
    srunner_add_suite(runner, net_send_suite());
    srunner_add_suite(runner, net_rates_suite());
    srunner_add_suite(runner, net_planes_suite());
    srunner_run_all(runner, CK_NORMAL);
    int n_failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return n_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
