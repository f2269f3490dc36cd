/* SPDX-License-Identifier: Apache-2.0 */
/* The collective executor (see coll-exec.h): connections with credits,
 * programs run in order, messages through net.h. All state lives in arrays
 * indexed by connection, program and operation; events carry those indices.
 * Each connection has exactly one sending and one receiving program, so a
 * wake-up names one program. A program's operations are stored as runs:
 * an operation the same as the one before it (the same peers, bytes and
 * reduction: a ring's steps and slices) adds one to that one's count, so
 * what is stored grows with the kinds of step, not with steps x slices
 * (a 512-GPU ring all_reduce: 16.7 million operations of 40 bytes, read
 * one per event across 8,192 programs, had been most of its time in cache
 * and TLB misses).
 */
#include "coll/coll-exec.h"
#include "coll/coll-exec-state.h"

#include <math.h>

#include "core/core-engine.h"
#include "core/core-memory.h"
#include "core/core-time.h"
#include "topo/topo-route.h"

CollExec *
coll_exec_new(const TopoGraph *graph, const TopoRouter *router, const HwGpu *gpu, CollProto proto,
              uint32_t channels_per_gpu, double channel_bytes_per_s, uint64_t start_ps)
{
    g_return_val_if_fail(proto != COLL_PROTO_AUTO, NULL);
    CollExec *ex = g_new0(CollExec, 1);
    ex->graph = graph;
    ex->router = router;
    ex->stream_bytes_per_s = gpu != NULL ? hw_gpu_stream_bytes_per_s(gpu) : 0;
    ex->proto = proto;
    ex->channels_per_gpu = MAX(channels_per_gpu, 1);
    ex->channel_bytes_per_s = channel_bytes_per_s;
    ex->start_ps = start_ps;
    ex->parts = g_array_new(FALSE, TRUE, sizeof(Part));
    ex->conns = g_array_new(FALSE, TRUE, sizeof(Conn));
    ex->progs = g_array_new(FALSE, TRUE, sizeof(Prog));
    ex->ops = g_array_new(FALSE, TRUE, sizeof(Op));
    ex->peers = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    ex->building = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    return ex;
}

void
coll_exec_free(CollExec *ex)
{
    if (ex == NULL)
        return;
    g_array_unref(ex->parts);
    g_array_unref(ex->conns);
    g_array_unref(ex->progs);
    g_array_unref(ex->ops);
    g_array_unref(ex->peers);
    g_ptr_array_unref(ex->building);
    g_free(ex);
}

uint32_t
coll_exec_participant(CollExec *ex, uint32_t vertex)
{
    const TopoVertex *v = topo_graph_vertex(ex->graph, vertex);
    g_return_val_if_fail(v->kind == TOPO_GPU || v->kind == TOPO_NVSWITCH || v->kind == TOPO_LEAF ||
                             v->kind == TOPO_SPINE,
                         NONE);
    Part p = {.vertex = vertex, .gpu = v->kind == TOPO_GPU};
    g_array_append_val(ex->parts, p);
    return ex->parts->len - 1;
}

void
coll_exec_set_reduce_rate(CollExec *ex, uint32_t participant, uint64_t bytes_per_s)
{
    g_return_if_fail(participant < ex->parts->len &&
                     !g_array_index(ex->parts, Part, participant).gpu);
    g_array_index(ex->parts, Part, participant).reduce_bytes_per_s = bytes_per_s;
}

/* Time a small write (a flag, a head pointer) takes from vertex a to b. */
static uint64_t
small_write_ps(const CollExec *ex, uint32_t a, uint32_t b)
{
    TopoRoute route;
    if (!topo_router_route(ex->router, a, b, &route))
        g_error("coll-exec: no route from vertex %u to vertex %u", a, b);
    return topo_path_latency_ps(ex->graph, &route.path[0], 8);
}

/* The pace a GPU program's messages on c keep: its channel's rate, c's
 * share of it, in wire bytes; 0 for a switch's or without a limit. */
static void
set_pace(const CollExec *ex, Conn *c)
{
    bool paced = g_array_index(ex->parts, Part, c->src).gpu && ex->channel_bytes_per_s > 0;
    c->max_bytes_per_s =
        paced ? (uint64_t)ceil(ex->channel_bytes_per_s * c->share * c->wire_factor) : 0;
}

