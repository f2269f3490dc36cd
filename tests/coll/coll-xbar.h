/* SPDX-License-Identifier: Apache-2.0 */
/* The ideal crossbar the sim/coll suites run schedules on: n GPUs around
 * one NVLS-capable switch, one 25 GB/s link each (16 B headers, 128 B SM
 * payloads, 100 ns), the switch 200 ns port to port, buffers that never
 * stall. Shared by test-coll (test-coll-exec.c) and test-coll-agree. */
#pragma once

#include <stdint.h>

#include "coll/coll-run.h"

#define XBAR_RATE UINT64_C(25000000000)
#define XBAR_LAT UINT64_C(100000)
#define XBAR_SW_LAT UINT64_C(200000)
#define XBAR_HEADER UINT64_C(16)
#define XBAR_MAX_GPUS 16

typedef struct Xbar {
    TopoGraph *graph;
    TopoRouter *router;
    CollComm comm;
    uint32_t vertex[XBAR_MAX_GPUS];
    uint32_t node_first[XBAR_MAX_GPUS + 1];
} Xbar;

/* n GPUs (at most XBAR_MAX_GPUS) and their communicator: one node. */
void xbar_init(Xbar *x, uint32_t n);
/* The communicator as n_nodes nodes of the given ranks each, in order
 * (all on the one switch): nodes as NCCL orders rings and trees on them. */
void xbar_split(Xbar *x, const uint32_t *node_ranks, uint32_t n_nodes);
void xbar_clear(Xbar *x);
