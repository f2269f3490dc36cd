/* SPDX-License-Identifier: Apache-2.0 */
/* Random traffic for the flow engine's reference tests (test-net-rates:
 * incremental against full max-min; test-net-planes: plane groups against
 * one flow a plane): transfers drawn between GPUs, run at flow fidelity,
 * their landing times returned. */
#pragma once

#include <glib.h>

#include "net/net.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

typedef struct TrafficXfer {
    uint32_t src, dst; /* vertices */
    uint64_t n_bytes;
    uint64_t start_ps;
    uint64_t max_bytes_per_s; /* 0: not paced */
    uint32_t queue;           /* 0: none */
    NetIssuer issuer;
} TrafficXfer;

/* n transfers among graph's first n_gpus GPUs over 40 us, each of a
 * multiple of unit bytes from min_bytes up to (not including) max_bytes:
 * a third paced (1 to 20 GB/s), a fifth in one of four send queues, half
 * SM-issued. */
void traffic_random(GRand *rng, const TopoGraph *graph, uint32_t n_gpus, uint64_t min_bytes,
                    uint64_t max_bytes, uint64_t unit, TrafficXfer *xfers, uint32_t n);

/* Runs the n transfers (sprayed) at flow fidelity with options: each one's
 * landing in done_ps[i], the engine's counts in stats. Checks that every
 * transfer landed once and the run drained. */
void traffic_run(const TopoGraph *graph, const TopoRouter *router, const TrafficXfer *xfers,
                 uint32_t n, const NetOptions *options, uint64_t *done_ps, NetStats *stats);
