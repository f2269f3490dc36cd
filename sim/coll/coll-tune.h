/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL's own cost model (src/graph/tuning.cc, src/enqueue.cc and the
 * channel search of src/graph/search.cc, NCCL 2.30; see
 * shared/reference/nccl_model.md): what NCCL would pick for a call
 * (algorithm, protocol, channels, chunk size) and the time its model
 * predicts. nvlsim uses the choice to run what NCCL runs, and the predicted
 * time as the analytical baseline its simulation must beat.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "coll/coll-rings.h"
#include "coll/coll.h"
#include "hw/hw-system.h"

/* CollNet runs at most this many ranks a node, and CollNet Direct has at
 * most as many heads: NCCL_MAX_DIRECT_ARITY + 1 (device.h:192-213;
 * enqueue.cc:2000-2003, search.cc:1129-1131). */
#define COLL_COLLNET_MAX_PPN 8

/* A communicator as NCCL's tuner sees it. Bandwidths are NCCL's GB/s
 * (1e9 bytes/s, per direction) as its topology code parses them, not the
 * link models' line rates. Ranks fill nodes in order: rank r is on
 * node r / ppn, on GPU r % ppn of it unless coll_tune_info_links names
 * another (the same GPUs on every node). Nodes may hold different numbers
 * of ranks: the search is the smallest node's, as NCCL's graphs are the
 * minimum over nodes' (init.cc:1439-1459 of NCCL 2.30.7); the model's
 * per-node terms take nRanks / nNodes (tuning.cc:281, 416). */
typedef struct CollTopoInfo {
    uint32_t n_ranks;
    uint32_t n_nodes;
    uint32_t ppn;            /* ranks per node (NVLink domain): n_ranks / n_nodes, rounded down */
    uint32_t node_ranks;     /* the fewest ranks on a node (minLocalRanks), the node searched */
    uint32_t max_node_ranks; /* the most (maxLocalRanks) */
    uint32_t sm_version;     /* 60, 70, 80, 90, 100 (the GPU model's) */
    uint32_t arch_index;     /* 0 Volta and older, 1 Ampere, 2 Hopper, 3 Blackwell */
    uint32_t scale_index;    /* 0: 1 node, 1: 2 nodes, 2: more */
    bool nvswitch;           /* the GPUs of a node share NVSwitch planes */
    bool nvls;               /* the switches do multicast and reduction (and SM90+) */
    bool nvlink_all_pairs;   /* every pair of a node's ranks has an NVLink path */
    bool collnet;            /* NCCL's CollNet runs: the system enables it (hw collnet) on a
                                SHARPv2+ fabric, and there are 2 nodes or more */
    bool cpu_amd;            /* network post overhead 2 us instead of 1 */
    bool cpu_arm;            /* Grace (the GPU's host link is C2C) */
    double nvlink_bw;        /* NCCL's GB/s of one GPU's NVLinks (count × per-link constant) */
    double pci_bw;           /* GB/s of a GPU's PCIe link as NCCL parses it */
    double net_bw;           /* GB/s of the NICs serving one rank */

    /* Added for the channel search emulation (coll_tune_graph). */
    double nvlink_link_bw;      /* NCCL's GB/s of one NVLink for this SM (topo.h:19-24) */
    double nvlink_max_path_bw;  /* the fastest NVLink path between two ranks of a node */
    uint32_t nvlink_ring_links; /* no switch: the fewest NVLinks a rank has to its node's
                                   other ranks (bounds link-disjoint rings) */
    CollPath path_gpu;          /* the farthest path a node's ring needs between ranks */
    CollPath path_net;          /* from a GPU to its nearest NIC */
    uint32_t n_nics;            /* NIC ports (NCCL NET devices) near a node's ranks */
    double nic_bw;              /* GB/s of one NET device (its ports', Mbit/s / 8000) */
    double net_latency_us;      /* a NET device's latency as the plugin reports it
                                   (graph latencyInter) */
    double net_path_bw;         /* GB/s of the path from a GPU to its NIC (PCIe included) */
    double p2p_bw;              /* GB/s between neighbouring ranks of a node (the slowest pair) */
    uint32_t p2p_channels;      /* p2p channels per peer the paths ask for (2 x NVLinks,
                                   NICs...), a power of two, before the cap by the
                                   communicator's channels (see the DIRECT graph) */
    CollRings rings;            /* no switch: a node's paths; on one node, NCCL's ring and
                                   tree graphs (coll-rings.h), which coll_tune_graph reports */
    HwNcclEnv env;              /* NCCL's environment on the system (0: its defaults) */
} CollTopoInfo;

/* Fills info for n_ranks ranks placed on n_nodes nodes of system. */
void coll_tune_info(const HwSystem *system, uint32_t n_ranks, uint32_t n_nodes, CollTopoInfo *info);

/* The NVLinks NCCL finds among the ranks of a node when it starts: it
 * counts links (NVML's active links), not their rate or errors. */
typedef struct CollNvlinks {
    uint32_t n;                /* ranks of the node */
    const uint32_t *gpu;       /* [n]: the node's GPU each rank is on; NULL: rank r on GPU r */
    const uint32_t *pair;      /* [n * n]: direct links between ranks a and b */
    const uint32_t *to_switch; /* [n]: links from each rank to the NVSwitch planes */
    uint32_t nics_down;        /* the node's NICs without a link to the fabric */
} CollNvlinks;

