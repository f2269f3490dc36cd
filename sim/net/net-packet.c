/* SPDX-License-Identifier: Apache-2.0 */
/* The packet engine: NVLink/NVSwitch traffic packet by packet. A transfer is
 * cut into packets (payload at most the issuer's packet size on the
 * narrowest link of its paths; each link adds its own header); a link
 * direction serializes one packet at a time at its bundle rate, the packet
 * lands one link latency later and, at a switch, NIC or CPU, may leave a
 * vertex latency after that (store and forward per packet). A sender holds
 * credits for its receiver's buffer, given back when the packet leaves that
 * buffer plus the link latency. Switches are input-queued crossbars with a
 * virtual output queue per (input, output) and round-robin arbitration;
 * a source GPU serves its transfers round robin on each of its links. CRC
 * errors stall the link for a replay and resend the one packet. A paced
 * stream cuts a packet only once the sender has produced its bytes; a send
 * in a queue starts when the one before it has been cut whole.
 * Simplifications: a bundle is one wire of n× the rate; arbitration and
 * credits are per packet, not per flit. Times in ps, sizes in bytes.
 *
 * Event economy: a packet is not an event. When it starts a hop, the time
 * it will be ready at the far end is known, so it goes straight into the
 * next virtual output queue marked with that time; a link runs an event
 * ("wake") only when it must decide later (it is busy, its queued packets
 * are not ready yet, or it waits for credits). A last hop needs no event
 * at all: its landing time is known when it starts. A link out of a GPU
 * costs one event per packet it sends; a link out of a switch decides a
 * link latency's worth of packets per event, exactly (init_lookahead).
 */
#include "net/net-packet.h"

#include "core/core-debug.h"
#include "core/core-rng.h"
#include "core/core-time.h"
#include "net/net-packet-state.h"

/* ---- Wakes: at most one pending per link, the earliest asked for. ---- */

static inline void
wake_at(NetPacket *np, uint32_t l, uint64_t time_ps)
{
    /* A pending wake at or before time_ps will look again then; a later one
     * becomes stale (it only makes the link look once more). */
    if (np->wake_ps[l] <= time_ps)
        return;
    np->wake_ps[l] = time_ps;
    SimEvent *event = sim_engine_schedule(np->base.engine, time_ps, PHASE, np->wake_handler);
    event->target = l;
}

/* ---- Credits. ---- */

/* n_credits of link l reach its sender at time_ps. */
static inline void
credits_return(NetPacket *np, uint32_t l, uint64_t time_ps, uint64_t n_credits)
{
    if (net_credits_give(&np->credits, l, time_ps, n_credits))
        wake_at(np, l, time_ps);
}

/* Serialization time and credits of a packet of wire_bytes on link l. */
static inline void
link_cost(NetPacket *np, uint32_t l, uint64_t wire_bytes, uint64_t *ser_ps, int64_t *need)
{
    if (np->memo_wire_bytes[l] != wire_bytes) {
        np->memo_credits[l] = net_credits_for(&np->credits, l, wire_bytes);
        np->memo_ser_ps[l] = sim_serialization_ps(wire_bytes, np->bytes_per_s[l]);
        np->memo_wire_bytes[l] = wire_bytes;
    }
    *ser_ps = np->memo_ser_ps[l];
    *need = np->memo_credits[l];
}

/* ---- Virtual output queues. ---- */

static inline void
voq_mark(NetPacket *np, uint32_t l, uint32_t i, bool active)
{
    uint64_t *word = &np->active_mask[np->mask_base[l] + (i >> 6)];
    uint64_t bit = UINT64_C(1) << (i & 63);
    if (active) {
        *word |= bit;
        np->n_active[l]++;
    } else {
        *word &= ~bit;
        np->n_active[l]--;
    }
}

/* First set bit of mask in [from, end), or end. */
static inline uint32_t
next_bit(const uint64_t *mask, uint32_t from, uint32_t end)
{
    while (from < end) {
        uint64_t w = mask[from >> 6] >> (from & 63);
        if (w != 0)
            return MIN(from + (uint32_t)__builtin_ctzll(w), end);
        from = (from | 63) + 1;
    }
    return end;
}

/* The queue link l serves next: round robin over its non-empty queues from
 * rr_next, passing over heads not ready yet (the source's own queue is
 * ready at source_at_ps). Returns its index in l's block, or NONE and
 * the soonest ready time in *soonest_ps. */
