/* SPDX-License-Identifier: Apache-2.0 */
/* The flow engine: every transfer is one fluid flow per path of its route,
 * and the links' capacity is shared max-min fairly among the flows crossing
 * them (progressive filling: the most contended link fixes the rate of its
 * flows, which are then removed from every other link they cross, and so
 * on). Rates change only when a flow starts or ends; all starts and ends at
 * one instant are handled by one recomputation, which re-solves only the
 * flows they can reach (net-flow-rates.c).
 *
 * A flow carries payload; on link l it travels in packets of that link's
 * payload size (a NIC re-packs PCIe reads into MTU-sized network packets),
 * so it occupies payload × (1 + header_l × packets_l / payload) of the wire:
 * protocol overhead is charged per link. On a link with CRC errors (packet
 * error rate p, replay stall R) a packet is sent 1 / (1 - p) times on
 * average and each failure stalls the link R: the flow is charged that
 * expectation, wire × (1 + p / (1 - p)) plus p / (1 - p) R of the link's
 * time per packet (the packet engine draws the failures one by one). A
 * link whose receive buffer holds fewer packets than a credit round trip
 * needs carries them that much slower, charged the same way (the packet
 * engine stalls on its credits). A paced send's flows have caps (their
 * shares of its rate), which max-min fills like links of their own; sends
 * in one queue start one after another, each when the one before has
 * drained. Its
 * last byte lands a "tail" after it drains: the time one packet takes
 * along the path, less its serialization on the bottleneck hop (already
 * counted in the drain), which is what a store-and-forward pipeline of
 * packets adds (a flow drained at its cap crosses every hop whole). Times
 * are ps; rates
 * are doubles (the per-hop wire factors floats, exact for the usual
 * power-of-two packet sizes), and a time within 1e-6 ps of a whole ps is
 * that ps.
 */
#include "net/net-flow.h"

#include <math.h>
#include <string.h>

#include "core/core-debug.h"
#include "core/core-time.h"
#include "net/net-flow-state.h"

enum {
    PHASE_DRAIN = 128, /* flows that have drained leave */
    PHASE_RATES = 192, /* after every send and drain of the instant */
};

static NetFlow *
flow_of(NetModel *net)
{
    return (NetFlow *)net;
}

/* Drains every flow by what its rate moved since the last update. */
static void
advance(NetFlow *nf, uint64_t now_ps)
{
    double dt_s = (double)(now_ps - nf->last_update_ps) / (double)SIM_PS_PER_S;
    uint64_t since_ps = nf->last_update_ps;
    nf->last_update_ps = now_ps;
    if (dt_s == 0)
        return;
    if (nf->load != NULL)
        for (uint32_t i = 0; i < nf->n_flows; i++) {
            const Flow *f = &nf->flows[i];
            if (f->xfer == DEAD || f->rate_bytes_per_s <= 0)
                continue;
            for (uint32_t h = 0; h < f->n_hops; h++) {
                const FlowHop *hop = &nf->hops[f->hop0 + h];
                double wire = f->rate_bytes_per_s * dt_s * hop->weight * f->copies;
                uint32_t n;
                const uint32_t *links = net_flow_res_links(nf, &hop->link, &n);
                /* A group's members carry it by their widths. */
                for (uint32_t m = 0; m < n; m++)
                    net_link_load_add(
                        nf->load, links[m],
                        n == 1 ? wire
                               : wire *
                                     (double)topo_graph_link(nf->base.graph, links[m])->bytes_per_s /
                                     net_flow_res_bytes_per_s(nf, hop->link),
                        since_ps, now_ps);
            }
        }
    for (uint32_t i = 0; i < nf->n_flows; i++) {
        nf->flows[i].remaining_bytes -= nf->flows[i].rate_bytes_per_s * dt_s;
        /* A flow never drains past its end by more than a ps of its rate. */
        SIM_HOT_ASSERT(nf->flows[i].xfer == DEAD ||
                       nf->flows[i].remaining_bytes >=
                           -nf->flows[i].rate_bytes_per_s / (double)SIM_PS_PER_S - 1e-6);
    }
}

