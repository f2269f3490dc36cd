/* SPDX-License-Identifier: Apache-2.0 */
/* The packet engine's state, shared by its behaviour (net-packet.c: the
 * links' queues, hops, credits and sends) and its building from the graph
 * (net-packet-build.c). Internal to sim/net: parallel arrays by link
 * direction and by virtual output queue, pools of packets, streams and
 * transfers. Times in ps, sizes in bytes.
 */
#pragma once

#include "core/core-engine.h"
#include "core/core-rng.h"
#include "net/net-credit.h"
#include "net/net-pool.h"
#include "net/net.h"

#define NONE UINT32_MAX

/* All events of this engine and the completions it schedules run in phase
 * 0, as the flow engine's completions do. */
enum { PHASE = 0 };

/* A packet between hops, waiting in a virtual output queue. */
typedef struct Packet {
    uint32_t next;          /* next in its queue, or in the free list */
    uint32_t stream;        /* whose path it follows */
    uint64_t ready_ps;      /* landed at the vertex plus its latency */
    uint32_t payload_bytes; /* as cut at the source */
    uint32_t hop;           /* the hop it waits for (index into the path) */
    uint32_t in_link;       /* the link it came in on: it holds credits of it */
    uint32_t credits_held;
} Packet;

/* One path's share of a transfer: cut into packets as its first link asks. */
typedef struct Stream {
    uint32_t next; /* next stream in its source queue, or in the free list */
    uint32_t xfer;
    uint64_t bytes_left; /* not yet cut */
    uint64_t n_uncut;    /* packets not yet cut */
    uint64_t n_unlanded; /* packets whose last hop has not started */
    /* A paced transfer (NetSend.max_bytes_per_s): the stream's bytes are
     * produced at its share of the rate, pace_total_bytes every
     * pace_bytes_per_s from pace_start_ps on, and its next packet may go
     * once its last byte is: at ready_ps (0 when not paced). */
    uint64_t ready_ps;
    uint64_t pace_start_ps, pace_bytes_per_s, pace_total_bytes, n_bytes;
    uint32_t payload_bytes;
    uint32_t n_hops;
    uint32_t link[TOPO_MAX_HOPS];
    /* Header a packet carries on each hop: the link's own, or its share of
     * it where the link packs larger packets (a NIC filling MTU-sized
     * network packets from smaller PCIe ones), as the flow engine charges. */
    uint16_t header_bytes[TOPO_MAX_HOPS];
} Stream;

typedef struct Xfer {
    uint32_t next;       /* free list */
    NetSend send;        /* as asked: a send waiting in its queue starts from it */
    uint32_t queue_next; /* the send waiting behind it in its queue, or NONE */
    uint32_t n_uncut_streams;
    uint64_t n_packets;
    uint64_t n_unlanded;
    uint64_t last_landed_ps;
} Xfer;

typedef struct NetPacket {
    NetModel base;
    SimHandlerId wake_handler, done_handler, turn_handler;
    uint32_t *queue_tail; /* per send queue, the last send in it not all cut, or NONE */
    uint32_t n_queues;
    uint32_t n_links;
    /* Per link direction, from the graph. */
    uint64_t *bytes_per_s;
    uint64_t *latency_ps;
    uint64_t *ready_delay_ps; /* link latency plus the latency of its far vertex */
    bool *switch_far;         /* its far vertex is a switch: credits held until the packet leaves */
    uint64_t *replay_ps;
    double *error_rate;
    /* Its block of queues: one per input port of its source vertex, then
     * one for the vertex's own traffic. */
    uint32_t *voq_base, *n_voqs;
    uint32_t *mask_base;    /* its words of the non-empty-queue bitmap */
    uint32_t *in_port;      /* its input port at its far vertex */
    uint64_t *lookahead_ps; /* how far ahead of the clock it may decide (see init_lookahead) */
    /* Per link direction, state. */
    uint64_t *busy_until_ps;
    uint64_t *wake_ps;                       /* the pending wake event's time, or SIM_TIME_NEVER */
    uint32_t *rr_next;                       /* the queue round robin tries first */
    bool *source_served;                     /* the head of its source queue was served last */
    uint32_t *n_active;                      /* non-empty queues */
    uint32_t *n_paced;                       /* paced streams in its source queue */
    uint64_t *memo_wire_bytes, *memo_ser_ps; /* last packet size seen: most are full */
    int64_t *memo_credits;
    NetCredits credits;
    SimRng *rng;
    uint64_t *n_link_packets, *link_wire_bytes, *n_link_replays;
    /* Per virtual output queue: packets (or, for a source queue, streams). */
    uint32_t *voq_head, *voq_tail;
    uint64_t *voq_ready_ps; /* the head packet's ready time: arbitration reads only this */
    uint64_t *active_mask;
    NetPool packets, streams, xfers;
    NetStats stats;
    NetLinkLoad *load; /* borrowed; NULL when not counting */
} NetPacket;

static inline Packet *
packet_at(const NetPacket *np, uint32_t id)
{
    return (Packet *)np->packets.items + id;
}

static inline Stream *
stream_at(const NetPacket *np, uint32_t id)
{
    return (Stream *)np->streams.items + id;
}

static inline Xfer *
xfer_at(const NetPacket *np, uint32_t id)
{
    return (Xfer *)np->xfers.items + id;
}

/* net-packet.c: the interface's send, and the engine's event handlers
 * registered with np->base.engine. */
void net_packet_send(NetModel *net, const NetSend *send);
void net_packet_register_handlers(NetPacket *np);