static uint32_t
voq_scan(const NetPacket *np, uint32_t l, uint64_t now_ps, uint64_t source_at_ps,
         uint64_t *soonest_ps)
{
    uint32_t n = np->n_voqs[l], start = np->rr_next[l], base = np->voq_base[l];
    const uint64_t *mask = np->active_mask + np->mask_base[l];
    uint64_t soonest = SIM_TIME_NEVER;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t lo = pass == 0 ? start : 0, hi = pass == 0 ? n : start;
        for (uint32_t i = next_bit(mask, lo, hi); i < hi; i = next_bit(mask, i + 1, hi)) {
            uint64_t ready = i == n - 1 ? source_at_ps : np->voq_ready_ps[base + i];
            if (ready <= now_ps)
                return i;
            soonest = MIN(soonest, ready);
        }
    }
    *soonest_ps = soonest;
    return NONE;
}

static uint64_t source_ready_ps(NetPacket *np, uint32_t l, uint64_t now_ps);

/* voq_scan, the source's queue ready now unless it holds paced streams. */
static inline uint32_t
voq_pick(NetPacket *np, uint32_t l, uint64_t now_ps, uint64_t *soonest_ps)
{
    uint64_t source_ps = np->n_paced[l] > 0 ? source_ready_ps(np, l, now_ps) : 0;
    return voq_scan(np, l, now_ps, source_ps, soonest_ps);
}

static void
voq_push_packet(NetPacket *np, uint32_t l, uint32_t i, uint32_t p)
{
    uint32_t q = np->voq_base[l] + i;
    packet_at(np, p)->next = NONE;
    if (np->voq_head[q] == NONE) {
        np->voq_head[q] = p;
        np->voq_ready_ps[q] = packet_at(np, p)->ready_ps;
        voq_mark(np, l, i, true);
    } else {
        packet_at(np, np->voq_tail[q])->next = p;
    }
    np->voq_tail[q] = p;
}

static uint32_t
voq_pop_packet(NetPacket *np, uint32_t l, uint32_t i)
{
    uint32_t q = np->voq_base[l] + i;
    uint32_t p = np->voq_head[q];
    uint32_t next = packet_at(np, p)->next;
    np->voq_head[q] = next;
    if (next == NONE)
        voq_mark(np, l, i, false);
    else
        np->voq_ready_ps[q] = packet_at(np, next)->ready_ps;
    return p;
}

/* Appends stream s to the source queue of link l. */
static void
source_push(NetPacket *np, uint32_t l, uint32_t s)
{
    uint32_t i = np->n_voqs[l] - 1, q = np->voq_base[l] + i;
    if (stream_at(np, s)->pace_bytes_per_s > 0)
        np->n_paced[l]++;
    stream_at(np, s)->next = NONE;
    if (np->voq_head[q] == NONE) {
        np->voq_head[q] = s;
        voq_mark(np, l, i, true);
    } else {
        stream_at(np, np->voq_tail[q])->next = s;
    }
    np->voq_tail[q] = s;
}

/* Round robin among the streams of l's source queue: the stream served
 * last stays at the head until the next pick sends it to the back, so a
 * stream that joined in between is served next. */
static inline void
source_rotate(NetPacket *np, uint32_t l)
{
    if (!np->source_served[l])
        return;
    np->source_served[l] = false;
    uint32_t q = np->voq_base[l] + np->n_voqs[l] - 1;
    uint32_t s = np->voq_head[q];
    Stream *st = stream_at(np, s);
    if (st->next == NONE)
        return;
    np->voq_head[q] = st->next;
    st->next = NONE;
    stream_at(np, np->voq_tail[q])->next = s;
    np->voq_tail[q] = s;
}

/* When stream st may cut its next packet: when the packet's last byte has
 * been produced, for a paced stream (start + cut bytes x total / (its bytes
 * x rate), rounded up to the ps), else at once. */
static uint64_t
stream_ready_ps(const Stream *st)
{
    if (st->pace_bytes_per_s == 0)
        return 0;
    uint64_t next = st->n_uncut == 1 ? st->bytes_left : st->payload_bytes;
    unsigned __int128 num = (unsigned __int128)(st->n_bytes - st->bytes_left + next) *
                            st->pace_total_bytes * SIM_PS_PER_S;
    unsigned __int128 den = (unsigned __int128)st->n_bytes * st->pace_bytes_per_s;
    return st->pace_start_ps + (uint64_t)((num + den - 1) / den);
}