/* Drops drained flows, keeping order, and packs their hops. */
static void
compact(NetFlow *nf)
{
    uint32_t w = 0;
    size_t hw = 0;
    for (uint32_t i = 0; i < nf->n_flows; i++) {
        Flow f = nf->flows[i];
        if (f.xfer == DEAD) {
            nf->n_capped_flows -= f.cap_bytes_per_s > 0;
            continue;
        }
        memmove(&nf->hops[hw], &nf->hops[f.hop0], f.n_hops * sizeof(FlowHop));
        f.hop0 = (uint32_t)hw;
        hw += f.n_hops;
        nf->flows[w++] = f;
    }
    nf->n_flows = w;
    nf->n_hops = hw;
}

/* ps until the flow drains at its rate; within 1e-6 of a whole ps rounds down.
 * A flow without a rate yet (added since the last recomputation, which is
 * due at this instant) never drains: its remaining / 0 is infinite, and
 * infinity converted to an integer is undefined (0 on x86-64, which ended
 * a flow sent at the instant another drained without carrying a byte). */
static uint64_t
drain_ps(const Flow *f)
{
    if (f->remaining_bytes <= 0)
        return 0;
    if (f->rate_bytes_per_s <= 0)
        return UINT64_MAX;
    double t = f->remaining_bytes / f->rate_bytes_per_s * (double)SIM_PS_PER_S;
    return (uint64_t)ceil(t - 1e-6);
}

static void
schedule_drain(NetFlow *nf, uint64_t now_ps)
{
    uint64_t soonest = UINT64_MAX;
    for (uint32_t i = 0; i < nf->n_flows; i++)
        soonest = MIN(soonest, drain_ps(&nf->flows[i]));
    if (soonest == UINT64_MAX)
        return;
    SimEvent *ev =
        sim_engine_schedule(nf->base.engine, now_ps + soonest, PHASE_DRAIN, nf->drain_handler);
    ev->arg[0] = ++nf->drain_generation;
}

static void
on_rates(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)event;
    NetFlow *nf = ctx;
    uint64_t now = sim_engine_now(engine);
    nf->rates_pending = false;
    advance(nf, now);
    compact(nf);
    net_flow_solve_rates(nf);
    nf->drain_generation++;
    schedule_drain(nf, now);
}

static void
request_rates(NetFlow *nf)
{
    if (nf->rates_pending)
        return;
    nf->rates_pending = true;
    sim_engine_schedule(nf->base.engine, sim_engine_now(nf->base.engine), PHASE_RATES,
                        nf->rates_handler);
}

static void
finish_xfer_part(NetFlow *nf, uint32_t x, uint64_t done_ps)
{
    FlowXfer *xf = &nf->xfers[x];
    xf->done_ps = MAX(xf->done_ps, done_ps);
    if (--xf->n_left > 0)
        return;
    SimEvent *ev = sim_engine_schedule(nf->base.engine, xf->done_ps, 0, xf->on_done);
    ev->target = xf->target;
    ev->arg[0] = xf->cookie;
    ev->arg[1] = xf->n_bytes;
    nf->stats.n_sends_done += xf->copies;
    nf->stats.payload_bytes_delivered += xf->n_bytes * xf->copies;
    SIM_HOT_ASSERT(nf->stats.payload_bytes_delivered <= nf->stats.payload_bytes_sent);
    /* Drained: the next of its queue may go. */
    uint32_t q = xf->queue;
    if (q != 0 && nf->queue_tail[q] == x)
        nf->queue_tail[q] = DEAD;
    if (xf->queue_next != DEAD) {
        if (nf->n_turn == nf->cap_turn) {
            nf->cap_turn = MAX(16, 2 * nf->cap_turn);
            nf->turn = g_renew(uint32_t, nf->turn, nf->cap_turn);
        }
        nf->turn[nf->n_turn++] = xf->queue_next;
    }
    xf->n_left = nf->free_xfer;
    nf->free_xfer = x;
}

static void start_xfer(NetFlow *nf, uint32_t x, const NetSend *send);

/* Starts the sends whose turn came (those may pass the turn on in turn,
 * when they carry nothing). */
static void
start_turns(NetFlow *nf)
{
    while (nf->n_turn > 0) {
        uint32_t x = nf->turn[--nf->n_turn], w = nf->xfers[x].waiting;
        NetSend send = nf->waiting[w];
        nf->waiting[w].target = nf->free_waiting;
        nf->free_waiting = w;
        nf->xfers[x].waiting = DEAD;
        start_xfer(nf, x, &send);
    }
}

