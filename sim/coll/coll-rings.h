/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's rings and trees on one node of direct NVLink pairs (DGX-1): the
 * topology NCCL builds of the communicator's GPUs, the paths between them
 * and its channel search, emulated step by step (see coll-rings.c). Used
 * by the tuner (channels and GB/s) and by the ring and tree builders (GPU
 * orders, relays through an intermediate GPU).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "coll/coll.h"
#include "hw/hw-system.h"

#define COLL_RINGS_MAX_GPUS 16
#define COLL_RINGS_MAX_CHANNELS 32  /* a ring graph's maxChannels, MAXCHANNELS / 2 (init.cc:1177)  \
                                     */
#define COLL_RINGS_DIRECT UINT8_MAX /* no intermediate GPU */

/* One graph as NCCL's search leaves it (struct ncclTopoGraph): its
 * channels, their GB/s (NCCL's per-channel bwIntra), the farthest path
 * type it needed, and each channel's GPUs as ranks: a ring's order, or a
 * tree's chain from its root down. */
typedef struct CollRingsGraph {
    uint32_t n_channels;
    double bw_intra;
    CollPath path_intra;
    bool same_channels;
    uint8_t order[COLL_RINGS_MAX_CHANNELS][COLL_RINGS_MAX_GPUS];
} CollRingsGraph;

/* What NCCL finds on one node: the path between every two ranks (its
 * type; the GPU an NVB path crosses) and, when searched, the ring graph
 * and the tree graph with the channel count NCCL gives both (the fewer of
 * the two searches', init.cc:1459). Indexed by rank. */
typedef struct CollRings {
    uint32_t n;    /* ranks; 0 when more than COLL_RINGS_MAX_GPUS (not looked at) */
    bool searched; /* ring and tree hold NCCL's search */
    CollRingsGraph ring, tree;
    uint8_t path[COLL_RINGS_MAX_GPUS][COLL_RINGS_MAX_GPUS]; /* a CollPath */
    uint8_t via[COLL_RINGS_MAX_GPUS][COLL_RINGS_MAX_GPUS];  /* NVB: the rank crossed */
} CollRings;

/* Fills rings for n ranks of one node of system (a system without
 * NVSwitch): rank r on the node's GPU gpu[r] (distinct, below
 * system->n_gpus), pair[a * n + b] NVLinks joining ranks a and b directly
 * (what the node has, links down left out). With search, also runs
 * NCCL's ring and tree searches as for a communicator of exactly these
 * ranks on one node. n above COLL_RINGS_MAX_GPUS: rings->n is 0. */
void coll_rings_find(const HwSystem *system, uint32_t n, const uint32_t *gpu, const uint32_t *pair,
                     bool search, CollRings *rings);

/* NCCL's GB/s between the two CPU sockets of system (ncclTopoGetInterCpuBw,
 * topo.cc:60-80): its QPI or UPI constant for the Intel generation the
 * link's lane rate identifies, 0 without a CPU link. */
double coll_rings_inter_cpu_bw(const HwSystem *system);