uint32_t
coll_exec_connection(CollExec *ex, uint32_t src, uint32_t dst, uint32_t depth, double wire_factor)
{
    g_return_val_if_fail(src < ex->parts->len && dst < ex->parts->len && src != dst, NONE);
    g_return_val_if_fail(depth >= 1 && depth <= MAX_DEPTH && wire_factor >= 1, NONE);
    uint32_t va = g_array_index(ex->parts, Part, src).vertex;
    uint32_t vb = g_array_index(ex->parts, Part, dst).vertex;
    Conn c = {
        .src = src,
        .dst = dst,
        .src_vertex = va,
        .dst_vertex = vb,
        .depth = depth,
        .wire_factor = wire_factor,
        .share = 1.0,
        .copies = 1,
        .multiple = 1,
        .crosses_nodes =
            topo_graph_vertex(ex->graph, va)->node != topo_graph_vertex(ex->graph, vb)->node,
        .flag_ps = small_write_ps(ex, va, vb),
        .back_ps = small_write_ps(ex, vb, va),
        .sender = NONE,
        .receiver = NONE,
    };
    set_pace(ex, &c);
    g_array_append_val(ex->conns, c);
    return ex->conns->len - 1;
}

void
coll_exec_set_step_overhead(CollExec *ex, uint64_t step_overhead_ps, uint64_t net_step_overhead_ps)
{
    ex->step_overhead_ps = step_overhead_ps;
    ex->net_step_overhead_ps = net_step_overhead_ps;
}

void
coll_exec_set_share(CollExec *ex, uint32_t conn, double share, uint32_t copies)
{
    g_return_if_fail(conn < ex->conns->len && share > 0 && share * copies <= 1 + 1e-12 &&
                     copies >= 1);
    CONN(ex, conn)->share = share;
    CONN(ex, conn)->copies = copies;
    set_pace(ex, CONN(ex, conn));
}

void
coll_exec_set_fold(CollExec *ex, bool fold)
{
    ex->fold = fold;
}

void
coll_exec_set_multiple(CollExec *ex, uint32_t conn, uint32_t multiple)
{
    g_return_if_fail(conn < ex->conns->len && multiple >= 1);
    CONN(ex, conn)->multiple = multiple;
}

uint64_t
coll_exec_schedule_bytes(uint64_t n_progs, uint64_t n_conns, uint64_t n_runs, uint64_t n_peers)
{
    /* A building GArray: its header (GLib's is two words larger than the
     * public part) and room for two runs. */
    const uint64_t building = sizeof(GArray) + 2 * sizeof(void *) + 2 * sizeof(Op);
    double bytes = 2.0 * ((double)n_progs * (double)(sizeof(Prog) + building) +
                          (double)n_conns * sizeof(Conn) + (double)n_runs * sizeof(Op) +
                          (double)n_peers * sizeof(uint32_t));
    return bytes < 0x1p63 ? (uint64_t)bytes : UINT64_C(1) << 63;
}

uint32_t
coll_exec_program(CollExec *ex, uint32_t participant)
{
    g_return_val_if_fail(participant < ex->parts->len, NONE);
    Prog p = {.participant = participant,
              .done_ps = SIM_TIME_NEVER,
              .fenced = ex->proto == COLL_PROTO_SIMPLE};
    g_array_append_val(ex->progs, p);
    g_ptr_array_add(ex->building, g_array_new(FALSE, FALSE, sizeof(Op)));
    return ex->progs->len - 1;
}

/* Records that program prog is the one end of connection c it claims. */
static void
claim(CollExec *ex, uint32_t prog, uint32_t c, bool sending)
{
    g_assert(c < ex->conns->len);
    Conn *conn = CONN(ex, c);
    uint32_t *end = sending ? &conn->sender : &conn->receiver;
    g_assert(*end == NONE || *end == prog);
    g_assert(PROG(ex, prog)->participant == (sending ? conn->src : conn->dst));
    *end = prog;
}

void
coll_exec_set_fenced(CollExec *ex, uint32_t prog, bool fenced)
{
    g_return_if_fail(prog < ex->progs->len);
    PROG(ex, prog)->fenced = fenced;
}

/* Whether op receives and sends on the same connections, in the same
 * order, the same bytes and reduction. */
