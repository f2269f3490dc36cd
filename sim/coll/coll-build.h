/* SPDX-License-Identifier: Apache-2.0 */
/* Schedules: the programs NCCL's algorithms run, laid out on an executor
 * (coll-exec) for a communicator and a call plan. */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "coll/coll-exec.h"
#include "coll/coll-run.h"

/* The cap on a direct (p2p) chunk: NCCL's P2P_NVL_CHUNKSIZE. */
#define COLL_P2P_CHUNK_BYTES (512 * 1024)
/* Past this many chunks per channel an NVLS pipeline is in its steady
 * state: larger calls merge consecutive chunks so that a channel has at
 * most this many. That lengthens the fill and drain of the 5-stage
 * pipeline: 8 GiB on 8 x H100 comes out 1.9% slower than with 128 chunks,
 * and runs in a fifth of the time. */
#define COLL_NVLS_MAX_CHUNKS 64
/* NVLS-tree lays out a program a head for each of NCCL's two trees, each
 * running the channels of its tree together (coll_build_nvls_tree). */
#define COLL_NVLS_TREE_GROUPS 2

/* The most operations (each about one message) a call's schedule may
 * lay out: a ring all_reduce over n ranks is n x (2n - 1) steps a
 * channel and slice, an alltoall n x (n - 1) sends, so past some
 * thousands of ranks a call would run for hours (at about a microsecond a
 * message); it is refused before its schedule is laid out, naming the
 * count. 2^30 is 14 times the largest shipped case (a 1 GiB ring
 * all_reduce on 1440 GPUs of GB200 NVL72). */
#define COLL_BUILD_MAX_OPS (UINT64_C(1) << 30)

typedef struct CollBuild {
    const CollComm *comm;
    const CollCall *call;
    CollAlgo algo;
    CollProto proto;
    CollTunePlan plan;
    CollExec *ex;
    uint32_t *rank_part; /* [n_ranks]: participant of each rank */
    bool fold;           /* channels with the same schedule run as one (flow fidelity) */
} CollBuild;

/* What a schedule will hold, estimated before it is laid out: operations
 * (each about one message), programs, connections, runs of operations
 * (coll-exec.c) and the connections they name. */
typedef struct CollBuildSize {
    double n_ops;
    uint64_t n_progs, n_conns, n_runs, n_peers;
} CollBuildSize;

/* Whether a schedule of that size may be laid out: at most
 * COLL_BUILD_MAX_OPS operations (else an error naming the count and, in
 * parentheses, what the format says of it) and within what is left of the
 * memory limit (core-memory.h; else a memory error naming the estimate).
 * Every builder asks before it lays out. */
bool coll_build_fits(const CollBuild *b, const CollBuildSize *size, GError **error,
                     const char *what_format, ...) G_GNUC_PRINTF(4, 5);

/* Each lays out call's schedule on b->ex; false and error when the
 * algorithm cannot run this call on this communicator. */
bool coll_build_ring(CollBuild *b, GError **error);
bool coll_build_tree(CollBuild *b, GError **error);
/* NVLS and NVLS-tree: coll-build-nvls.c. */
bool coll_build_nvls(CollBuild *b, GError **error);
/* The switch vertex that reduces and multicasts for node's ranks in the
 * plane of leaf (a switch their first rank links to): leaf, or the spine
 * above it where the ranks span boards of a two-tier domain. */
uint32_t coll_build_nvls_switch(const CollComm *comm, uint32_t node, uint32_t leaf);
bool coll_build_nvls_tree(CollBuild *b, GError **error);
bool coll_build_direct(CollBuild *b, GError **error);
/* PAT (all_gather, reduce_scatter; one rank per node): coll-build-pat.c. */
bool coll_build_pat(CollBuild *b, GError **error);

/* A new program of participant part that needs no flags (NVLS's multimem
 * loads and stores, a switch's reduction, sends the network proxy
 * carries). */
uint32_t coll_build_unfenced_program(CollBuild *b, uint32_t part);
/* The messages a connection holds: the plan's slices in flight (1 to 64). */
uint32_t coll_build_depth(const CollBuild *b);
/* A connection of b's protocol (its wire factor) from participant
 * from_part to to_part, as deep as coll_build_depth. */
uint32_t coll_build_conn(CollBuild *b, uint32_t from_part, uint32_t to_part);
/* Part i of total bytes split n ways (the first parts one byte larger). */
uint64_t coll_build_share(uint64_t total, uint32_t n, uint32_t i);

/* PAT's aggregation of one channel (NCCL's PatAGAlgorithm and
 * PatRSAlgorithm constructors, collectives.h:523-545 and :792-815): a
 * rank exchanges with the ranks 2^d away, d < n_dims; a message carries
 * post_pieces pieces (a piece: one chunk of one rank's data), agg_pieces
 * pieces of a tree level go before the next, and parallel pieces run at
 * once (worker groups of the CTA between two barriers). */
typedef struct CollPatParams {
    uint32_t n_dims;      /* ceil(log2 n) */
    uint32_t post_pieces; /* NCCL's postFreq */
    uint32_t agg_pieces;  /* NCCL's aggFactor */
    uint32_t parallel;    /* NCCL's parallelFactor */
} CollPatParams;

/* The parameters for n_ranks, chunks of chunk_bytes and a channel's
 * channel_bytes of each rank's data. */
void coll_pat_params(uint32_t n_ranks, uint64_t chunk_bytes, uint64_t channel_bytes,
                     CollPatParams *params);

/* NCCL's double binary tree over n nodes (ncclGetDtree, trees.cc): tree
 * 0 is the binary tree rooted at 0 that alternates leaves and inner
 * nodes; tree 1 mirrors it (n even) or shifts it by one (n odd), so that
 * a node inner in one tree is a leaf in the other. The parent of node in
 * tree (0 or 1), n for the root. */
uint32_t coll_dtree_parent(uint32_t n, uint32_t tree, uint32_t node);

bool coll_build_collnet_direct(CollBuild *b, GError **error);
bool coll_build_collnet_chain(CollBuild *b, GError **error);

/* CollNet's heads: the local ranks (of node 0) whose GPU has a NIC of its
 * own (a NET's localGpu in NCCL), in NIC order, into ranks (room for
 * comm->ppn); returns how many. */
uint32_t coll_build_collnet_heads(const CollComm *comm, uint32_t *ranks);

/* The wire bytes per data byte of a protocol: LL 16/8, LL128 128/120. */
double coll_proto_wire_factor(CollProto proto);
