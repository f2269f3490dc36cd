/* SPDX-License-Identifier: Apache-2.0 */
/* An ideal two-level fabric the sim/coll suites check multi-node
 * schedules on against closed forms: two nodes of one GPU, its NVLS
 * switch and its NIC, the NICs on one SHARPv3 leaf; every link alike (25
 * GB/s, 16 B headers, 128 B SM payloads, 100 ns), the NVLS switch 200 ns,
 * a NIC 500 ns, the leaf 300 ns port to port, nothing that stalls, no
 * reduction cost. Shared by test-coll (NVLS-tree) and test-coll-collnet. */
#pragma once

#include <stdint.h>

#include "coll/coll-run.h"

#define TWO_LEVEL_RATE UINT64_C(25000000000)
#define TWO_LEVEL_LAT UINT64_C(100000)
#define TWO_LEVEL_NIC_LAT UINT64_C(500000)
#define TWO_LEVEL_LEAF_LAT UINT64_C(300000)

typedef struct TwoLevel {
    TopoGraph *graph;
    TopoRouter *router;
    CollComm comm;
    uint32_t vertex[2];
    uint32_t node_first[3];
} TwoLevel;

void two_level_init(TwoLevel *t);
void two_level_clear(TwoLevel *t);

/* b bytes on the wire over h alike links crossing the vertex latencies
 * via: the drain at the link rate (its packets' headers included), then
 * the last packet's serialization and latency on each other hop. */
uint64_t two_level_transfer_ps(uint64_t b, uint32_t h, uint64_t via);