static bool
same_op(const CollExec *ex, const Op *op, const uint32_t *recv, uint32_t n_recv,
        const uint32_t *send, uint32_t n_send, uint64_t bytes, uint64_t reduce_bytes)
{
    if (op->n_recv != n_recv || op->n_send != n_send || op->bytes != bytes ||
        op->reduce_bytes != reduce_bytes)
        return false;
    for (uint32_t i = 0; i < n_recv; i++)
        if (PEER(ex, op->recv0 + i) != recv[i])
            return false;
    for (uint32_t i = 0; i < n_send; i++)
        if (PEER(ex, op->send0 + i) != send[i])
            return false;
    return true;
}

void
coll_exec_op(CollExec *ex, uint32_t prog, const uint32_t *recv, uint32_t n_recv,
             const uint32_t *send, uint32_t n_send, uint64_t bytes, uint64_t reduce_bytes)
{
    g_return_if_fail(prog < ex->progs->len);
    for (uint32_t i = 0; i < n_recv; i++)
        claim(ex, prog, recv[i], false);
    for (uint32_t i = 0; i < n_send; i++)
        claim(ex, prog, send[i], true);
    GArray *ops = ex->building->pdata[prog];
    if (ops->len > 0) {
        Op *last = &g_array_index(ops, Op, ops->len - 1);
        if (same_op(ex, last, recv, n_recv, send, n_send, bytes, reduce_bytes)) {
            last->repeat++;
            return;
        }
    }
    Op op = {.recv0 = ex->peers->len,
             .n_recv = n_recv,
             .send0 = ex->peers->len + n_recv,
             .n_send = n_send,
             .bytes = bytes,
             .reduce_bytes = reduce_bytes,
             .repeat = 1};
    g_array_append_vals(ex->peers, recv, n_recv);
    g_array_append_vals(ex->peers, send, n_send);
    g_array_append_val(ops, op);
}

/* ---- Running. ---- */

static void try_start(CollExec *ex, uint32_t prog);

static void
wake(CollExec *ex, uint32_t prog)
{
    if (prog == NONE || !PROG(ex, prog)->waiting)
        return;
    PROG(ex, prog)->waiting = false;
    SimEvent *ev = sim_engine_schedule(ex->engine, sim_engine_now(ex->engine), 0, ex->h_try);
    ev->target = prog;
}

static bool
ready(const CollExec *ex, const Op *op)
{
    for (uint32_t i = 0; i < op->n_recv; i++) {
        const Conn *c = CONN(ex, PEER(ex, op->recv0 + i));
        if (c->n_taken >= c->n_visible)
            return false;
    }
    for (uint32_t i = 0; i < op->n_send; i++) {
        const Conn *c = CONN(ex, PEER(ex, op->send0 + i));
        if (c->n_sent - c->n_freed >= c->depth)
            return false;
    }
    return true;
}

static void
finish_op_at(CollExec *ex, uint32_t prog, uint64_t time_ps)
{
    SimEvent *ev = sim_engine_schedule(ex->engine, time_ps, 0, ex->h_op_done);
    ev->target = prog;
}

/* Sends op's messages (now: the program has acted on its inputs). */
static void
issue_sends(CollExec *ex, uint32_t prog, const Op *op)
{
    Prog *p = PROG(ex, prog);
    p->pending_sends = 0;
    for (uint32_t i = 0; i < op->n_send; i++) {
        uint32_t ci = PEER(ex, op->send0 + i);
        Conn *c = CONN(ex, ci);
        uint64_t seq = c->n_sent++;
        uint64_t bytes = (uint64_t)ceil((double)op->bytes * c->share);
        uint64_t n = (uint64_t)c->copies * c->multiple;
        ex->n_messages += n;
        ex->payload_bytes += bytes * n;
        g_array_index(ex->parts, Part, c->src).sent_bytes += bytes * n;
        g_array_index(ex->parts, Part, c->dst).received_bytes += bytes * n;
        NetSend send = {
            .src = c->src_vertex,
            .dst = c->dst_vertex,
            .n_bytes = (uint64_t)ceil((double)bytes * c->wire_factor),
            .channel = prog,
            .path = NET_PATH_SPRAY,
            .issuer = NET_ISSUER_SM,
            /* The CTA writes the message as it goes, at its channel's
             * rate: no byte can land before the CTA wrote it. */
            .max_bytes_per_s = c->max_bytes_per_s,
            /* Between nodes the proxy posts a connection's messages on
             * one queue pair, which sends them in order. (Inside a node
             * a paced CTA writes them one after another anyway.) */
            .queue = c->crosses_nodes ? ci + 1 : 0,
            .copies = c->multiple,
            .on_done = ex->h_landed,
            .target = ci,
            .cookie = seq,
        };
        net_send(ex->net, &send);
        /* Between nodes the proxy carries the data: the GPU's writes stay in its node. */
        if (!c->crosses_nodes)
            p->pending_sends++;
    }
    /* Simple waits for its writes (the fence before the flag); LL and LL128
     * go on once they are issued. */
    if (!p->fenced || p->pending_sends == 0)
        finish_op_at(ex, prog, MAX(p->reduce_done_ps, sim_engine_now(ex->engine)));
}

