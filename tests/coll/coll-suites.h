/* SPDX-License-Identifier: Apache-2.0 */
/* The Check suites of sim/coll, one per module, run by test-coll; and the
 * helpers they share (defined in test-coll.c). */
#pragma once

#include <check.h>
#include <glib.h>
#include <stdint.h>

#include "coll/coll-build.h"
#include "coll/coll-tune.h"
#include "hw/hw-system.h"

Suite *coll_estimate_suite(void);
Suite *coll_exec_suite(void);
Suite *coll_harness_suite(void);
Suite *coll_latency_suite(void);
Suite *coll_loopback_suite(void);
Suite *coll_fault_suite(void);
Suite *coll_names_suite(void);
Suite *coll_nvls_tree_suite(void);
Suite *coll_pat_suite(void);
Suite *coll_place_suite(void);
Suite *coll_rings_suite(void);
Suite *coll_session_suite(void);
Suite *coll_tune_suite(void);

/* $top_srcdir/models (the shipped models), newly allocated. */
char *coll_test_models_dir(void);

/* Loads the shipped system models/system/ID.ini; fails the test (naming
 * id) when it does not load. */
HwSystem *coll_test_load_system(const char *id);

/* build's schedule of an all_reduce of S bytes on comm (algo, Simple),
 * n_channels channels of chunk bytes, no costs beyond the wire, run at
 * fidelity; each rank's bytes sent and received (sent NULL: none). */
CollExecResult coll_test_all_reduce(const CollComm *comm, bool (*build)(CollBuild *, GError **),
                                    CollAlgo algo, uint64_t S, uint32_t n_channels,
                                    uint64_t chunk, NetFidelity fidelity, uint64_t *sent,
                                    uint64_t *received);

/* NCCL's view of n_nodes full nodes of the shipped system id (every GPU a
 * rank). */
void coll_test_info(const char *id, uint32_t n_nodes, CollTopoInfo *info);
