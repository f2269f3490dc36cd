/* SPDX-License-Identifier: Apache-2.0 */
/* The flow engine's state, shared by its behaviour (net-flow.c: sends,
 * queues, drains) and its max-min solver (net-flow-rates.c). Internal to
 * sim/net. Times in ps, rates in bytes/s, per-hop weights in wire bytes per
 * payload byte.
 */
#pragma once

#include "net/net.h"

#define DEAD UINT32_MAX

typedef struct FlowXfer {
    uint64_t cookie;
    uint64_t n_bytes;
    /* What its flows are cut again from when lumped planes part. */
    uint32_t src, dst;
    NetIssuer issuer;
    uint64_t max_bytes_per_s;
    uint64_t packet_bytes;
    uint32_t copies; /* identical sends it stands for (NetSend.copies, at least 1) */
    uint64_t done_ps;
    SimHandlerId on_done;
    uint32_t target;
    uint32_t n_left;     /* flows still draining; next free record when unused */
    uint32_t queue;      /* its send queue, 0: none */
    uint32_t queue_next; /* the send waiting behind it in its queue, or DEAD */
    uint32_t waiting;    /* while it waits its turn, its send in waiting[]; else DEAD */
} FlowXfer;

/* One hop of a flow: the resource it shares there (a link, or a plane
 * group: see net-flow-planes.c) and the wire bytes per payload byte there;
 * local is the resource's index among those the flows cross, set by each
 * recomputation. */
typedef struct FlowHop {
    uint32_t link; /* resource: a link below n_links, else group link - n_links */
    uint32_t local;
    float weight;
} FlowHop;

typedef struct Flow {
    double remaining_bytes;
    double rate_bytes_per_s;
    double cap_bytes_per_s; /* its share of a paced send's rate; 0: none */
    uint64_t tail_ps;
    uint64_t bottleneck_ser_ps; /* what tail_ps leaves out for the drain */
    uint32_t xfer;              /* DEAD once drained */
    uint32_t hop0;              /* first of its n_hops in hops */
    uint32_t n_hops;
    bool lumped;     /* all the planes of its send, over plane groups */
    uint32_t copies; /* identical flows it stands for: its rate is each one's */
} Flow;

/* A link's credit bound for packets of wire_bytes (net_credit_slowdown). */
typedef struct CreditMemo {
    uint64_t wire_bytes, in_flight;
    double slowdown;
} CreditMemo;