/* The same as coll_tune_info, with the GPUs a node's ranks are on and the
 * NVLinks among them given by links instead of the system model's GPUs
 * 0 .. ppn - 1: what NCCL sees of a subset of a node's GPUs, or of a
 * system with links down. links->n is the fewest ranks on a node,
 * max_node_ranks the most (both n_ranks / n_nodes when they split evenly). A rank without
 * NVLink on an NVSwitch system leaves the node on PCIe. NICs down leave
 * NCCL that share fewer NET devices (at least one), as net_ib lists only
 * active ports. */
void coll_tune_info_links(const HwSystem *system, uint32_t n_ranks, uint32_t n_nodes,
                          uint32_t max_node_ranks, const CollNvlinks *links, CollTopoInfo *info);

/* The graph NCCL's search would find for algo: channels and GB/s per
 * channel inside a node and between nodes. NVLS and NVLS_TREE share one
 * graph, TREE and PAT another, as in NCCL; DIRECT (p2p) reports the p2p
 * channels per peer and the intra/inter GB/s of a rank. COLLNET_CHAIN is
 * the tree search's (a chain to the head's NIC, init.cc:1189-1194) and
 * COLLNET_DIRECT's channels are its heads, one NIC-local GPU each (at most
 * 8, search.cc:1129-1131); both all zero without CollNet. AUTO: all zero. */
typedef struct CollTuneGraph {
    uint32_t n_channels;
    double bw_intra;
    double bw_inter;
    CollPath path_intra; /* typeIntra: NVL on NVLink systems */
    CollPath path_inter; /* typeInter: PIX on one node, else the GPU-to-NIC path */
    bool same_channels;  /* every channel takes the same order through the node */
} CollTuneGraph;

void coll_tune_graph(const CollTopoInfo *info, CollAlgo algo, CollTuneGraph *graph);

/* The communicator's channel count, NCCL's comm->nChannels: twice the ring
 * and tree graphs' channels, at most 64, doubled again on SM90+ multi-node
 * when a ring channel runs above 45 GB/s (connect.cc:460-483). Ring and
 * tree calls start from it. */
uint32_t coll_tune_channels(const CollTopoInfo *info);

/* NCCL's runtime NVLS channel count (nvlsChannels, nvls.cc:155-243): 16 on
 * SM90; on SM100 24 for one node and 32 (or its NVLS-tree table) for more.
 * 0 without NVLS. */
uint32_t coll_tune_nvls_channels(const CollTopoInfo *info);

/* NCCL's NVLS efficiency for the arch (tuning.cc:139-146): 0.85 Hopper,
 * 0.74 Blackwell, 0 before. */
double coll_tune_nvls_efficiency(const CollTopoInfo *info);

/* NCCL's predicted time in us for op on n_bytes (nccl-tests' size) with
 * algo and proto; < 0 when NCCL would not use that combination (AUTO
 * included). alltoall and sendrecv, which NCCL runs as p2p without a
 * model, take DIRECT with LL (small peers) or Simple and a time from the
 * ring's per-step constants (see coll-tune.c). */
double coll_tune_time_us(const CollTopoInfo *info, CollOp op, CollAlgo algo, CollProto proto,
                         uint64_t n_bytes);

/* What NCCL picks: the fastest (algorithm, protocol) by its model among
 * those allowed; a forced algo or proto (not AUTO) restricts the choice.
 * False when nothing allowed is available (then *algo, *proto untouched). */
bool coll_tune_select(const CollTopoInfo *info, CollOp op, uint64_t n_bytes, CollAlgo *algo,
                      CollProto *proto);

/* How NCCL runs the chosen call: channels (CTAs) for this size, the chunk,
 * the slice, and how many slices fit in a connection's buffer. DIRECT:
 * the channels per peer and p2p chunks. An AUTO algo or proto is resolved
 * with coll_tune_select first (all zero when nothing is available). */
typedef struct CollTunePlan {
    uint32_t n_channels;
    uint64_t chunk_bytes;      /* data bytes per chunk (per channel, per step) */
    uint64_t slice_bytes;      /* data bytes per slice, the unit of flow control */
    uint32_t slices_in_flight; /* NCCL_STEPS / slice steps */
} CollTunePlan;

void coll_tune_plan(const CollTopoInfo *info, CollOp op, CollAlgo algo, CollProto proto,
                    uint64_t n_bytes, CollTunePlan *plan);

/* What one channel (one CTA) can push, GB/s: NCCL's modelled bus bandwidth
 * for algo and proto (its per-channel speeds and protocol caps, such as
 * llMaxBw and perChMaxRingLL128Bw) over the channels it runs. The executor
 * limits each GPU program to it; 0 when NCCL would not run the pair. */
double coll_tune_channel_bw(const CollTopoInfo *info, CollOp op, CollAlgo algo, CollProto proto);

/* NCCL's per-step latency in us inside a node for algo and proto
 * (hwLatencies, NVLink or PCI class as its graph's intra path): all a step
 * costs at zero size, its synchronisation included. */
double coll_tune_step_latency_us(const CollTopoInfo *info, CollAlgo algo, CollProto proto);
