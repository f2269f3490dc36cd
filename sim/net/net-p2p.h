/* SPDX-License-Identifier: Apache-2.0 */
/* Peer-to-peer copies as CUDA's p2pBandwidthLatencyTest makes them: one
 * GPU copies n bytes to another (unidirectional), both copy to each other
 * at once (bidirectional), or, with peer access disabled, the copy is
 * staged through the source GPU's host memory (device to host and host to
 * device legs, pipelined, so the slower leg sets the pace). A relayed copy
 * (Tartan's variant of the test for GPUs without a direct NVLink) is two
 * copies one after the other through the lowest-numbered GPU that has
 * NVLink to both; its bidirectional form runs the two directions one after
 * the other too, as that test's figures show (the total equals the one-way
 * figure).
 *
 * Every copy costs copy_overhead_ps on top of its transfer: the fixed cost
 * of a cudaMemcpyPeer (API call, DMA setup, completion), a property of the
 * GPU's software stack given by the system model.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "net/net.h"

typedef enum NetP2pKind {
    NET_P2P_UNIDIRECTIONAL,
    NET_P2P_BIDIRECTIONAL,
    NET_P2P_VIA_HOST,
    NET_P2P_RELAY,
    NET_P2P_RELAY_BIDIRECTIONAL,
} NetP2pKind;

/* Copies already simulated, by what of the graph they touch: a copy (one
 * way or both) runs alone on a fresh network, so its time depends only on
 * the links its routes cross (and their reverses, which carry credits),
 * their ends, and the order of their numbers; copies whose touched parts
 * are alike in all of that (a fabric's symmetry: every pair of a GB200
 * NVL72 rack through the same 18 switches) take the time of the first.
 * One thread at a time. */
typedef struct NetP2pMemo NetP2pMemo;
NetP2pMemo *net_p2p_memo_new(void);
void net_p2p_memo_free(NetP2pMemo *memo);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(NetP2pMemo, net_p2p_memo_free)
/* Copies simulated, and copies answered from the memo. */
void net_p2p_memo_counts(const NetP2pMemo *memo, uint64_t *n_simulated, uint64_t *n_found);

typedef struct NetP2p {
    NetFidelity fidelity;
    NetIssuer issuer; /* copy engines, as cudaMemcpyPeer uses */
    uint64_t copy_overhead_ps;
    const TopoGraph *graph;
    const TopoRouter *router;
    NetP2pMemo *memo; /* or NULL: every copy simulated */
} NetP2p;

/* Simulated time in ps for the copy of n_bytes between global GPUs a and b
 * (a != b). For the bidirectional kinds, both directions move n_bytes. A
 * relay between GPUs with no common NVLink neighbour falls back to a direct
 * copy. */
uint64_t net_p2p_time_ps(const NetP2p *p2p, NetP2pKind kind, uint32_t a, uint32_t b,
                         uint64_t n_bytes);

/* Bandwidth in bytes/s the test reports for that copy: n_bytes (2 × n_bytes
 * for the bidirectional kinds) over the time. */
double net_p2p_bandwidth(const NetP2p *p2p, NetP2pKind kind, uint32_t a, uint32_t b,
                         uint64_t n_bytes);

/* Whether a and b reach each other over NVLink (else peer copies cross
 * PCIe and the host). */
bool net_p2p_nvlink(const NetP2p *p2p, uint32_t a, uint32_t b);

/* Whether a copy from a to b can be staged through a's host memory: the
 * graph has a route to a's nearest CPU and from it to b (a GB200 tray's
 * Grace reaches only its own GPUs). */
bool net_p2p_via_host_routed(const NetP2p *p2p, uint32_t a, uint32_t b);