/* Round robin among the ready streams of l's source queue: the first ready
 * at now_ps goes to the head (those it passes keep their places in front of
 * it) and its time is returned; when none is, the soonest time one will be.
 * Streams not paced are always ready: the head, in O(1). */
static uint64_t
source_ready_ps(NetPacket *np, uint32_t l, uint64_t now_ps)
{
    source_rotate(np, l);
    uint32_t q = np->voq_base[l] + np->n_voqs[l] - 1;
    uint32_t s = np->voq_head[q];
    if (stream_at(np, s)->ready_ps <= now_ps)
        return stream_at(np, s)->ready_ps;
    uint64_t soonest = stream_at(np, s)->ready_ps;
    for (uint32_t prev = s, t = stream_at(np, s)->next; t != NONE;
         prev = t, t = stream_at(np, t)->next) {
        Stream *st = stream_at(np, t);
        if (st->ready_ps > now_ps) {
            soonest = MIN(soonest, st->ready_ps);
            continue;
        }
        stream_at(np, prev)->next = st->next;
        if (np->voq_tail[q] == t)
            np->voq_tail[q] = prev;
        st->next = np->voq_head[q];
        np->voq_head[q] = t;
        return st->ready_ps;
    }
    return soonest;
}

/* Cuts the next packet from the stream at the head of l's source queue.
 * Returns the stream; *payload_bytes gets the packet's payload. */
static uint32_t
source_cut(NetPacket *np, uint32_t l, uint64_t *payload_bytes)
{
    uint32_t i = np->n_voqs[l] - 1, q = np->voq_base[l] + i;
    uint32_t s = np->voq_head[q];
    Stream *st = stream_at(np, s);
    uint64_t payload = st->n_uncut == 1 ? st->bytes_left : st->payload_bytes;
    st->bytes_left -= payload;
    st->n_uncut--;
    *payload_bytes = payload;
    if (st->n_uncut > 0) {
        if (st->pace_bytes_per_s > 0)
            st->ready_ps = stream_ready_ps(st);
        np->source_served[l] = true;
        return s;
    }
    np->voq_head[q] = st->next;
    if (np->voq_head[q] == NONE)
        voq_mark(np, l, i, false);
    if (st->pace_bytes_per_s > 0)
        np->n_paced[l]--;
    return s;
}

/* Every packet of send x has been cut at time_ps: it has left its source,
 * and the send waiting behind it in its queue starts then (by an event:
 * the link deciding now may be the one it starts on). */
static void
xfer_left_source(NetPacket *np, uint32_t x, uint64_t time_ps)
{
    Xfer *xf = xfer_at(np, x);
    uint32_t q = xf->send.queue;
    if (q != 0 && np->queue_tail[q] == x)
        np->queue_tail[q] = NONE;
    if (xf->queue_next == NONE)
        return;
    SimEvent *event = sim_engine_schedule(np->base.engine, time_ps, PHASE, np->turn_handler);
    event->target = xf->queue_next;
}

/* Wire bytes of the packet queue i of link l would send next. */
static inline uint64_t
voq_peek_wire(NetPacket *np, uint32_t l, uint32_t i)
{
    if (i == np->n_voqs[l] - 1) {
        source_rotate(np, l);
        const Stream *s = stream_at(np, np->voq_head[np->voq_base[l] + i]);
        return (s->n_uncut == 1 ? s->bytes_left : s->payload_bytes) + s->header_bytes[0];
    }
    const Packet *pk = packet_at(np, np->voq_head[np->voq_base[l] + i]);
    return pk->payload_bytes + stream_at(np, pk->stream)->header_bytes[pk->hop];
}

/* ---- Hops. ---- */

/* How long link l is occupied by a packet of ser_ps: each CRC failure costs
 * its serialization and the replay stall before the packet goes again. */
static inline uint64_t
link_occupancy_ps(NetPacket *np, uint32_t l, uint64_t ser_ps)
{
    double rate = np->error_rate[l];
    if (rate <= 0)
        return ser_ps;
    uint64_t n_failed = 0;
    while (sim_rng_uniform(&np->rng[l]) < rate)
        n_failed++;
    np->n_link_replays[l] += n_failed;
    np->stats.n_replays += n_failed;
    return ser_ps + n_failed * (ser_ps + np->replay_ps[l]);
}

