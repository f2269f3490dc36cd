/* SPDX-License-Identifier: Apache-2.0 */
/* Internal to the tuner (coll-tune.c, coll-tune-search.c): NCCL's own
 * indices, which order its tables and its choice. Not for other modules;
 * they use coll-tune.h.
 */
#pragma once

#include "coll/coll-tune.h"

/* NCCL's algorithm indices (nccl_tuner.h:27-58): the tables' rows and the
 * order in which the selection breaks ties. */
typedef enum NcclAlgo {
    NA_TREE,
    NA_RING,
    NA_COLLNET_DIRECT,
    NA_COLLNET_CHAIN,
    NA_NVLS,
    NA_NVLS_TREE,
    NA_PAT,
    N_NA,
} NcclAlgo;

/* NCCL's protocol indices. */
enum { NP_LL, NP_LL128, NP_SIMPLE, N_NP };

/* Rows (arch index) and columns (scale index) of the per-arch tables. */
enum { N_ARCHS = 4, N_SCALES = 3 };

/* NCCL's GB/s of one NVLink for an SM version (topo.h:19-24,
 * ncclTopoNVLinkBw :273-281). */
double coll_tune_nvlink_link_bw(uint32_t sm);

/* A PCIe link as NCCL parses it: lanes x speed code / 80 GB/s, the code
 * 15, 30, 60, 120, 240, 480 for generations 1-6 (topo.cc:545-556,
 * :650-658); generations outside 1-6 are clamped. */
double coll_tune_pcie_bw(uint64_t generation, uint64_t lanes);

/* NCCL's index of algo, or -1 for AUTO and DIRECT (no NCCL model). */
int coll_tune_nccl_algo(CollAlgo algo);

/* p2pnChannels and p2pnChannelsPerPeer once the communicator's channels
 * are known (paths.cc:977-1003): the p2p channels, a power of two of at
 * least the communicator's, and the per-peer count of info->p2p_channels
 * capped by them (multi-node: halved until the peers of one batch fit). */
void coll_tune_p2p_channels(const CollTopoInfo *info, uint32_t *n_total, uint32_t *n_per_peer);
