/* SPDX-License-Identifier: Apache-2.0 */
/* A collective call's time as a closed form, mechanism by mechanism, from
 * the choices and costs the simulation runs it with (coll-run.c,
 * coll-build.c, coll-exec.c), for explaining a simulated time:
 *
 *   kernel = setup + sync + latency + bandwidth + fill + fence + slots
 *            + reduction
 *
 *   setup      the runtime model's kernel_setup
 *   sync       NVLS, NVLS-tree: NCCL's NVLS latency beyond the wire
 *              through the switch, once before the first step
 *   latency    steps on the critical path x a step's latency (a ring's
 *              only beyond its copies, see below): inside a node the
 *              path's wire (one small write, two for Simple's data and
 *              flag) and the synchronisation NCCL's per-step latency
 *              leaves beyond it; between nodes the path through the NICs
 *              and the network proxy's post (three for Simple). Steps as
 *              the algorithm lays them out: ring 2(n-1) (all_reduce) or
 *              n-1, tree up and down the node's chain and the nodes' tree,
 *              NVLS the switch's reduce and multicast, NVLS-tree those and
 *              the heads' tree up and down, direct one round, PAT
 *              ceil(log2 n) levels between nodes
 *   bandwidth  the bytes a rank moves over the slower of its CTAs
 *              (channels x NCCL's per-channel rate) and its links (the
 *              GPU's NVLinks, the NICs serving it; NVLS the switch planes
 *              at NCCL's NVLS efficiency), in wire bytes (LL 16/8, LL128
 *              128/120) at the links' data rate (less packet headers)
 *   fill       a chain (broadcast, reduce, the tree) forwards whole
 *              slices: its last rank starts hops - 1 slices after the first,
 *              each over a hop at the links' share of the CTAs filling
 *              through it side by side; NVLS's stages a window of slots each
 *   fence      Simple inside a node: a CTA waits for each write to land
 *              before flagging it, where its own copy does not cover that
 *   slots      direct sends between nodes: a connection's slots drain
 *              together at the NICs' rate, then wait for the last to land,
 *              the proxy's post and the slot's way back
 *   reduction  2 bytes read per byte reduced at the GPU's streaming rate,
 *              beyond the copies of the same steps
 *
 * Steps and bandwidth are not simply added where they overlap: a ring's
 * ranks run in step, each from its own segment, so a step waits for its
 * neighbour only beyond its own copies. A closed form of one rank's view:
 * close where a term dominates (the tests hold it to 1-3% of the simulated
 * kernel at bandwidth-bound sizes and at latency-bound ones), looser in
 * between and where other ranks' traffic shares a rank's links beyond the
 * one it counts. What a benchmark reports around the kernel is
 * coll-harness's. Not for a loopback system (coll-loopback.h has its exact
 * form). Times in ps, rates in bytes per second.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll/coll-run.h"

/* What limits the bandwidth term. */
typedef enum CollBound {
    COLL_BOUND_CHANNELS, /* the CTAs' copy rate: channels x NCCL's per-channel rate */
    COLL_BOUND_NVLINK,   /* the GPU's links inside its node */
    COLL_BOUND_NIC,      /* the NICs serving a rank */
    COLL_BOUND_SWITCH,   /* NVLS: the switch planes' reduce and multicast */
} CollBound;

/* One kind of step: inside a node or between nodes. */
typedef struct CollEstimateStep {
    uint32_t n_steps;     /* on the critical path */
    uint32_t from, to;    /* the ranks whose path is taken */
    uint32_t n_hops;      /* links on that path */
    uint64_t wire_ps;     /* one small write along it (topo_path_latency_ps, 8 B) */
    uint32_t n_writes;    /* writes a step waits for in turn: Simple's data, then its flag */
    uint64_t sync_ps;     /* beyond the wire: synchronisation, or the proxy's post */
    double nccl_step_us;  /* inside a node: NCCL's per-step latency sync_ps comes from */
    uint64_t step_ps;     /* n_writes x wire_ps + sync_ps */
    uint64_t transfer_ps; /* ring: a slice's transfer at a CTA's share of the links */
} CollEstimateStep;