/* Keeps send for x, which waits its turn. */
static void
wait_turn(NetFlow *nf, uint32_t x, const NetSend *send)
{
    uint32_t w;
    if (nf->free_waiting != DEAD) {
        w = nf->free_waiting;
        nf->free_waiting = nf->waiting[w].target;
    } else {
        if (nf->n_waiting == nf->cap_waiting) {
            nf->cap_waiting = MAX(16, 2 * nf->cap_waiting);
            nf->waiting = g_renew(NetSend, nf->waiting, nf->cap_waiting);
        }
        w = nf->n_waiting++;
    }
    nf->waiting[w] = *send;
    nf->xfers[x].waiting = w;
}

static void
on_drain(SimEngine *engine, const SimEvent *event, void *ctx)
{
    NetFlow *nf = ctx;
    if (event->arg[0] != nf->drain_generation)
        return; /* superseded by a later recomputation */
    uint64_t now = sim_engine_now(engine);
    advance(nf, now);
    for (uint32_t i = 0; i < nf->n_flows; i++) {
        Flow *f = &nf->flows[i];
        if (f->xfer == DEAD || drain_ps(f) > 0)
            continue;
        /* Drained at its cap, the last packet left its source as it was
         * produced and crosses every hop whole; drained at a link's rate,
         * its serialization there is already in the drain. */
        uint64_t done = now + f->tail_ps;
        if (f->cap_bytes_per_s > 0 && f->rate_bytes_per_s >= f->cap_bytes_per_s)
            done += f->bottleneck_ser_ps;
        finish_xfer_part(nf, f->xfer, done);
        for (uint32_t h = 0; h < f->n_hops; h++)
            net_flow_mark_changed(nf, nf->hops[f->hop0 + h].link);
        f->xfer = DEAD;
        f->rate_bytes_per_s = 0;
    }
    start_turns(nf);
    request_rates(nf);
}

static uint32_t
new_xfer(NetFlow *nf, const NetSend *send)
{
    uint32_t x;
    if (nf->free_xfer != DEAD) {
        x = nf->free_xfer;
        nf->free_xfer = nf->xfers[x].n_left;
    } else {
        if (nf->n_xfers == nf->cap_xfers) {
            nf->cap_xfers = MAX(64, nf->cap_xfers * 2);
            nf->xfers = g_renew(FlowXfer, nf->xfers, nf->cap_xfers);
        }
        x = nf->n_xfers++;
    }
    nf->xfers[x] = (FlowXfer){
        .cookie = send->cookie,
        .n_bytes = send->n_bytes,
        .src = send->src,
        .dst = send->dst,
        .issuer = send->issuer,
        .max_bytes_per_s = send->max_bytes_per_s,
        .copies = MAX(send->copies, 1),
        .done_ps = 0,
        .on_done = send->on_done,
        .target = send->target,
        .n_left = 0,
        .queue = send->queue,
        .queue_next = DEAD,
        .waiting = DEAD,
    };
    return x;
}

/* After draining at the bottleneck, the last packet still has the rest of
 * the path to cross: on each hop its serialization (at most n_bytes, in
 * that link's packet size) and latency, and each switch crossed, less the
 * bottleneck hop's serialization, which the drain already counted. */
static uint64_t
tail_ps(const TopoGraph *graph, const TopoPath *path, uint64_t n_bytes, NetIssuer issuer,
        uint64_t *bottleneck_ser_ps)
{
    uint64_t total = 0, worst_ser = 0;
    for (uint32_t h = 0; h < path->n_hops; h++) {
        const TopoLink *link = topo_graph_link(graph, path->link[h]);
        uint64_t packet = MIN(net_payload_bytes(link->spec, issuer), n_bytes);
        uint64_t ser =
            sim_serialization_ps(packet + net_header_bytes(link->spec, issuer), link->bytes_per_s);
        worst_ser = MAX(worst_ser, ser);
        total += ser + link->latency_ps;
        if (h + 1 < path->n_hops)
            total += topo_graph_vertex(graph, link->dst)->latency_ps;
    }
    *bottleneck_ser_ps = worst_ser;
    return total - worst_ser;
}

/* Wire bytes per payload byte for n_bytes on link l in packets of
 * packet_bytes of payload: headers, credits, CRC replays. */
