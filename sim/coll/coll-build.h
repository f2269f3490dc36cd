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

typedef struct CollBuild {
    const CollComm *comm;
    const CollCall *call;
    CollAlgo algo;
    CollProto proto;
    CollTunePlan plan;
    CollExec *ex;
    uint32_t *rank_part; /* [n_ranks]: participant of each rank */
} CollBuild;

/* Each lays out call's schedule on b->ex; false and error when the
 * algorithm cannot run this call on this communicator. */
bool coll_build_ring(CollBuild *b, GError **error);
bool coll_build_tree(CollBuild *b, GError **error);
bool coll_build_nvls(CollBuild *b, GError **error);
bool coll_build_nvls_tree(CollBuild *b, GError **error);
bool coll_build_direct(CollBuild *b, GError **error);

/* NCCL's double binary tree over n nodes (ncclGetDtree, trees.cc): tree
 * 0 is the binary tree rooted at 0 that alternates leaves and inner
 * nodes; tree 1 mirrors it (n even) or shifts it by one (n odd), so that
 * a node inner in one tree is a leaf in the other. The parent of node in
 * tree (0 or 1), n for the root. */
uint32_t coll_dtree_parent(uint32_t n, uint32_t tree, uint32_t node);

/* The wire bytes per data byte of a protocol: LL 16/8, LL128 128/120. */
double coll_proto_wire_factor(CollProto proto);
