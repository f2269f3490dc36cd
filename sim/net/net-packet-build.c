/* SPDX-License-Identifier: Apache-2.0 */
/* The packet engine's world, from the graph (the description its
 * behaviour in net-packet.c runs on): every link direction's rate,
 * latencies, credits and CRC draws, the layout of the virtual output
 * queues, each link's lookahead; and the interface's other operations
 * (statistics, link load, stuck links, freeing). Times in ps.
 */
#include "net/net-packet.h"

#include "net/net-packet-state.h"

static void
packet_get_stats(const NetModel *net, NetStats *stats)
{
    *stats = ((const NetPacket *)net)->stats;
}

static void
packet_free(NetModel *net)
{
    NetPacket *np = (NetPacket *)net;
    net_credits_clear(&np->credits);
    void *arrays[] = {
        np->bytes_per_s,   np->latency_ps,      np->ready_delay_ps,  np->switch_far,
        np->replay_ps,     np->error_rate,      np->voq_base,        np->n_voqs,
        np->mask_base,     np->in_port,         np->lookahead_ps,    np->busy_until_ps,
        np->wake_ps,       np->rr_next,         np->source_served,   np->n_active,
        np->n_paced,       np->memo_wire_bytes, np->memo_ser_ps,     np->memo_credits,
        np->rng,           np->n_link_packets,  np->link_wire_bytes, np->n_link_replays,
        np->voq_head,      np->voq_tail,        np->voq_ready_ps,    np->active_mask,
        np->packets.items, np->streams.items,   np->xfers.items,     np->queue_tail,
    };
    for (size_t i = 0; i < G_N_ELEMENTS(arrays); i++)
        g_free(arrays[i]);
    g_free(np);
}

static void
packet_set_link_load(NetModel *net, NetLinkLoad *load)
{
    ((NetPacket *)net)->load = load;
}

/* Links with queued packets or streams: how many queues wait, the credits
 * held of the buffer, and whether the link is blocked on credits. */
static void
packet_describe_stuck(const NetModel *net, GString *out, guint max_links)
{
    const NetPacket *np = (const NetPacket *)net;
    guint n = 0;
    for (uint32_t l = 0; l < np->n_links; l++)
        if (np->n_active[l] > 0 && net_stuck_link(net->graph, l, out, &n, max_links))
            g_string_append_printf(out,
                                   "%u queue%s waiting, credits in hand %" G_GINT64_FORMAT
                                   " of %" G_GINT64_FORMAT "%s",
                                   np->n_active[l], np->n_active[l] == 1 ? "" : "s",
                                   np->credits.held[l], np->credits.total[l],
                                   np->credits.blocked[l] ? ", blocked on credits" : "");
    net_stuck_end(out, n, max_links);
}

static const NetOps packet_ops = {
    .name = "packet",
    .send = net_packet_send,
    .get_stats = packet_get_stats,
    .free = packet_free,
    .set_link_load = packet_set_link_load,
    .describe_stuck = packet_describe_stuck,
};

static void
alloc_link_arrays(NetPacket *np, uint32_t n)
{
    np->bytes_per_s = g_new0(uint64_t, n);
    np->latency_ps = g_new0(uint64_t, n);
    np->ready_delay_ps = g_new0(uint64_t, n);
    np->switch_far = g_new0(bool, n);
    np->replay_ps = g_new0(uint64_t, n);
    np->error_rate = g_new0(double, n);
    np->voq_base = g_new0(uint32_t, n);
    np->n_voqs = g_new0(uint32_t, n);
    np->mask_base = g_new0(uint32_t, n);
    np->in_port = g_new0(uint32_t, n);
    np->lookahead_ps = g_new0(uint64_t, n);
    np->busy_until_ps = g_new0(uint64_t, n);
    np->wake_ps = g_new0(uint64_t, n);
    np->rr_next = g_new0(uint32_t, n);
    np->source_served = g_new0(bool, n);
    np->n_active = g_new0(uint32_t, n);
    np->n_paced = g_new0(uint32_t, n);
    np->memo_wire_bytes = g_new0(uint64_t, n);
    np->memo_ser_ps = g_new0(uint64_t, n);
    np->memo_credits = g_new0(int64_t, n);
    np->rng = g_new0(SimRng, n);
    np->n_link_packets = g_new0(uint64_t, n);
    np->link_wire_bytes = g_new0(uint64_t, n);
    np->n_link_replays = g_new0(uint64_t, n);
}

/* Copies link l's description and fills its sender's credits. */
static void
init_link(NetPacket *np, const TopoGraph *graph, uint32_t l, uint64_t seed)
{
    const TopoLink *link = topo_graph_link(graph, l);
    const HwLink *spec = link->spec;
    const TopoVertex *far = topo_graph_vertex(graph, link->dst);
    g_assert(link->bytes_per_s > 0);
    g_assert(link->packet_error_rate >= 0 && link->packet_error_rate < 1);
    np->bytes_per_s[l] = link->bytes_per_s;
    np->latency_ps[l] = link->latency_ps;
    np->ready_delay_ps[l] = link->latency_ps + far->latency_ps;
    np->switch_far[l] = net_link_holds_credits(graph, l);
    np->replay_ps[l] = spec->replay_latency_ps;
    np->error_rate[l] = link->packet_error_rate;
    net_credits_set_buffer(&np->credits, l, link->rx_buffer_bytes, spec->credit_bytes);
    np->wake_ps[l] = SIM_TIME_NEVER;
    np->memo_wire_bytes[l] = UINT64_MAX;
    sim_rng_init(&np->rng[l], seed, l);
}