static double
hop_weight(NetFlow *nf, uint32_t l, uint64_t n_bytes, uint64_t packet_bytes, NetIssuer issuer)
{
    const TopoGraph *graph = nf->base.graph;
    const TopoLink *link = topo_graph_link(graph, l);
    uint64_t payload = net_payload_bytes(link->spec, issuer);
    uint64_t n_packets = (n_bytes + payload - 1) / payload;
    double weight = 1.0 + (double)(n_packets * net_header_bytes(link->spec, issuer)) / (double)n_bytes;
    /* Credits too few for the round trip: the link carries these packets
     * that much slower, as if each byte took more of it (unless the buffer
     * holds them all). */
    uint64_t packet = MIN(packet_bytes, n_bytes);
    uint64_t wire = packet + net_header_share_bytes(link->spec, issuer, packet);
    CreditMemo *memo = &nf->credit_memo[l];
    if (memo->wire_bytes != wire) {
        memo->wire_bytes = wire;
        memo->slowdown = net_credit_slowdown(graph, l, wire, &memo->in_flight);
    }
    if ((n_bytes + packet - 1) / packet > memo->in_flight)
        weight *= memo->slowdown;
    double p = link->packet_error_rate;
    if (p > 0) {
        double replay_bytes =
            (double)link->spec->replay_latency_ps * (double)link->bytes_per_s / (double)SIM_PS_PER_S;
        weight = (weight + p * (double)n_packets * replay_bytes / (double)n_bytes) / (1 - p);
    }
    return weight;
}

/* A new flow of x, n_hops long, with left of its n_bytes to go, capped at
 * its share of send's pace. */
static Flow *
new_flow(NetFlow *nf, uint32_t x, uint32_t n_hops, uint64_t n_bytes, double left,
         const NetSend *send)
{
    if (nf->n_flows == nf->cap_flows) {
        nf->cap_flows = MAX(64, nf->cap_flows * 2);
        nf->flows = g_renew(Flow, nf->flows, nf->cap_flows);
    }
    if (nf->n_hops + n_hops > nf->cap_hops) {
        nf->cap_hops = MAX(nf->cap_hops * 2, nf->n_hops + n_hops + 256);
        nf->hops = g_renew(FlowHop, nf->hops, nf->cap_hops);
    }
    Flow *f = &nf->flows[nf->n_flows++];
    *f = (Flow){
        .remaining_bytes = left,
        .rate_bytes_per_s = 0,
        .cap_bytes_per_s = (double)send->max_bytes_per_s * (double)n_bytes / (double)send->n_bytes,
        .xfer = x,
        .hop0 = (uint32_t)nf->n_hops,
        .n_hops = n_hops,
        .copies = nf->xfers[x].copies,
    };
    nf->n_capped_flows += f->cap_bytes_per_s > 0;
    nf->n_hops += n_hops;
    nf->xfers[x].n_left++;
    return f;
}

/* A flow of n_bytes of send on path (left of them to go), whose packets
 * carry packet_bytes of payload (the least any path of the send carries,
 * as the packet engine cuts them). */
static void
add_flow(NetFlow *nf, uint32_t x, const TopoPath *path, uint64_t n_bytes, double left,
         const NetSend *send, uint64_t packet_bytes)
{
    Flow *f = new_flow(nf, x, path->n_hops, n_bytes, left, send);
    f->tail_ps = tail_ps(nf->base.graph, path, n_bytes, send->issuer, &f->bottleneck_ser_ps);
    for (uint32_t h = 0; h < path->n_hops; h++) {
        uint32_t l = path->link[h];
        double weight = hop_weight(nf, l, n_bytes, packet_bytes, send->issuer);
        nf->hops[f->hop0 + h] = (FlowHop){.link = l, .weight = (float)weight};
        net_flow_mark_changed(nf, l);
    }
}

/* Whether paths a and b, of as many hops, cross links of the same widths. */
static bool
same_widths(const TopoGraph *graph, const TopoPath *a, const TopoPath *b)
{
    for (uint32_t h = 0; h < a->n_hops; h++)
        if (topo_graph_link(graph, a->link[h])->bytes_per_s !=
            topo_graph_link(graph, b->link[h])->bytes_per_s)
            return false;
    return true;
}

/* One flow for all of send over the paths first..last-1 lumped into the
 * resources res (net-flow-planes.c), each path's share of the bytes in
 * shares: at every hop the wire bytes of the paths' parts added up; its
 * tail the longest part's, when drained at a link's rate or at its cap. */