/* Takes the messages op receives (their slots free a path latency later)
 * and sends its own. */
static void
start_op(CollExec *ex, uint32_t prog, const Op *op, uint64_t now)
{
    Prog *p = PROG(ex, prog);
    for (uint32_t i = 0; i < op->n_recv; i++) {
        uint32_t ci = PEER(ex, op->recv0 + i);
        Conn *c = CONN(ex, ci);
        c->n_taken++;
        SimEvent *ev = sim_engine_schedule(ex->engine, now + c->back_ps, 0, ex->h_credit);
        ev->target = ci;
    }
    const Part *part = &g_array_index(ex->parts, Part, p->participant);
    uint64_t busy_ps = 0;
    if (op->reduce_bytes > 0 && part->gpu && ex->stream_bytes_per_s > 0)
        busy_ps = sim_serialization_ps(2 * op->reduce_bytes * ex->channels_per_gpu,
                                       ex->stream_bytes_per_s);
    /* A switch's reduction engine (SHARP) aggregates at its rate. */
    if (op->reduce_bytes > 0 && !part->gpu && part->reduce_bytes_per_s > 0)
        busy_ps = sim_serialization_ps(op->reduce_bytes, part->reduce_bytes_per_s);
    /* The CTA moves the operation's bytes no faster than a channel can
     * (a receive alone costs it nothing: the sender wrote into place). */
    if (part->gpu && ex->channel_bytes_per_s > 0 && op->n_send > 0)
        busy_ps = MAX(busy_ps, (uint64_t)((double)op->bytes / ex->channel_bytes_per_s *
                                          (double)SIM_PS_PER_S));
    p->reduce_done_ps = now + busy_ps;
    issue_sends(ex, prog, op);
}

static void
try_start(CollExec *ex, uint32_t prog)
{
    Prog *p = PROG(ex, prog);
    if (p->running)
        return;
    uint64_t now = sim_engine_now(ex->engine);
    if (p->next_op == p->n_runs) {
        if (p->done_ps == SIM_TIME_NEVER) {
            p->done_ps = now;
            ex->end_ps = MAX(ex->end_ps, now);
        }
        return;
    }
    const Op *op = OP(ex, p->first_op + p->next_op);
    if (!ready(ex, op)) {
        p->waiting = true;
        return;
    }
    p->running = true;
    start_op(ex, prog, op, now);
}

static void
on_try(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)engine;
    try_start(ctx, event->target);
}

static void
on_op_done(SimEngine *engine, const SimEvent *event, void *ctx)
{
    CollExec *ex = ctx;
    Prog *p = PROG(ex, event->target);
    sim_engine_progress(engine);
    p->running = false;
    p->n_done++;
    if (++p->next_rep == OP(ex, p->first_op + p->next_op)->repeat) {
        p->next_op++;
        p->next_rep = 0;
    }
    try_start(ex, event->target);
}

static void
make_visible(CollExec *ex, uint32_t ci, uint64_t seq)
{
    Conn *c = CONN(ex, ci);
    g_assert(seq >= c->n_visible && seq < c->n_visible + c->depth);
    c->visible_mask |= UINT64_C(1) << (seq % c->depth);
    while (c->visible_mask & (UINT64_C(1) << (c->n_visible % c->depth))) {
        c->visible_mask &= ~(UINT64_C(1) << (c->n_visible % c->depth));
        c->n_visible++;
    }
    ex->end_ps = MAX(ex->end_ps, sim_engine_now(ex->engine));
    wake(ex, c->receiver);
}

