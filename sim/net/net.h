/* SPDX-License-Identifier: Apache-2.0 */
/* The one seam between traffic and the network: "move n_bytes from
 * endpoint src to endpoint dst, and schedule my handler when the last byte
 * has landed". Two engines implement it: the packet engine (packets,
 * per-hop serialization and latency, credits, crossbar arbitration) and the
 * flow engine (fluid flows, max-min fair sharing). Collectives and
 * workloads use only this header and never learn which engine runs them.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/core-engine.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

typedef enum NetFidelity {
    NET_FIDELITY_PACKET,
    NET_FIDELITY_FLOW,
} NetFidelity;

/* Who issues the traffic fixes the packet size: SM loads/stores carry at
 * most the link's sm_payload_bytes (128 B on NVLink), copy engines (DMA,
 * cudaMemcpy) ce_payload_bytes (256 B). */
typedef enum NetIssuer {
    NET_ISSUER_CE,
    NET_ISSUER_SM,
} NetIssuer;

#define NET_PATH_SPRAY UINT32_MAX

typedef struct NetSend {
    uint32_t src, dst; /* endpoint vertices (GPU or CPU) of the graph */
    uint64_t n_bytes;  /* payload */
    uint32_t channel;  /* the caller's tag (NCCL channel), kept in statistics */
    uint32_t path;     /* NET_PATH_SPRAY: over all paths by weight; else that path only */
    NetIssuer issuer;
    /* 0: the sender hands the network all n_bytes at once. Else it
     * produces them at this rate (a CTA copying into the peer's buffer):
     * no byte leaves before it is produced, n_bytes / max_bytes_per_s after
     * the send at the latest, so the transfer never goes faster however
     * idle the links are. */
    uint64_t max_bytes_per_s;
    /* 0: none. Else sends that share this queue go one after another in
     * the order sent (one CTA's or one queue pair's messages): each starts
     * once the one before it has left its source. Queues are small dense
     * numbers of the caller's (its connections). */
    uint32_t queue;
    /* 0 or 1: itself. Else it stands for this many identical sends from
     * and to the same endpoints, each in a queue of its own (channels
     * whose schedules are the same): the flow engine shares the links
     * among them as among that many flows, and on_done comes once, when
     * all have landed together. The packet engine takes 0 or 1 only. */
    uint32_t copies;
    SimHandlerId on_done; /* scheduled when the last byte lands: */
    uint32_t target;      /*   with this target */
    uint64_t cookie;      /*   and arg[0] = cookie, arg[1] = n_bytes */
} NetSend;

typedef struct NetStats {
    uint64_t n_sends;
    uint64_t n_sends_done;
    uint64_t payload_bytes_sent;      /* accepted by net_send */
    uint64_t payload_bytes_delivered; /* landed at destinations */
    uint64_t n_packets;               /* packet engine: packets delivered */
    uint64_t n_replays;               /* packet engine: CRC replays */
    uint64_t n_rate_updates;          /* flow engine: max-min recomputations */
    uint64_t n_rate_flows;            /* flow engine: flows they solved, in all */
    uint64_t n_rate_links;            /* flow engine: links they solved, in all */
} NetStats;

typedef struct NetModel NetModel;

/* The wire bytes (payload and headers) every link carried, in bins of
 * time, for utilization over time. When the run outlasts max_bins bins,
 * bin_ps doubles and neighbouring bins are summed: the bytes stay exact and
 * the memory n_links x max_bins. */
typedef struct NetLinkLoad {
    uint64_t bin_ps;
    uint32_t max_bins;
    uint32_t n_links;
    uint32_t n_bins;    /* bins time has reached so far */
    double *wire_bytes; /* [link * max_bins + bin] */
} NetLinkLoad;

NetLinkLoad *net_link_load_new(uint32_t n_links, uint64_t bin_ps, uint32_t max_bins);
void net_link_load_free(NetLinkLoad *load);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(NetLinkLoad, net_link_load_free)

/* Adds bytes to link, spread evenly over [t0_ps, t1_ps) (all in t0's bin
 * when t1_ps <= t0_ps). */
void net_link_load_add(NetLinkLoad *load, uint32_t link, double bytes, uint64_t t0_ps,
                       uint64_t t1_ps);

typedef struct NetOps {
    const char *name;
    void (*send)(NetModel *net, const NetSend *send);
    void (*get_stats)(const NetModel *net, NetStats *stats);
    void (*free)(NetModel *net);
    void (*set_link_load)(NetModel *net, NetLinkLoad *load);
    void (*describe_stuck)(const NetModel *net, GString *out, guint max_links);
} NetOps;

/* The part every engine shares; engines embed it first. */
struct NetModel {
    const NetOps *ops;
    SimEngine *engine;        /* borrowed */
    const TopoGraph *graph;   /* borrowed */
    const TopoRouter *router; /* borrowed */
};

/* How the flow engine re-solves rates after a change. Incremental solves
 * only the flows the change can reach; full, every flow (the reference
 * tests compare with); checked runs incremental and, after every
 * recomputation, solves every flow too and aborts on a rate that is not
 * the same double. */