static void
add_lumped_flow(NetFlow *nf, uint32_t x, const TopoRoute *route, uint32_t first, uint32_t last,
                const uint64_t *shares, const uint32_t *res, const NetSend *send,
                uint64_t packet_bytes)
{
    const TopoPath *p0 = &route->path[first];
    Flow *f = new_flow(nf, x, p0->n_hops, send->n_bytes, (double)send->n_bytes, send);
    f->lumped = true;
    /* The paths' links are alike but for their widths (net-flow-planes.c):
     * a path of the same width and share as the one before has its tail
     * and weights. */
    const TopoGraph *graph = nf->base.graph;
    uint64_t tail = 0, capped_tail = 0, t = 0, ser = 0;
    for (uint32_t i = first; i < last; i++) {
        if (shares[i] == 0)
            continue;
        if (i == first || shares[i] != shares[i - 1] ||
            !same_widths(graph, &route->path[i], &route->path[i - 1]))
            t = tail_ps(graph, &route->path[i], shares[i], send->issuer, &ser);
        tail = MAX(tail, t);
        capped_tail = MAX(capped_tail, t + ser);
    }
    f->tail_ps = tail;
    f->bottleneck_ser_ps = capped_tail - tail;
    for (uint32_t h = 0; h < p0->n_hops; h++) {
        double wire = 0, weight = 0;
        for (uint32_t i = first; i < last; i++) {
            if (shares[i] == 0)
                continue;
            uint32_t l = route->path[i].link[h];
            if (i == first || shares[i] != shares[i - 1] ||
                topo_graph_link(graph, l)->bytes_per_s !=
                    topo_graph_link(graph, route->path[i - 1].link[h])->bytes_per_s ||
                topo_graph_link(graph, l)->rx_buffer_bytes !=
                    topo_graph_link(graph, route->path[i - 1].link[h])->rx_buffer_bytes)
                weight = hop_weight(nf, l, shares[i], packet_bytes, send->issuer);
            wire += (double)shares[i] * weight;
        }
        nf->hops[f->hop0 + h] =
            (FlowHop){.link = res[h], .weight = (float)(wire / (double)send->n_bytes)};
        net_flow_mark_changed(nf, res[h]);
    }
}

/* The bytes of n_bytes each path first..last-1 carries, by weight (the
 * rounding remainder on the first). */
static void
split_shares(const TopoRoute *route, uint32_t first, uint32_t last, uint64_t n_bytes,
             uint64_t *shares)
{
    uint64_t total_weight = 0, assigned = 0;
    for (uint32_t i = first; i < last; i++)
        total_weight += route->path[i].weight;
    for (uint32_t i = first; i < last; i++) {
        uint64_t w = route->path[i].weight;
        shares[i] = n_bytes <= UINT64_MAX / MAX(w, 1)
                        ? n_bytes * w / total_weight
                        : (uint64_t)((unsigned __int128)n_bytes * w / total_weight);
        assigned += shares[i];
    }
    shares[first] += n_bytes - assigned;
}

/* The route from src to dst, each link its representative's where a
 * folded run maps links (NetOptions.link_rep). */
static void
route_of(const NetFlow *nf, uint32_t src, uint32_t dst, TopoRoute *route)
{
    if (!topo_router_route(nf->base.router, src, dst, route))
        g_error("net-flow: no route from vertex %u to vertex %u", src, dst);
    if (nf->link_rep == NULL)
        return;
    for (uint32_t p = 0; p < route->n_paths; p++)
        for (uint32_t h = 0; h < route->path[p].n_hops; h++)
            route->path[p].link[h] = nf->link_rep[route->path[p].link[h]];
}

/* A conflict (net-flow-planes.c): every lumped flow is cut into its
 * planes, each with its share of what is left, and nothing is lumped
 * from now on. Flows are drained up to now. */