static void
on_landed(SimEngine *engine, const SimEvent *event, void *ctx)
{
    CollExec *ex = ctx;
    uint32_t ci = event->target;
    Conn *c = CONN(ex, ci);
    uint64_t now = sim_engine_now(engine);
    Prog *p = PROG(ex, c->sender);
    sim_engine_progress(engine);
    /* The flag follows the data once the sender's fence has seen it land;
     * a GPU then takes its step overhead to see it. */
    bool fence = p->fenced && !c->crosses_nodes;
    uint64_t delay = fence ? c->flag_ps : 0;
    if (g_array_index(ex->parts, Part, c->dst).gpu)
        delay += c->crosses_nodes ? ex->net_step_overhead_ps : ex->step_overhead_ps;
    if (fence && --p->pending_sends == 0)
        finish_op_at(ex, c->sender, MAX(now, p->reduce_done_ps));
    if (delay == 0) {
        make_visible(ex, ci, event->arg[0]);
    } else {
        SimEvent *ev = sim_engine_schedule(engine, now + delay, 0, ex->h_visible);
        ev->target = ci;
        ev->arg[0] = event->arg[0];
    }
}

static void
on_visible(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)engine;
    make_visible(ctx, event->target, event->arg[0]);
}

static void
on_credit(SimEngine *engine, const SimEvent *event, void *ctx)
{
    (void)engine;
    CollExec *ex = ctx;
    Conn *c = CONN(ex, event->target);
    c->n_freed++;
    wake(ex, c->sender);
}

/* Lays every program's operations out contiguously. */
static void
flatten(CollExec *ex)
{
    g_array_set_size(ex->ops, 0);
    for (uint32_t i = 0; i < ex->progs->len; i++) {
        GArray *ops = ex->building->pdata[i];
        Prog *p = PROG(ex, i);
        p->first_op = ex->ops->len;
        p->n_runs = ops->len;
        p->n_ops = 0;
        for (uint32_t k = 0; k < ops->len; k++)
            p->n_ops += g_array_index(ops, Op, k).repeat;
        g_array_append_vals(ex->ops, ops->data, ops->len);
    }
}

static void
reset(CollExec *ex)
{
    for (uint32_t i = 0; i < ex->conns->len; i++) {
        Conn *c = CONN(ex, i);
        c->n_sent = c->n_freed = c->n_visible = c->n_taken = 0;
        c->visible_mask = 0;
    }
    for (uint32_t i = 0; i < ex->progs->len; i++) {
        Prog *p = PROG(ex, i);
        p->next_op = p->next_rep = 0;
        p->n_done = 0;
        p->running = p->waiting = false;
        p->done_ps = SIM_TIME_NEVER;
    }
    ex->end_ps = 0;
    ex->n_messages = ex->payload_bytes = 0;
    for (uint32_t i = 0; i < ex->parts->len; i++)
        g_array_index(ex->parts, Part, i).sent_bytes =
            g_array_index(ex->parts, Part, i).received_bytes = 0;
}

static void
describe_part(const CollExec *ex, uint32_t part, GString *out)
{
    const TopoVertex *v = topo_graph_vertex(ex->graph, g_array_index(ex->parts, Part, part).vertex);
    g_string_append_printf(out, "%s %u", topo_vertex_kind_name(v->kind), v->index);
}

/* What an unfinished program waits for at its next operation. */
static void
describe_wait(const CollExec *ex, const Prog *p, GString *out)
{
    if (p->running) {
        g_string_append(out, " is running it (its sends have not all landed)");
        return;
    }
    const Op *op = OP(ex, p->first_op + p->next_op);
    for (uint32_t i = 0; i < op->n_recv; i++) {
        const Conn *c = CONN(ex, PEER(ex, op->recv0 + i));
        if (c->n_visible > c->n_taken)
            continue;
        g_string_append(out, " waits for a message from ");
        describe_part(ex, c->src, out);
        g_string_append_printf(out,
                               " (%" G_GUINT64_FORMAT " sent, %" G_GUINT64_FORMAT
                               " seen, %" G_GUINT64_FORMAT " taken)",
                               c->n_sent, c->n_visible, c->n_taken);
        return;
    }
    for (uint32_t i = 0; i < op->n_send; i++) {
        const Conn *c = CONN(ex, PEER(ex, op->send0 + i));
        if (c->n_sent - c->n_freed < c->depth)
            continue;
        g_string_append(out, " waits for a free slot at ");
        describe_part(ex, c->dst, out);
        g_string_append_printf(out, " (all %u in use)", c->depth);
        return;
    }
    g_string_append(out, " is ready but was never woken");
}

/* The error of a run that did not finish: the stuck programs (at most 4
 * named) and the network's stuck links. */