typedef enum NetFlowRates {
    NET_FLOW_RATES_INCREMENTAL,
    NET_FLOW_RATES_FULL,
    NET_FLOW_RATES_CHECKED,
} NetFlowRates;

typedef struct NetOptions {
    uint64_t seed;           /* packet engine: CRC error draws */
    NetFlowRates flow_rates; /* flow engine */
    /* Flow engine: one flow per path of a spray, never a lumped one over
     * its parallel planes (net-flow-planes.c; the reference tests compare
     * the lumped one with). */
    bool flow_planes_apart;
    /* Flow engine: every route's link l is link_rep[l] instead ([links],
     * borrowed; NULL: itself), a folded collective's class of symmetric
     * links standing as one (coll-exec-fold.c). The packet engine
     * refuses it. */
    const uint32_t *link_rep;
} NetOptions;

/* Creates an engine of the given fidelity on engine/graph/router (all
 * borrowed; they must outlive it). Registers its handlers with engine. */
NetModel *net_new(NetFidelity fidelity, SimEngine *engine, const TopoGraph *graph,
                  const TopoRouter *router, const NetOptions *options);

/* Queues a transfer at the current simulated time. src and dst must be
 * distinct endpoints joined by a route (a bug otherwise). Zero bytes
 * completes after the path latency of an empty packet. */
static inline void
net_send(NetModel *net, const NetSend *send)
{
    net->ops->send(net, send);
}

static inline void
net_get_stats(const NetModel *net, NetStats *stats)
{
    net->ops->get_stats(net, stats);
}

void net_free(NetModel *net);

/* Counts every link's wire bytes into load (borrowed; NULL stops) from now
 * on: the flow engine as its flows drain, the packet engine as each packet
 * starts on a link. */
void net_set_link_load(NetModel *net, NetLinkLoad *load);

/* For a stalled run: appends to out the links that still hold data, up to
 * max_links of them ("; gpu 0 -> nvswitch 1: ..."), each with what waits
 * there (the packet engine: queued packets and streams, credits held of the
 * buffer; the flow engine: unfinished flows, their bytes and rates), and
 * how many more there are. Appends nothing when every byte has landed. */
void net_describe_stuck(const NetModel *net, GString *out, guint max_links);

/* "gpu 3 -> nvswitch 1": the ends of link l, for messages. */
void net_describe_link(const TopoGraph *graph, uint32_t link, GString *out);

/* For the engines' describe_stuck: counts a stuck link in *n and, while
 * fewer than max_links are named, appends "; A -> B: " and returns true
 * (the engine then says what waits there). net_stuck_end appends "; and N
 * more links" for those left unnamed. */
bool net_stuck_link(const TopoGraph *graph, uint32_t link, GString *out, guint *n, guint max_links);
void net_stuck_end(GString *out, guint n, guint max_links);

/* Parses "packet" or "flow"; false if neither. */
bool net_fidelity_parse(const char *text, NetFidelity *fidelity);
const char *net_fidelity_name(NetFidelity fidelity);

/* Overhead bytes of one packet on link for issuer (SM writes may carry
 * more than the header flit). */
static inline uint64_t
net_header_bytes(const HwLink *link, NetIssuer issuer)
{
    return issuer == NET_ISSUER_SM && link->sm_header_bytes > 0 ? link->sm_header_bytes
                                                                : link->header_bytes;
}

/* Largest payload of one packet on link for issuer. */
static inline uint64_t
net_payload_bytes(const HwLink *link, NetIssuer issuer)
{
    return issuer == NET_ISSUER_SM ? link->sm_payload_bytes : link->ce_payload_bytes;
}

/* The header a packet of payload_bytes carries on link: the link's own,
 * or its share of it where payload_bytes is smaller than the link's
 * packets (a NIC filling MTU-sized network packets from smaller PCIe
 * ones), rounded up. */
uint64_t net_header_share_bytes(const HwLink *link, NetIssuer issuer, uint64_t payload_bytes);

/* Whether the receiver of link holds a packet's credits until the packet
 * leaves it (the input buffer of a switch, a PCIe switch, a fabric switch,
 * memory) rather than giving them back on arrival (a GPU, NIC or CPU takes
 * the packet into its own memory). */
bool net_link_holds_credits(const TopoGraph *graph, uint32_t link);

/* Link-level credits bound a stream of packets of wire_bytes on link to
 * the packets its receive buffer holds (*n_in_flight of them) per credit
 * round trip (the packet's serialization, the latency there, the far
 * vertex's when it holds the credits, the latency back): the factor (>= 1)
 * by which that bound is below the link's rate; 1 where the buffer covers
 * the round trip or the link has no flow control (*n_in_flight then
 * UINT64_MAX). A stream of no more packets than the buffer holds never
 * waits for credits. */
double net_credit_slowdown(const TopoGraph *graph, uint32_t link, uint64_t wire_bytes,
                           uint64_t *n_in_flight);