static void
part_planes(NetFlow *nf)
{
    nf->planes_apart = true;
    uint32_t n = nf->n_flows;
    for (uint32_t i = 0; i < n; i++) {
        if (nf->flows[i].xfer == DEAD || !nf->flows[i].lumped)
            continue;
        Flow *f = &nf->flows[i];
        uint32_t x = f->xfer;
        double left = f->remaining_bytes;
        for (uint32_t h = 0; h < f->n_hops; h++)
            net_flow_mark_changed(nf, nf->hops[f->hop0 + h].link);
        f->xfer = DEAD;
        f->rate_bytes_per_s = 0;
        nf->xfers[x].n_left--;
        const FlowXfer *xf = &nf->xfers[x];
        NetSend send = {.src = xf->src,
                        .dst = xf->dst,
                        .n_bytes = xf->n_bytes,
                        .issuer = xf->issuer,
                        .max_bytes_per_s = xf->max_bytes_per_s,
                        .copies = xf->copies};
        TopoRoute route;
        route_of(nf, send.src, send.dst, &route);
        uint64_t shares[TOPO_MAX_PATHS];
        split_shares(&route, 0, route.n_paths, send.n_bytes, shares);
        for (uint32_t p = 0; p < route.n_paths; p++)
            if (shares[p] > 0)
                add_flow(nf, x, &route.path[p], shares[p],
                         left * (double)shares[p] / (double)send.n_bytes, &send, xf->packet_bytes);
    }
}

/* Puts the flows of send (x's) on the network now. */
static void
start_xfer(NetFlow *nf, uint32_t x, const NetSend *send)
{
    NetModel *net = &nf->base;
    TopoRoute route;
    route_of(nf, send->src, send->dst, &route);
    g_assert(send->path == NET_PATH_SPRAY || send->path < route.n_paths);
    uint64_t now = sim_engine_now(net->engine);
    if (send->n_bytes == 0) {
        nf->xfers[x].n_left = 1;
        finish_xfer_part(nf, x, now + topo_path_latency_ps(net->graph, &route.path[0], 0));
        return;
    }
    uint32_t first = send->path == NET_PATH_SPRAY ? 0 : send->path;
    uint32_t last = send->path == NET_PATH_SPRAY ? route.n_paths : send->path + 1;
    uint64_t shares[TOPO_MAX_PATHS] = {0};
    split_shares(&route, first, last, send->n_bytes, shares);
    advance(nf, now);
    uint64_t packet_bytes = UINT64_MAX;
    for (uint32_t i = first; i < last; i++)
        for (uint32_t h = 0; h < route.path[i].n_hops; h++)
            packet_bytes =
                MIN(packet_bytes,
                    net_payload_bytes(topo_graph_link(net->graph, route.path[i].link[h])->spec,
                                      send->issuer));
    nf->xfers[x].packet_bytes = packet_bytes;
    if (!nf->planes_apart) {
        uint32_t res[TOPO_MAX_HOPS];
        bool conflict = false;
        if (last - first > 1 && net_flow_lump_route(nf, send->src, send->dst, &route, first, last, res, &conflict)) {
            add_lumped_flow(nf, x, &route, first, last, shares, res, send, packet_bytes);
            request_rates(nf);
            return;
        }
        if (conflict || !net_flow_claim_solo(nf, &route, first, last))
            part_planes(nf);
    }
    for (uint32_t i = first; i < last; i++)
        if (shares[i] > 0)
            add_flow(nf, x, &route.path[i], shares[i], (double)shares[i], send, packet_bytes);
    request_rates(nf);
}

static void
flow_send(NetModel *net, const NetSend *send)
{
    NetFlow *nf = flow_of(net);
    uint32_t x = new_xfer(nf, send);
    nf->stats.n_sends += MAX(send->copies, 1);
    nf->stats.payload_bytes_sent += send->n_bytes * MAX(send->copies, 1);
    uint32_t q = send->queue;
    if (q != 0) {
        if (q >= nf->n_queues) {
            uint32_t n = MAX(q + 1, 2 * nf->n_queues);
            nf->queue_tail = g_renew(uint32_t, nf->queue_tail, n);
            for (uint32_t i = nf->n_queues; i < n; i++)
                nf->queue_tail[i] = DEAD;
            nf->n_queues = n;
        }
        uint32_t before = nf->queue_tail[q];
        nf->queue_tail[q] = x;
        if (before != DEAD) {
            nf->xfers[before].queue_next = x;
            wait_turn(nf, x, send);
            return;
        }
    }
    start_xfer(nf, x, send);
    start_turns(nf);
}

static void
flow_get_stats(const NetModel *net, NetStats *stats)
{
    *stats = ((const NetFlow *)net)->stats;
}