/* The last hop of stream s started on link l: the packet lands at
 * landed_ps, is consumed there, and its credits travel back. */
static void
packet_land(NetPacket *np, uint32_t l, uint32_t s, uint64_t landed_ps, int64_t need)
{
    credits_return(np, l, landed_ps + np->latency_ps[l], (uint64_t)need);
    Stream *st = stream_at(np, s);
    uint32_t x = st->xfer;
    if (--st->n_unlanded == 0)
        net_pool_give(&np->streams, s);
    Xfer *xf = xfer_at(np, x);
    xf->last_landed_ps = MAX(xf->last_landed_ps, landed_ps);
    if (--xf->n_unlanded == 0) {
        SimEvent *event =
            sim_engine_schedule(np->base.engine, xf->last_landed_ps, PHASE, np->done_handler);
        event->target = x;
    }
}

/* Packet p (NONE: not yet a record) of stream s crossed link l: it waits for
 * hop `hop` in the queue of its next link, ready at ready_ps. */
static void
packet_forward(NetPacket *np, uint32_t l, uint32_t s, uint32_t p, uint32_t hop,
               uint64_t payload_bytes, uint64_t ready_ps, int64_t need)
{
    if (p == NONE) {
        p = net_pool_take(&np->packets);
        packet_at(np, p)->stream = s;
        packet_at(np, p)->payload_bytes = (uint32_t)payload_bytes;
    }
    Packet *pk = packet_at(np, p);
    pk->ready_ps = ready_ps;
    pk->hop = hop;
    pk->in_link = l;
    if (!np->switch_far[l]) {
        /* A NIC or CPU takes the packet into its own memory on arrival: its
         * latency is a pipeline, not time spent holding the link's buffer. */
        uint64_t arrival_ps = ready_ps - (np->ready_delay_ps[l] - np->latency_ps[l]);
        credits_return(np, l, arrival_ps + np->latency_ps[l], (uint64_t)need);
        need = 0;
    }
    pk->credits_held = (uint32_t)need;
    uint32_t out = stream_at(np, s)->link[hop];
    voq_push_packet(np, out, np->in_port[l], p);
    wake_at(np, out, MAX(ready_ps, np->busy_until_ps[out]));
}

/* Link l starts the head packet of its queue i now: need credits are taken
 * and it serializes for ser_ps (more with replays). */
static void
link_start(NetPacket *np, uint32_t l, uint32_t i, uint64_t now_ps, uint64_t ser_ps, int64_t need)
{
    uint32_t s, p = NONE, hop = 0;
    uint64_t payload;
    if (i == np->n_voqs[l] - 1) {
        s = source_cut(np, l, &payload);
        const Stream *st = stream_at(np, s);
        if (st->n_uncut == 0 && --xfer_at(np, st->xfer)->n_uncut_streams == 0)
            xfer_left_source(np, st->xfer, now_ps);
    } else {
        p = voq_pop_packet(np, l, i);
        const Packet *pk = packet_at(np, p);
        s = pk->stream;
        hop = pk->hop;
        payload = pk->payload_bytes;
        /* It leaves the input buffer: the credit goes back upstream. */
        credits_return(np, pk->in_link, now_ps + np->latency_ps[pk->in_link], pk->credits_held);
    }
    uint64_t end_ps = now_ps + link_occupancy_ps(np, l, ser_ps);
    np->busy_until_ps[l] = end_ps;
    np->n_link_packets[l]++;
    np->link_wire_bytes[l] += payload + stream_at(np, s)->header_bytes[hop];
    if (np->load != NULL)
        net_link_load_add(np->load, l, (double)(payload + stream_at(np, s)->header_bytes[hop]),
                          now_ps, end_ps);
    if (hop + 1 == stream_at(np, s)->n_hops) {
        if (p != NONE)
            net_pool_give(&np->packets, p);
        packet_land(np, l, s, end_ps + np->latency_ps[l], need);
    } else {
        packet_forward(np, l, s, p, hop + 1, payload, end_ps + np->ready_delay_ps[l], need);
    }
}

/* Starts what link l can start now (and, with a lookahead, up to just before
 * now + lookahead), and leaves a wake for when it can do more. */
