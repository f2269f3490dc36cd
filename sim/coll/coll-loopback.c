/* SPDX-License-Identifier: Apache-2.0 */
/* The loopback kernel's closed form (see coll-loopback.h): each rank's
 * n_bytes / K in loops of min(slot, what is left), each loop a chain of
 * steps hops. Times in ps, rounded as the network engines round each
 * serialization. */
#include "coll/coll-loopback.h"

#include <glib.h>

#include "core/core-time.h"

#define FLAG_BYTES 8

static uint64_t
n_steps(CollOp op, uint32_t n_ranks)
{
    return op == COLL_OP_ALL_REDUCE ? 2 * (uint64_t)(n_ranks - 1) : n_ranks - 1;
}

uint64_t
coll_loopback_hop_ps(const HwLoopback *lb, uint64_t c)
{
    uint64_t rate = lb->cta_bytes_per_s, path_ps = 2 * lb->port.latency_ps;
    return sim_serialization_ps(c, rate) +
           sim_serialization_ps(MIN(c, lb->port.sm_payload_bytes), rate) +
           2 * sim_serialization_ps(FLAG_BYTES, rate) + 2 * path_ps + lb->step_overhead_ps;
}

uint64_t
coll_loopback_time_ps(const HwLoopback *lb, CollOp op, uint32_t n_ranks, uint64_t n_bytes)
{
    g_return_val_if_fail(n_ranks >= 2, 0);
    uint64_t seg = n_bytes / n_ranks, steps = n_steps(op, n_ranks), t = lb->launch_ps;
    for (uint64_t off = 0; off < seg; off += lb->slot_bytes)
        t += steps * coll_loopback_hop_ps(lb, MIN(lb->slot_bytes, seg - off));
    return t;
}

void
coll_loopback_terms(const HwLoopback *lb, CollOp op, uint32_t n_ranks, uint64_t n_bytes,
                    CollLoopbackTerms *terms)
{
    g_return_if_fail(n_ranks >= 2);
    uint64_t seg = n_bytes / n_ranks, steps = n_steps(op, n_ranks);
    *terms = (CollLoopbackTerms){0};
    for (uint64_t off = 0; off < seg; off += lb->slot_bytes) {
        uint64_t c = MIN(lb->slot_bytes, seg - off);
        terms->wire_bytes +=
            (double)steps * (double)(c + MIN(c, lb->port.sm_payload_bytes) + 2 * FLAG_BYTES);
        terms->n_hops += (double)steps;
    }
}