static void
flow_free(NetModel *net)
{
    NetFlow *nf = flow_of(net);
    g_free(nf->xfers);
    g_free(nf->queue_tail);
    g_free(nf->turn);
    g_free(nf->waiting);
    g_free(nf->flows);
    g_free(nf->hops);
    g_free(nf->rem_bytes_per_s);
    g_free(nf->weight_sum);
    g_free(nf->csr_start);
    g_free(nf->link_local);
    g_free(nf->touched);
    g_free(nf->csr_flow);
    g_free(nf->active_links);
    g_free(nf->picked_flows);
    g_free(nf->link_picked);
    g_free(nf->flow_picked);
    g_free(nf->changed);
    g_free(nf->link_changed);
    g_free(nf->check_rates);
    g_free(nf->credit_memo);
    g_free(nf->capped);
    g_free(nf->frozen);
    net_flow_planes_free(nf);
    g_free(nf);
}

static void
flow_set_link_load(NetModel *net, NetLinkLoad *load)
{
    NetFlow *nf = flow_of(net);
    advance(nf, sim_engine_now(net->engine));
    nf->load = load;
}

/* Links crossed by unfinished flows: how many, their bytes left and their
 * slowest rate (0: starved). */
static void
flow_describe_stuck(const NetModel *net, GString *out, guint max_links)
{
    const NetFlow *nf = (const NetFlow *)net;
    g_autofree uint32_t *n_flows = g_new0(uint32_t, nf->n_links);
    g_autofree double *bytes = g_new0(double, nf->n_links);
    g_autofree double *min_rate = g_new0(double, nf->n_links);
    for (uint32_t i = 0; i < nf->n_flows; i++) {
        const Flow *f = &nf->flows[i];
        if (f->xfer == DEAD)
            continue;
        for (uint32_t h = 0; h < f->n_hops; h++) {
            uint32_t n;
            const uint32_t *links = net_flow_res_links(nf, &nf->hops[f->hop0 + h].link, &n);
            for (uint32_t m = 0; m < n; m++) {
                uint32_t l = links[m];
                min_rate[l] = n_flows[l]++ == 0 ? f->rate_bytes_per_s
                                                : MIN(min_rate[l], f->rate_bytes_per_s);
                bytes[l] += f->remaining_bytes;
            }
        }
    }
    guint n = 0;
    for (uint32_t l = 0; l < nf->n_links; l++)
        if (n_flows[l] > 0 && net_stuck_link(net->graph, l, out, &n, max_links))
            g_string_append_printf(out, "%u flow%s, %.0f bytes left, slowest at %.3g GB/s",
                                   n_flows[l], n_flows[l] == 1 ? "" : "s", bytes[l],
                                   min_rate[l] / 1e9);
    net_stuck_end(out, n, max_links);
}

static const NetOps flow_ops = {
    .name = "flow",
    .send = flow_send,
    .get_stats = flow_get_stats,
    .free = flow_free,
    .set_link_load = flow_set_link_load,
    .describe_stuck = flow_describe_stuck,
};

NetModel *
net_flow_new(SimEngine *engine, const TopoGraph *graph, const TopoRouter *router,
             const NetOptions *options)
{
    NetFlow *nf = g_new0(NetFlow, 1);
    nf->base = (NetModel){.ops = &flow_ops, .engine = engine, .graph = graph, .router = router};
    nf->rates_mode = options->flow_rates;
    nf->rates_handler = sim_engine_register(engine, "net-flow-rates", on_rates, nf);
    nf->drain_handler = sim_engine_register(engine, "net-flow-drain", on_drain, nf);
    nf->free_xfer = DEAD;
    nf->free_waiting = DEAD;
    nf->n_links = topo_graph_n_links(graph);
    nf->planes_apart = options->flow_planes_apart;
    nf->link_rep = options->link_rep;
    net_flow_planes_init(nf);
    uint32_t n_res = nf->n_res_max;
    nf->rem_bytes_per_s = g_new(double, n_res);
    nf->weight_sum = g_new(double, n_res);
    nf->csr_start = g_new(uint32_t, n_res + 1);
    nf->link_local = g_new(uint32_t, n_res);
    for (uint32_t r = 0; r < n_res; r++)
        nf->link_local[r] = DEAD;
    nf->touched = g_new(uint32_t, n_res);
    nf->active_links = g_new(uint32_t, n_res);
    nf->link_picked = g_new(uint8_t, n_res);
    nf->changed = g_new(uint32_t, n_res);
    nf->link_changed = g_new0(uint8_t, n_res);
    nf->credit_memo = g_new0(CreditMemo, MAX(nf->n_links, 1));
    nf->last_update_ps = sim_engine_now(engine);
    return &nf->base;
}