static void
link_try_start(NetPacket *np, uint32_t l)
{
    uint64_t now = sim_engine_now(np->base.engine);
    uint64_t horizon = now + np->lookahead_ps[l];
    uint64_t t = MAX(now, np->busy_until_ps[l]);
    while (np->n_active[l] > 0) {
        if (t > now && t >= horizon) {
            wake_at(np, l, t);
            return;
        }
        uint64_t retry_ps;
        uint32_t i = voq_pick(np, l, t, &retry_ps);
        if (i != NONE) {
            uint64_t ser_ps;
            int64_t need;
            link_cost(np, l, voq_peek_wire(np, l, i), &ser_ps, &need);
            if (net_credits_take(&np->credits, l, need, t, &retry_ps)) {
                np->rr_next[l] = i + 1 == np->n_voqs[l] ? 0 : i + 1;
                link_start(np, l, i, t, ser_ps, need);
                t = np->busy_until_ps[l];
                continue;
            }
        }
        if (retry_ps == SIM_TIME_NEVER)
            return;
        t = retry_ps;
    }
}

static void
on_wake(SimEngine *engine, const SimEvent *event, void *ctx)
{
    NetPacket *np = ctx;
    (void)engine;
    if (np->wake_ps[event->target] == event->time_ps)
        np->wake_ps[event->target] = SIM_TIME_NEVER;
    link_try_start(np, event->target);
}

/* The last packet of a transfer landed: account it and tell the sender. */
static void
on_xfer_done(SimEngine *engine, const SimEvent *event, void *ctx)
{
    NetPacket *np = ctx;
    const Xfer *xf = xfer_at(np, event->target);
    np->stats.n_sends_done++;
    np->stats.payload_bytes_delivered += xf->send.n_bytes;
    SIM_HOT_ASSERT(np->stats.payload_bytes_delivered <= np->stats.payload_bytes_sent);
    np->stats.n_packets += xf->n_packets;
    SimEvent *done = sim_engine_schedule(engine, event->time_ps, PHASE, xf->send.on_done);
    done->target = xf->send.target;
    done->arg[0] = xf->send.cookie;
    done->arg[1] = xf->send.n_bytes;
    net_pool_give(&np->xfers, event->target);
}

/* ---- Sends. ---- */

/* Largest payload every link of paths [first, first + n) carries. */
static uint64_t
route_payload_bytes(const NetPacket *np, const TopoRoute *route, uint32_t first, uint32_t n,
                    NetIssuer issuer)
{
    uint64_t payload = UINT32_MAX;
    for (uint32_t p = first; p < first + n; p++)
        for (uint32_t h = 0; h < route->path[p].n_hops; h++) {
            const TopoLink *link = topo_graph_link(np->base.graph, route->path[p].link[h]);
            payload = MIN(payload, net_payload_bytes(link->spec, issuer));
        }
    return payload;
}

/* Makes the stream of path for n_packets packets (bytes of them) of send
 * and queues it at its first link. */
static void
stream_add(NetPacket *np, uint32_t x, const TopoPath *path, uint64_t payload_bytes,
           uint64_t n_packets, uint64_t n_bytes, const NetSend *send)
{
    uint32_t s = net_pool_take(&np->streams);
    Stream *st = stream_at(np, s);
    *st = (Stream){
        .xfer = x,
        .bytes_left = n_bytes,
        .n_uncut = n_packets,
        .n_unlanded = n_packets,
        .pace_start_ps = sim_engine_now(np->base.engine),
        .pace_bytes_per_s = n_bytes > 0 ? send->max_bytes_per_s : 0,
        .pace_total_bytes = send->n_bytes,
        .n_bytes = n_bytes,
        .payload_bytes = (uint32_t)payload_bytes,
        .n_hops = path->n_hops,
    };
    st->ready_ps = stream_ready_ps(st);
    NetIssuer issuer = send->issuer;
    for (uint32_t h = 0; h < path->n_hops; h++) {
        SIM_HOT_ASSERT(h == 0 || topo_graph_link(np->base.graph, path->link[h])->src ==
                                     topo_graph_link(np->base.graph, path->link[h - 1])->dst);
        st->link[h] = path->link[h];
        const HwLink *spec = topo_graph_link(np->base.graph, path->link[h])->spec;
        uint64_t header = net_header_share_bytes(spec, issuer, payload_bytes);
        st->header_bytes[h] = (uint16_t)MIN(header, UINT16_MAX);
    }
    source_push(np, path->link[0], s);
    link_try_start(np, path->link[0]);
}

