/* SPDX-License-Identifier: Apache-2.0 */
/* Probes: run a set of concurrent transfers on a fresh engine and network
 * and report when each landed. The building block of p2p matrices, size
 * sweeps and the engines' agreement tests.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "net/net.h"

typedef struct NetProbeXfer {
    uint32_t src, dst; /* endpoint vertices */
    uint64_t n_bytes;
} NetProbeXfer;

typedef struct NetProbeResult {
    uint64_t last_done_ps; /* when the last transfer landed (all start at 0) */
    NetStats stats;
    uint64_t n_events;   /* engine events executed */
    uint64_t trace_hash; /* sim_engine_trace_hash at the end */
} NetProbeResult;

/* Starts every transfer at time 0 (issued by issuer, sprayed over their
 * routes) and runs until all have landed. done_ps, if not NULL, receives
 * each transfer's landing time. */
void net_probe_run(NetFidelity fidelity, const TopoGraph *graph, const TopoRouter *router,
                   const NetProbeXfer *xfers, size_t n_xfers, NetIssuer issuer, uint64_t *done_ps,
                   NetProbeResult *result);