/* Numbers every link's input port at its far vertex and lays out the
 * queue blocks: a link out of vertex v has one queue per input port of v
 * (none for a GPU, which does not forward) and one for v's own traffic. */
static void
init_queues(NetPacket *np, const TopoGraph *graph)
{
    uint32_t nv = topo_graph_n_vertices(graph), nl = np->n_links;
    uint32_t *n_in = g_new0(uint32_t, nv);
    for (uint32_t l = 0; l < nl; l++)
        np->in_port[l] = n_in[topo_graph_link(graph, l)->dst]++;
    uint32_t n_voqs = 0, n_words = 0;
    for (uint32_t l = 0; l < nl; l++) {
        uint32_t v = topo_graph_link(graph, l)->src;
        bool forwards = topo_graph_vertex(graph, v)->kind != TOPO_GPU;
        np->voq_base[l] = n_voqs;
        np->n_voqs[l] = (forwards ? n_in[v] : 0) + 1;
        np->mask_base[l] = n_words;
        n_voqs += np->n_voqs[l];
        n_words += (np->n_voqs[l] + 63) / 64;
    }
    g_free(n_in);
    np->voq_head = g_new(uint32_t, n_voqs);
    np->voq_tail = g_new(uint32_t, n_voqs);
    np->voq_ready_ps = g_new0(uint64_t, n_voqs);
    for (uint32_t q = 0; q < n_voqs; q++)
        np->voq_head[q] = np->voq_tail[q] = NONE;
    np->active_mask = g_new0(uint64_t, n_words);
}

/* Lookahead: a link out of a switch (or NIC, PCIe switch) decides at once
 * what it sends in [now, now + L), where L is its own latency or the latency
 * of its vertex plus that of its shortest input link, whichever is less,
 * and the decisions are exactly those it would make one at a time. What it
 * decides from is all known by then: a packet ready at the vertex before
 * now + L started its input hop before now (every link, deciding ahead or
 * not, queues a packet downstream when it decides to start it, and a
 * decision for time d is made by time d), and a credit due back before
 * now + L was sent back by a packet that left before now. A link out of a
 * GPU or CPU serves transfers that net_send may add at any moment, so it
 * decides only at the present. */
static void
init_lookahead(NetPacket *np, const TopoGraph *graph)
{
    uint32_t nv = topo_graph_n_vertices(graph);
    uint64_t *min_in_ps = g_new(uint64_t, nv);
    for (uint32_t v = 0; v < nv; v++)
        min_in_ps[v] = SIM_TIME_NEVER;
    for (uint32_t l = 0; l < np->n_links; l++) {
        uint32_t v = topo_graph_link(graph, l)->dst;
        min_in_ps[v] = MIN(min_in_ps[v], np->latency_ps[l]);
    }
    for (uint32_t l = 0; l < np->n_links; l++) {
        const TopoVertex *v = topo_graph_vertex(graph, topo_graph_link(graph, l)->src);
        uint32_t src = topo_graph_link(graph, l)->src;
        if (v->kind == TOPO_GPU || v->kind == TOPO_CPU || min_in_ps[src] == SIM_TIME_NEVER)
            continue;
        np->lookahead_ps[l] = MIN(np->latency_ps[l], v->latency_ps + min_in_ps[src]);
    }
    g_free(min_in_ps);
}

NetModel *
net_packet_new(SimEngine *engine, const TopoGraph *graph, const TopoRouter *router,
               const NetOptions *options)
{
    g_return_val_if_fail(engine != NULL && graph != NULL && router != NULL, NULL);
    g_return_val_if_fail(options->link_rep == NULL, NULL);
    NetPacket *np = g_new0(NetPacket, 1);
    np->base = (NetModel){&packet_ops, engine, graph, router};
    np->n_links = topo_graph_n_links(graph);
    alloc_link_arrays(np, np->n_links);
    net_credits_init(&np->credits, np->n_links);
    for (uint32_t l = 0; l < np->n_links; l++)
        init_link(np, graph, l, options != NULL ? options->seed : 1);
    init_queues(np, graph);
    init_lookahead(np, graph);
    net_pool_init(&np->packets, sizeof(Packet));
    net_pool_init(&np->streams, sizeof(Stream));
    net_pool_init(&np->xfers, sizeof(Xfer));
    net_packet_register_handlers(np);
    return &np->base;
}

void
net_packet_link_stats(const NetModel *net, uint32_t link, NetPacketLinkStats *stats)
{
    const NetPacket *np = (const NetPacket *)net;
    g_return_if_fail(net->ops == &packet_ops && link < np->n_links);
    int64_t held, returning;
    net_credits_count(&np->credits, link, sim_engine_now(net->engine), &held, &returning);
    *stats = (NetPacketLinkStats){
        .n_packets = np->n_link_packets[link],
        .wire_bytes = np->link_wire_bytes[link],
        .n_replays = np->n_link_replays[link],
        .credits_total = np->credits.total[link],
        .credits = held,
        .credits_returning = returning,
        .credits_min = np->credits.min_held[link],
    };
}

void
net_packet_disable_lookahead(NetModel *net)
{
    NetPacket *np = (NetPacket *)net;
    g_return_if_fail(net->ops == &packet_ops);
    for (uint32_t l = 0; l < np->n_links; l++)
        np->lookahead_ps[l] = 0;
}