typedef struct NetFlow {
    NetModel base;
    NetFlowRates rates_mode;
    SimHandlerId rates_handler, drain_handler;
    FlowXfer *xfers;
    uint32_t n_xfers, cap_xfers, free_xfer;
    /* Per send queue, the last send in it (DEAD: none is waiting or
     * draining), and the sends whose turn came, to start. */
    uint32_t *queue_tail;
    uint32_t n_queues;
    uint32_t *turn;
    uint32_t n_turn, cap_turn;
    /* The sends waiting their turn, as asked (a free list through .target). */
    NetSend *waiting;
    uint32_t n_waiting, cap_waiting, free_waiting;
    Flow *flows;
    uint32_t n_flows, cap_flows;
    FlowHop *hops;
    size_t n_hops, cap_hops;
    /* Resources: the n_links links, then the plane groups (at most
     * n_links / 2: a link is in one group, a group has two or more);
     * arrays per resource hold n_res_max. */
    uint32_t n_links, n_res_max;
    uint32_t n_groups;
    uint32_t *group_first, *group_len; /* [groups]: its members in group_member */
    uint32_t *group_member;            /* [n_links] */
    double *group_bytes_per_s;         /* [groups]: its members' capacity together */
    uint32_t *link_mode;               /* [n_links]: LINK_UNUSED, LINK_SOLO or its group */
    bool planes_apart;                 /* one flow per path: asked, or since a conflict */
    const uint32_t *link_rep;          /* NetOptions.link_rep */
    GHashTable *lumped_routes;         /* src << 32 | dst -> its lumped resources */
    /* Per resource the flows cross (local index), rebuilt by each
     * recomputation, so that its cost follows the flows, not the graph. */
    uint32_t *link_local; /* [n_links]: local index, or DEAD when no flow crosses it */
    uint32_t *touched;    /* [n_touched]: the links crossed, by local index */
    uint32_t n_touched;
    double *rem_bytes_per_s;
    double *weight_sum;
    uint32_t *csr_start; /* [n_touched + 1] */
    uint32_t *csr_flow;
    /* The component being solved: its links (local indices) and flows,
     * each in increasing order once picked, and what this recomputation
     * has picked so far. */
    uint32_t *active_links;
    uint32_t *picked_flows;
    uint32_t n_picked_flows;
    uint8_t *link_picked; /* [n_touched] */
    uint8_t *flow_picked; /* [n_flows] */
    /* The links a flow started or ended on since the last recomputation. */
    uint32_t *changed;
    uint32_t n_changed;
    uint8_t *link_changed; /* [n_links] */
    double *check_rates;   /* NET_FLOW_RATES_CHECKED: the incremental rates */
    uint32_t *capped;      /* flows with a cap, by cap, for each recomputation */
    uint32_t cap_capped;
    uint32_t n_capped_flows; /* of the flows not yet compacted away */
    /* Per link, the last packet size its credit bound was worked out for
     * (one record a link: a send's hops miss the cache once each). */
    CreditMemo *credit_memo;
    uint8_t *frozen;
    uint32_t cap_flow_scratch; /* of frozen, flow_picked, picked_flows, check_rates */
    uint64_t last_update_ps;
    bool rates_pending;
    uint64_t drain_generation;
    NetStats stats;
    NetLinkLoad *load; /* borrowed; NULL when not counting */
} NetFlow;

#define LINK_UNUSED UINT32_MAX
#define LINK_SOLO (UINT32_MAX - 1)

/* A resource's capacity: its link's, or its group's members' together. */
static inline double
net_flow_res_bytes_per_s(const NetFlow *nf, uint32_t res)
{
    if (res < nf->n_links)
        return (double)topo_graph_link(nf->base.graph, res)->bytes_per_s;
    return nf->group_bytes_per_s[res - nf->n_links];
}

/* The links of resource *res: itself (n 1), or its group's members. */
static inline const uint32_t *
net_flow_res_links(const NetFlow *nf, const uint32_t *res, uint32_t *n)
{
    if (*res < nf->n_links) {
        *n = 1;
        return res;
    }
    uint32_t g = *res - nf->n_links;
    *n = nf->group_len[g];
    return &nf->group_member[nf->group_first[g]];
}

/* Plane groups (net-flow-planes.c). Lumps the paths first..last-1 of
 * route (from vertex src to dst: a spray's, all of them) hop by hop into res[] (a shared link, or the group of the
 * parallel links there, made if new) and returns true; false when they
 * cannot be lumped (not parallel paths of like links) or a link of them
 * is already used otherwise (*conflict then). */
bool net_flow_lump_route(NetFlow *nf, uint32_t src, uint32_t dst, const TopoRoute *route,
                         uint32_t first, uint32_t last, uint32_t *res, bool *conflict);
/* Claims the links of paths first..last-1 for flows of their own; false
 * (claiming nothing) when one is in a group. */
bool net_flow_claim_solo(NetFlow *nf, const TopoRoute *route, uint32_t first, uint32_t last);
void net_flow_planes_init(NetFlow *nf);
void net_flow_planes_free(NetFlow *nf);

/* Notes that the flows crossing link changed (one started or ended), so
 * that the next recomputation solves the flows it can reach. */
static inline void
net_flow_mark_changed(NetFlow *nf, uint32_t link)
{
    if (nf->link_changed[link])
        return;
    nf->link_changed[link] = 1;
    nf->changed[nf->n_changed++] = link;
}

/* Re-solves max-min over the live flows (compacted, none drained) after
 * the changes marked since the last call, as nf->rates_mode says; counts
 * the recomputation and what it solved in nf->stats. */
void net_flow_solve_rates(NetFlow *nf);