/* Spraying: k packets over the paths by weight, path p getting
 * floor(k W_{p+1} / W) - floor(k W_p / W) of them (W_p the weights before
 * p): whole packets, each path within one of its exact share, the same split
 * a weighted round robin of packets gives. The one short packet (the tail of
 * the bytes) goes to the last path that has packets. */
static void
xfer_start(NetPacket *np, uint32_t x)
{
    const NetModel *net = &np->base;
    const NetSend *send = &xfer_at(np, x)->send;
    TopoRoute route;
    bool routed = topo_router_route(net->router, send->src, send->dst, &route);
    g_return_if_fail(routed && route.n_paths > 0);
    uint32_t first = 0, n = route.n_paths;
    if (send->path != NET_PATH_SPRAY) {
        g_return_if_fail(send->path < route.n_paths);
        first = send->path;
        n = 1;
    }
    uint64_t payload = route_payload_bytes(np, &route, first, n, send->issuer);
    g_return_if_fail(payload > 0);
    uint64_t k = send->n_bytes == 0 ? 1 : (send->n_bytes + payload - 1) / payload;
    uint64_t total_weight = 0;
    for (uint32_t p = first; p < first + n; p++)
        total_weight += n == 1 ? 1 : route.path[p].weight;
    g_return_if_fail(total_weight > 0);
    xfer_at(np, x)->n_packets = xfer_at(np, x)->n_unlanded = k;
    /* Counted first: a stream may be cut whole as soon as it is added. */
    uint32_t n_streams = 0;
    for (uint64_t p = first, sum = 0, before = 0; p < first + n; p++) {
        sum += n == 1 ? 1 : route.path[p].weight;
        uint64_t upto = (uint64_t)((unsigned __int128)k * sum / total_weight);
        n_streams += upto > before;
        before = upto;
    }
    xfer_at(np, x)->n_uncut_streams = n_streams;

    uint64_t short_bytes = k * payload - send->n_bytes; /* missing from the tail packet */
    if (send->n_bytes == 0)
        short_bytes = payload;
    uint64_t cum = 0, cut = 0;
    for (uint32_t p = first; p < first + n; p++) {
        cum += n == 1 ? 1 : route.path[p].weight;
        uint64_t upto = (uint64_t)((unsigned __int128)k * cum / total_weight);
        uint64_t n_packets = upto - cut;
        cut = upto;
        if (n_packets == 0)
            continue;
        uint64_t n_bytes = n_packets * payload - (upto == k ? short_bytes : 0);
        stream_add(np, x, &route.path[p], payload, n_packets, n_bytes, send);
    }
}

/* The send before it in its queue has left its source: this one goes. */
static void
on_turn(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)engine;
    xfer_start(ctx, event->target);
}

void
net_packet_send(NetModel *net, const NetSend *send)
{
    NetPacket *np = (NetPacket *)net;
    g_assert(send->copies <= 1); /* a send of its own: folded ones are the flow engine's */
    uint32_t x = net_pool_take(&np->xfers);
    *xfer_at(np, x) = (Xfer){.send = *send, .queue_next = NONE};
    np->stats.n_sends++;
    np->stats.payload_bytes_sent += send->n_bytes;
    uint32_t q = send->queue;
    if (q != 0) {
        if (q >= np->n_queues) {
            uint32_t n = MAX(q + 1, 2 * np->n_queues);
            np->queue_tail = g_renew(uint32_t, np->queue_tail, n);
            for (uint32_t i = np->n_queues; i < n; i++)
                np->queue_tail[i] = NONE;
            np->n_queues = n;
        }
        uint32_t before = np->queue_tail[q];
        np->queue_tail[q] = x;
        if (before != NONE) {
            xfer_at(np, before)->queue_next = x;
            return;
        }
    }
    xfer_start(np, x);
}

void
net_packet_register_handlers(NetPacket *np)
{
    SimEngine *engine = np->base.engine;
    np->wake_handler = sim_engine_register(engine, "net-packet-wake", on_wake, np);
    np->done_handler = sim_engine_register(engine, "net-packet-done", on_xfer_done, np);
    np->turn_handler = sim_engine_register(engine, "net-packet-turn", on_turn, np);
}
