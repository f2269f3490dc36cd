/* SPDX-License-Identifier: Apache-2.0 */
/* The Check suites of sim/net, one per module, run by test-net. */
#pragma once

#include <check.h>
#include <glib.h>
#include <inttypes.h>

Suite *net_agree_suite(void);
Suite *net_flow_suite(void);
Suite *net_packet_suite(void);
Suite *net_planes_suite(void);
Suite *net_rates_suite(void);
Suite *net_send_suite(void);
