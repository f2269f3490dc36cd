/* SPDX-License-Identifier: Apache-2.0 */
/* The closed form of nvlsim-bench's loopback kernel (virtual ranks on one
 * GPU, hw-loopback.h), which the simulation of a loopback system equals to
 * the picosecond (tests/coll/test-coll-loopback.c): every step forwards one
 * chunk of at most a slot, with no slices, so a loop over the buffer is a
 * chain of hops and loops never overlap. A hop of c bytes costs
 *     h(c) = c / B + min(c, 128 B) / B + 2 x 8 B / B + 2 L + step_overhead
 * (B: one CTA's rate; L: a path's latency, two ports; the 128 B store and the
 * 8 B flag cross the second port after the first), and a call
 *     T = launch + steps x sum over loops of h(chunk)
 * with steps = 2(K - 1) for all_reduce and K - 1 for all_gather. */
#pragma once

#include <stdint.h>

#include "coll/coll.h"
#include "hw/hw-loopback.h"

/* h(c) in ps: one hop of a chunk of c bytes. */
uint64_t coll_loopback_hop_ps(const HwLoopback *lb, uint64_t c);

/* T in ps for op (all_reduce or all_gather) over n_ranks and n_bytes
 * (nccl-tests' size; each rank owns n_bytes / n_ranks). */
uint64_t coll_loopback_time_ps(const HwLoopback *lb, CollOp op, uint32_t n_ranks, uint64_t n_bytes);

/* The same form as what multiplies each cost, for fitting them:
 *     T = launch + wire_bytes / B + n_hops x (2 L + step_overhead)
 * (up to the rounding of each serialization to whole ps). */
typedef struct CollLoopbackTerms {
    double wire_bytes; /* bytes every hop puts on the CTA's port, summed */
    double n_hops;     /* steps x loops */
} CollLoopbackTerms;
void coll_loopback_terms(const HwLoopback *lb, CollOp op, uint32_t n_ranks, uint64_t n_bytes,
                         CollLoopbackTerms *terms);