static void
stall_error(const CollExec *ex, SimRunOutcome outcome, GError **error)
{
    g_autoptr(GString) msg = g_string_new(NULL);
    uint32_t n_stuck = 0;
    for (uint32_t i = 0; i < ex->progs->len; i++) {
        const Prog *p = PROG(ex, i);
        if (p->done_ps != SIM_TIME_NEVER || n_stuck++ >= 4)
            continue;
        g_string_append_printf(msg, "; program %u on ", i);
        describe_part(ex, p->participant, msg);
        g_string_append_printf(msg, " at operation %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT,
                               p->n_done + 1, p->n_ops);
        describe_wait(ex, p, msg);
    }
    if (n_stuck > 4)
        g_string_append_printf(msg, "; and %u more programs", n_stuck - 4);
    g_autoptr(GString) links = g_string_new(NULL);
    net_describe_stuck(ex->net, links, 4);
    g_set_error(error, SIM_ERROR, SIM_ERROR_STALLED,
                "the collective stalled at %.3f us (%s), %u of %u programs unfinished%s%s%s",
                (double)sim_engine_now(ex->engine) / SIM_PS_PER_US,
                outcome == SIM_RUN_STALLED ? "a livelock: events without progress"
                                           : "a deadlock: no event left",
                n_stuck, ex->progs->len, msg->str, links->len ? "; links holding data" : "",
                links->str);
}

static bool
all_finished(const CollExec *ex)
{
    for (uint32_t i = 0; i < ex->progs->len; i++)
        if (PROG(ex, i)->done_ps == SIM_TIME_NEVER)
            return false;
    return true;
}

bool
coll_exec_run(CollExec *ex, NetFidelity fidelity, CollExecResult *result, GError **error)
{
    flatten(ex);
    reset(ex);
    ex->engine = sim_engine_new();
    ex->h_try = sim_engine_register(ex->engine, "coll-try", on_try, ex);
    ex->h_landed = sim_engine_register(ex->engine, "coll-landed", on_landed, ex);
    ex->h_visible = sim_engine_register(ex->engine, "coll-visible", on_visible, ex);
    ex->h_credit = sim_engine_register(ex->engine, "coll-credit", on_credit, ex);
    ex->h_op_done = sim_engine_register(ex->engine, "coll-op-done", on_op_done, ex);
    CollExecFold fold;
    bool folded = ex->fold && fidelity == NET_FIDELITY_FLOW && coll_exec_fold(ex, &fold);
    NetOptions options = {.seed = 1, .link_rep = folded ? fold.link_rep : NULL};
    ex->net = net_new(fidelity, ex->engine, ex->graph, ex->router, &options);
    for (uint32_t i = 0; i < ex->progs->len; i++) {
        if (PROG(ex, i)->done_ps != SIM_TIME_NEVER)
            continue; /* folded away */
        SimEvent *ev = sim_engine_schedule(ex->engine, ex->start_ps, 0, ex->h_try);
        ev->target = i;
    }
    sim_engine_set_watchdog(ex->engine, COLL_EXEC_WATCHDOG_EVENTS);
    sim_engine_watch_memory(ex->engine);
    SimRunOutcome outcome = sim_engine_run(ex->engine, SIM_TIME_NEVER);
    bool ok = outcome == SIM_RUN_DRAINED && all_finished(ex);
    if (outcome == SIM_RUN_MEMORY)
        sim_memory_error(error, "the collective's simulation",
                         "fewer GPUs or a smaller size shrink it");
    else if (!ok)
        stall_error(ex, outcome, error);
    *result = (CollExecResult){
        .time_ps = MAX(ex->end_ps, ex->start_ps),
        .n_messages = ex->n_messages,
        .payload_bytes = ex->payload_bytes,
    };
    net_get_stats(ex->net, &result->net);
    SimEngineStats es;
    sim_engine_get_stats(ex->engine, &es);
    result->n_events = es.n_events_executed;
    result->fold = 1;
    if (folded)
        coll_exec_unfold(ex, &fold, result);
    net_free(ex->net);
    sim_engine_free(ex->engine);
    ex->net = NULL;
    ex->engine = NULL;
    return ok;
}

uint32_t
coll_exec_n_participants(const CollExec *ex)
{
    return ex->parts->len;
}

void
coll_exec_participant_bytes(const CollExec *ex, uint32_t participant, uint64_t *sent,
                            uint64_t *received)
{
    g_return_if_fail(participant < ex->parts->len);
    const Part *p = &g_array_index(ex->parts, Part, participant);
    *sent = p->sent_bytes;
    *received = p->received_bytes;
}