typedef struct CollEstimate {
    CollOp op;
    uint64_t n_bytes; /* nccl-tests' size, rounded as coll_run rounds it */
    CollAlgo algo;    /* NCCL's choice, or the call's */
    CollProto proto;
    CollTunePlan plan;
    uint32_t n_ranks, n_nodes, ppn;

    uint64_t setup_ps;
    uint64_t sync_ps; /* NVLS's synchronisation before the first step */

    CollEstimateStep intra, inter; /* NVLS: intra is one GPU-switch hop */
    uint64_t latency_ps;           /* all steps x their latency */
    uint64_t n_loops;              /* ring: chunks of a segment, each its steps again */
    uint64_t step_copy_ps;         /* ring: one step's copies, its share of the bandwidth */
    uint64_t latency_exposed_ps;   /* ring: transfer and latency beyond the copies, each loop;
                                      else all */

    double factor;              /* bytes a rank sends per byte of the call */
    uint64_t moved_bytes;       /* factor x n_bytes */
    uint64_t nvlink_bytes;      /* of them through the GPU's links in its node (busiest rank) */
    uint64_t nic_bytes;         /* through its NICs (busiest rank) */
    uint32_t n_ctas;            /* CTAs copying a rank's bytes side by side, one direction */
    uint64_t cta_bytes;         /* what one of them copies */
    double channel_bytes_per_s; /* one CTA's cap (NCCL's per-channel rate); 0: none */
    double wire_factor;         /* wire bytes per data byte: protocol lines, NVLS efficiency */
    double nic_wire_factor;     /* the same through the NICs (NVLS-tree: 1, no switch there) */
    double nvlink_bytes_per_s;  /* the GPU's links in its node, less packet headers */
    double nic_bytes_per_s;     /* the path to a rank of another node, less headers */
    uint32_t n_nvlinks;         /* links of the GPU counted in nvlink_bytes_per_s */
    const TopoLink *node_link;  /* direct: the busiest link of rank 0's routes in its node */
    double node_link_share;     /* the part of nvlink_bytes it carries */
    uint64_t channels_ps, nvlink_ps, nic_ps;
    CollBound bound;
    uint64_t bandwidth_ps; /* the largest of the three */

    uint32_t n_fill_hops;  /* hops of a chain before its last rank starts */
    uint64_t slice_ps;     /* a slice over a hop inside a node, sharing its links */
    uint64_t net_slice_ps; /* and over the NICs, for hops between nodes */
    uint32_t n_fill_ctas;  /* CTAs whose slices share a hop's links as the chain fills */
    uint64_t fill_bytes;   /* a slice (NVLS: a window of chunks) */
    uint64_t fill_ps;      /* n_fill_hops slices (over the NICs for hops between nodes) */

    uint64_t n_fenced;      /* Simple's writes a CTA waits for inside a node */
    uint64_t fence_wire_ps; /* the wire each waits for (direct: to the farthest peer) */
    uint64_t fence_op_ps;   /* what each costs beyond the CTA's copy */
    uint64_t fence_ps;      /* exposed in all */

    uint64_t n_windows;      /* direct between nodes: windows of slots but the last */
    uint32_t n_slots;        /* slots a window */
    uint64_t window_dead_ps; /* each: a chunk's round trip beyond the window's wire */
    uint64_t slots_ps;       /* exposed in all */

    uint64_t reduce_bytes;      /* a rank reduces */
    uint64_t reduce_last_bytes; /* of them in steps that send nothing to hide it behind */
    uint64_t stream_bytes_per_s;
    uint64_t reduce_ps;         /* 2 x reduce_bytes at the streaming rate */
    uint64_t reduce_exposed_ps; /* beyond the copies of the same steps */

    uint64_t kernel_ps; /* the sum of the terms (exposed parts) */
} CollEstimate;

/* Estimates call on comm as coll_run would run it (the same choice of
 * algorithm, protocol and plan). False and error where coll_run would fail
 * to choose (an algorithm or protocol NCCL cannot run), for an algorithm
 * the simulation does not lay out, and on a loopback system. */
bool coll_estimate(const CollComm *comm, const CollCall *call, CollEstimate *est, GError **error);

/* "CTAs", "node's links", "NICs", "switch planes". */
const char *coll_bound_name(CollBound bound);
