/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim explain coll: the reasoning behind a collective call's time.
 *
 * What NCCL's cost model predicts for every algorithm and protocol it could
 * run, which it picks and how it plans the call; then the time split into
 * the mechanisms the simulation charges (coll-estimate.h: kernel setup,
 * steps x their latency, bandwidth over the binding resource, Simple's
 * fences, reductions), each with its numbers and the models they come
 * from, and the benchmark's launch around the kernel (coll-harness.h);
 * then the simulated call, as nvlsim coll reports it, and what separates
 * the two. On a loopback system (virtual ranks on one GPU), the kernel's
 * plan and its exact closed form instead of NCCL's.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli-coll.h"
#include "cli/cli-explain.h"
#include "topo/topo-world.h"
#include "cli/cli.h"
#include "coll/coll-build.h"
#include "coll/coll-estimate.h"
#include "coll/coll-loopback.h"
#include "coll/coll-run.h"
#include "core/core-time.h"
#include "core/core-units.h"
#include "hw/hw-models.h"

static double
us(uint64_t ps)
{
    return (double)ps / SIM_PS_PER_US;
}

static double
gbs(double bytes_per_s)
{
    return bytes_per_s / 1e9;
}

/* What explain coll was asked: the call and how it is launched. */
typedef struct ExplainCall {
    const char *system_id;
    uint64_t n_gpus; /* 0: one node */
    CollCall call;
    CollHarness harness;
    bool collnet;      /* --collnet */
    const char *redop; /* -o: printed with a reducing collective */
} ExplainCall;

static bool
call_from_options(const ExplainOptions *o, const char *collective, ExplainCall *c, GError **error)
{
    *c = (ExplainCall){
        .system_id = o->system ? o->system : "dgx-h100",
        .call = {.op = COLL_OP_ALL_REDUCE, .n_bytes = UINT64_C(1) << 30, .elem_bytes = 4},
        .collnet = o->collnet,
        .redop = "sum"};
    if (!cli_parse_harness(o->harness, o->launch_mode, o->cuda_graph, &c->harness, error) ||
        !cli_coll_parse_collective(o->collective, collective, &c->call.op, error) ||
        (o->op && !cli_coll_parse_redop(o->op, &c->redop, error)))
        return false;
    if (o->algo && !coll_algo_parse(o->algo, &c->call.algo))
        return cli_bad_option(error, "algo", o->algo,
                              "auto, ring, tree, nvls, nvls_tree, direct, pat, collnet_direct "
                              "or collnet_chain");
    if (o->proto && !coll_proto_parse(o->proto, &c->call.proto))
        return cli_bad_option(error, "proto", o->proto, "auto, LL, LL128 or Simple");
    if (o->gpus && (!sim_units_parse_count(o->gpus, &c->n_gpus, NULL) || c->n_gpus < 2 ||
                    c->n_gpus > CLI_MAX_GPUS))
        return cli_bad_option(error, "gpus", o->gpus, "2 to 65536 ranks");
    return !o->bytes || cli_parse_size("bytes", o->bytes, &c->call.n_bytes, error);
}

/* The communicator c asks for: --gpus placed on hosts and NVLink domains
 * as --nodes, --gpus-per-node and --domains say (topo-place.h); NULL after
 * printing the error, *status its exit status (a usage error when the
 * placement, --collnet or --algo does not fit). */
static CollComm *
explain_comm(const ExplainCall *c, const ExplainOptions *o, TopoWorld **fabric, int *status)
{
    GError *error = NULL;
    g_autoptr(HwSystem) probe = hw_system_load_by_id(c->system_id, hw_models_dir(), &error);
    CollComm *comm = NULL;
    *status = CLI_EXIT_BAD_INPUT;
    CliPlaceInput where = {
        .n_gpus = (uint32_t)c->n_gpus,
        .text = {o->gpus, o->nodes, o->gpus_per_node, o->domains, NULL},
        .name = {"gpus", "nodes", "gpus-per-node", "domains", "gpu-list"},
        .options = true,
    };
    g_auto(TopoPlace) place = {0};
    const char *bad_name;
    if (probe != NULL && !cli_place(probe, &where, &place, &bad_name, &error)) {
        *status = CLI_EXIT_USAGE;
    } else if (probe != NULL) {
        *fabric = topo_world_load(c->system_id, place.n_domains, NULL, &error);
        TopoWorld *f = *fabric;
        if (f != NULL &&
            !cli_collnet(f->system, c->collnet, c->call.algo, place.n_domains, &error)) {
            *status = CLI_EXIT_USAGE;
        } else if (f != NULL) {
            comm = cli_place_comm(f, &place, &error);
            if (comm != NULL && !cli_check_algo(c->call.algo, comm, &error)) {
                g_clear_pointer(&comm, coll_comm_free);
                *status = CLI_EXIT_USAGE;
            }
        }
    }
    if (comm == NULL) {
        cli_print_error("explain", error);
        g_error_free(error);
    }
    return comm;
}

/* ---- NCCL's pick ---- */

static void
explain_pick(const CollComm *comm, const CollCall *call, const CollEstimate *e)
{
    printf("## What NCCL picks, and why\n");
    printf("NCCL's cost model (its tuning.cc) predicts every algorithm and protocol it could run; "
           "it takes the fastest:\n");
    CollAlgo algo = COLL_ALGO_AUTO;
    CollProto proto = COLL_PROTO_AUTO;
    coll_tune_select(&comm->info, call->op, e->n_bytes, &algo, &proto);
    for (int a = COLL_ALGO_RING; a < COLL_N_ALGOS; a++)
        for (int p = COLL_PROTO_LL; p < COLL_N_PROTOS; p++) {
            double t = coll_tune_time_us(&comm->info, call->op, a, p, e->n_bytes);
            if (t < 0)
                continue;
            bool pick = a == (int)algo && p == (int)proto;
            bool runs = a == (int)e->algo && p == (int)e->proto;
            printf("  %-10s %-7s %12.2f us%s%s\n", coll_algo_name(a), coll_proto_name(p), t,
                   pick ? "   <- the fastest: NCCL's choice" : "",
                   runs && !pick ? "   <- runs (--algo, --proto)" : "");
        }
    printf("It runs %u channels (one CTA each), chunks of %" G_GUINT64_FORMAT
           " bytes, slices of %" G_GUINT64_FORMAT " bytes, %u slices in flight a connection.\n\n",
           e->plan.n_channels, e->plan.chunk_bytes, e->plan.slice_bytes, e->plan.slices_in_flight);
}

/* ---- The estimate ---- */

/* How the algorithm's steps are counted. */
static const char *
steps_rule(const CollEstimate *e)
{
    switch (e->algo) {
    case COLL_ALGO_RING:
        return e->op == COLL_OP_ALL_REDUCE ? "ring all_reduce: 2(n-1) steps"
               : e->op == COLL_OP_BROADCAST || e->op == COLL_OP_REDUCE
                   ? "ring: n-1 hops of a chain from the root, pipelined"
                   : "ring: n-1 steps";
    case COLL_ALGO_TREE:
        return "tree: up each node's chain (ppn-1) and the nodes' tree (log2 nodes), then down";
    case COLL_ALGO_NVLS_TREE:
        return "NVLS-tree: to the switch, reduced to the head, up the heads' tree between nodes "
               "and down it, back to the switch, multicast to all";
    case COLL_ALGO_NVLS:
        return e->op == COLL_OP_ALL_REDUCE
                   ? "NVLS: to the switch, reduced to the segment's owner, back to the switch, "
                     "multicast to all"
               : e->op == COLL_OP_REDUCE_SCATTER
                   ? "NVLS: to the switch, reduced to the segment's owner"
                   : "NVLS: the owner to the switch, multicast to all";
    case COLL_ALGO_PAT:
        return e->op == COLL_OP_ALL_GATHER
                   ? "PAT: the data of the rank 2^k away comes over dim k, ceil(log2 n) levels of "
                     "binomial trees, one a rank"
                   : "PAT: partials go towards their owner over the dims, ceil(log2 n) levels, "
                     "reduced on the way";
    case COLL_ALGO_COLLNET_CHAIN:
        return "CollNet Chain: up each node's chain to its head (ppn-1), the head's NIC to the "
               "SHARP switches and back (2), down the chain (ppn-1)";
    case COLL_ALGO_COLLNET_DIRECT:
        return "CollNet Direct: every rank to each head (1), the heads' NICs to the SHARP "
               "switches and back (2), each head to every rank (1)";
    default:
        return e->op == COLL_OP_ALLTOALL ? "direct: one round of sends to every peer at once"
                                         : "direct: one round, the buffer to the next rank";
    }
}

static void
print_step(const char *where, const CollEstimateStep *s, const char *sync)
{
    printf("    %s: %u write%s x %.3f us of wire (rank %u to %u over %u link%s: "
           "topo_path_latency_ps, the models' link and switch latencies) + %.3f us %s = "
           "%.3f us a step\n",
           where, s->n_writes, s->n_writes == 1 ? "" : "s (the data, then its flag)",
           us(s->wire_ps), s->from, s->to, s->n_hops, s->n_hops == 1 ? "" : "s", us(s->sync_ps),
           sync, us(s->step_ps));
}

static void
explain_latency(const CollComm *comm, const CollEstimate *e)
{
    printf("  latency       %10.2f us  %s:", us(e->latency_exposed_ps), steps_rule(e));
    if (e->intra.n_steps)
        printf(" %u inside a node x %.3f us", e->intra.n_steps, us(e->intra.step_ps));
    if (e->inter.n_steps)
        printf("%s %u between nodes x %.3f us", e->intra.n_steps ? " +" : "", e->inter.n_steps,
               us(e->inter.step_ps));
    printf(" = %.2f us\n", us(e->latency_ps));
    if (e->algo == COLL_ALGO_NVLS || e->algo == COLL_ALGO_NVLS_TREE)
        printf("    inside a node: one write between a GPU and a switch plane (its spine, "
               "where the ranks span boards), %.3f us over %u link%s (topo_path_latency_ps); "
               "NVLS's loads and stores need no flag: its synchronisation is the NVLS sync "
               "above, once a call\n",
               us(e->intra.wire_ps), e->intra.n_hops, e->intra.n_hops == 1 ? "" : "s");
    if (e->intra.n_steps && e->algo != COLL_ALGO_NVLS && e->algo != COLL_ALGO_NVLS_TREE) {
        g_autofree char *sync = g_strdup_printf(
            "of synchronisation (NCCL's per-step latency for %s %s, %.2f us, less the wire)",
            coll_algo_name(e->algo == COLL_ALGO_DIRECT ? COLL_ALGO_RING : e->algo),
            coll_proto_name(e->proto), e->intra.nccl_step_us);
        print_step("inside a node", &e->intra, sync);
    }
    if (e->inter.n_steps) {
        uint64_t post = comm->system->runtime->proxy_post_ps;
        g_autofree char *sync = g_strdup_printf(
            "of the network proxy's post (%" G_GUINT64_FORMAT " x proxy_post %.3f us%s)",
            post ? e->inter.sync_ps / post : 0, us(post),
            e->proto == COLL_PROTO_SIMPLE ? ": Simple's data, flag and flush" : "");
        print_step("between nodes", &e->inter, sync);
    }
    if (e->step_copy_ps > 0)
        printf(
            "    the ranks run in step, each from its own segment: a step waits for its "
            "neighbour's slice (its transfer %.3f us%s, and the step) only beyond the step's "
            "own copies (%.3f us, its share of the bandwidth term), in each of %" G_GUINT64_FORMAT
            " loop%s over a segment's chunks\n",
            us(e->intra.transfer_ps), e->inter.n_steps ? " inside a node" : "", us(e->step_copy_ps),
            e->n_loops, e->n_loops == 1 ? "" : "s");
}

static void
print_bound(uint64_t ps, bool binds)
{
    printf(" %10.2f us%s\n", us(ps), binds ? "   <- binds" : "");
}

static const char *
moved_rule(const CollEstimate *e)
{
    if (e->op == COLL_OP_ALLTOALL)
        return "(n-1)/n of the buffer to n-1 peers";
    if (e->op == COLL_OP_SENDRECV)
        return "the buffer to its peer";
    if (e->algo == COLL_ALGO_COLLNET_CHAIN)
        return "its part of each channel's chain up and down the node, and, a head, the channel "
               "to the SHARP switches";
    if (e->algo == COLL_ALGO_COLLNET_DIRECT)
        return "its scatter to the heads and, a head, its gather to every rank and its part to "
               "the SHARP switches";
    return e->algo == COLL_ALGO_TREE ? "nccl-tests' bus factor; the tree sends it up and down"
                                     : "nccl-tests' bus factor";
}

static void
explain_switch(const CollComm *comm, const CollEstimate *e)
{
    const HwSwitch *sw = comm->system->nvswitch;
    printf("  bandwidth     %10.2f us  each rank writes %" G_GUINT64_FORMAT " B to the switch "
           "and reads as much back (%s%s%s), where nccl-tests' bus factor counts %.4g x the "
           "buffer:\n",
           us(e->bandwidth_ps), e->nvlink_bytes,
           e->op != COLL_OP_ALL_GATHER ? "its copy of every segment" : "",
           e->algo == COLL_ALGO_NVLS_TREE ? " and, a head, the total of its share"
           : e->op == COLL_OP_ALL_REDUCE  ? " and its own segment's sum"
                                          : "",
           e->op == COLL_OP_ALL_GATHER ? "its segment, multicast back to all" : "", e->factor);
    printf("    CTAs      no per-channel cap: the switch's engines move the data\n");
    printf("    switch    %" G_GUINT64_FORMAT " B x 1/%.2f (NCCL's NVLS efficiency: the "
           "switch reduces and multicasts at that part of its ports' rate) / (%u links to the "
           "switch planes, %.2f GB/s of data after packet headers):",
           e->nvlink_bytes, coll_tune_nvls_efficiency(&comm->info), e->n_nvlinks,
           gbs(e->nvlink_bytes_per_s));
    print_bound(e->nvlink_ps, true);
    if (sw != NULL && sw->nvls_bytes_per_s > 0)
        printf("              (the switch model's nvls_bandwidth, %.2f GB/s a port, x %u "
               "ports = %.2f GB/s, is %s the links' data rate; the simulation charges the "
               "links)\n",
               gbs((double)sw->nvls_bytes_per_s), e->n_nvlinks,
               gbs((double)sw->nvls_bytes_per_s * e->n_nvlinks),
               (double)sw->nvls_bytes_per_s * e->n_nvlinks >= e->nvlink_bytes_per_s ? "above"
                                                                                    : "below");
}

static void
explain_bandwidth(const CollComm *comm, const CollEstimate *e)
{
    if (e->algo == COLL_ALGO_NVLS) {
        explain_switch(comm, e);
        return;
    }
    if (e->algo == COLL_ALGO_NVLS_TREE) {
        explain_switch(comm, e);
        printf("    NICs      %" G_GUINT64_FORMAT " B (the busiest head: its share of each "
               "channel, once for each send its node makes in that channel's tree, up to the "
               "parent and down to each child) / (the path from rank %u to %u through the "
               "NICs, %.2f GB/s of data):",
               e->nic_bytes, e->inter.from, e->inter.to, gbs(e->nic_bytes_per_s));
        print_bound(e->nic_ps, e->bound == COLL_BOUND_NIC);
        return;
    }
    printf("  bandwidth     %10.2f us  each rank sends %.4g x %" G_GUINT64_FORMAT
           " B = %" G_GUINT64_FORMAT " B (%s); the slowest of:\n",
           us(e->bandwidth_ps), e->factor, e->n_bytes, e->moved_bytes, moved_rule(e));
    if (e->channel_bytes_per_s > 0) {
        printf("    CTAs      %u %sCTAs x %.2f GB/s (NCCL's per-channel rate, "
               "coll_tune_channel_bw) = %.2f GB/s, %" G_GUINT64_FORMAT " B each:",
               e->n_ctas, e->algo == COLL_ALGO_TREE ? "up and as many down " : "",
               gbs(e->channel_bytes_per_s), gbs(e->channel_bytes_per_s * e->n_ctas), e->cta_bytes);
        print_bound(e->channels_ps, e->bound == COLL_BOUND_CHANNELS);
    } else {
        printf("    CTAs      no per-channel cap: a program per peer sends at the links' "
               "rate\n");
    }
    if (e->node_link != NULL)
        printf("    in node   %" G_GUINT64_FORMAT " B x %.4g on the wire (%s), %.3g of it on the "
               "busiest link of the node's routes to the peers (%u x %s, %.2f GB/s of data "
               "after packet headers):",
               e->nvlink_bytes, e->wire_factor, coll_proto_name(e->proto), e->node_link_share,
               e->node_link->n_links, e->node_link->spec->name,
               gbs(e->nvlink_bytes_per_s * e->node_link_share));
    else if (e->nvlink_bytes > 0)
        printf("    NVLinks   %" G_GUINT64_FORMAT " B x %.4g on the wire (%s) / (%u links, "
               "%.2f GB/s of data after packet headers):",
               e->nvlink_bytes, e->wire_factor, coll_proto_name(e->proto), e->n_nvlinks,
               gbs(e->nvlink_bytes_per_s));
    if (e->node_link != NULL || e->nvlink_bytes > 0)
        print_bound(e->nvlink_ps, e->bound == COLL_BOUND_NVLINK);
    if (comm->n_nodes > 1) {
        printf("    NICs      %" G_GUINT64_FORMAT " B x %.4g on the wire / (the path from rank "
               "%u to %u through the NICs, %.2f GB/s of data):",
               e->nic_bytes, e->wire_factor, e->inter.from, e->inter.to, gbs(e->nic_bytes_per_s));
        print_bound(e->nic_ps, e->bound == COLL_BOUND_NIC);
    }
}

static void
explain_fill(const CollEstimate *e)
{
    if (e->n_fill_hops == 0) {
        printf("  fill          %10.2f us  none: %s\n", 0.0,
               e->algo == COLL_ALGO_DIRECT ? "one round of sends"
                                           : "every rank starts from its own segment");
        return;
    }
    uint32_t inter = MIN(e->inter.n_steps, e->n_fill_hops);
    if (e->algo == COLL_ALGO_NVLS || e->algo == COLL_ALGO_NVLS_TREE) {
        printf("  fill          %10.2f us  each of the %u later stages sees its first chunk a "
               "window after the stage before: %u slots x %" G_GUINT64_FORMAT " B chunks of "
               "%u channels, sent and landing together at the links' rate: %u x %.3f us",
               us(e->fill_ps), e->n_fill_hops, e->n_slots, e->fill_bytes / MAX(e->n_slots, 1),
               e->n_fill_ctas, e->n_fill_hops - inter, us(e->slice_ps));
        if (inter)
            printf(" + %u hops of the heads' tree, a chunk of each channel over the NICs: %u x "
                   "%.3f us",
                   inter, inter, us(e->net_slice_ps));
        printf("\n");
        return;
    }
    printf("  fill          %10.2f us  a chain forwards whole slices: its last rank starts "
           "%u hops of a %" G_GUINT64_FORMAT " B slice after the first, %u CTA%s' slices "
           "sharing a hop's links (%s): %u x %.3f us inside a node",
           us(e->fill_ps), e->n_fill_hops, e->fill_bytes, e->n_fill_ctas,
           e->n_fill_ctas == 1 ? "" : "s",
           e->n_fill_ctas == e->n_ctas ? "every channel takes the same order"
                                       : "the order rotates by channel",
           e->n_fill_hops - inter, us(e->slice_ps));
    if (inter)
        printf(" + %u x %.3f us over the NICs", inter, us(e->net_slice_ps));
    printf("\n");
}

static void
explain_fence_slots(const CollEstimate *e)
{
    if (e->proto == COLL_PROTO_SIMPLE && e->n_fenced > 0 && e->fence_op_ps > 0)
        printf("  fence         %10.2f us  Simple: each of a %s %" G_GUINT64_FORMAT
               " writes inside a node waits %.3f us to land beyond its copy before its flag%s\n",
               us(e->fence_ps), e->algo == COLL_ALGO_DIRECT ? "peer's" : "CTA's", e->n_fenced,
               us(e->fence_op_ps), e->fence_ps == 0 ? " (the NICs pace the call anyway)" : "");
    else
        printf("  fence         %10.2f us  %s\n", 0.0,
               e->algo == COLL_ALGO_NVLS ? "none: NVLS's loads and stores carry no flags"
               : e->algo == COLL_ALGO_NVLS_TREE
                   ? "none: NVLS's loads and stores carry no flags, the proxy the NICs' sends"
               : e->proto != COLL_PROTO_SIMPLE
                   ? "none: LL and LL128 carry their flags in the data"
                   : "none: Simple's writes land while the CTA is still copying (its "
                     "per-channel rate is below its share of the links)");
    if (e->n_windows == 0) {
        printf("  slots         %10.2f us  none: %s\n", 0.0,
               e->n_nodes == 1               ? "no sends between nodes"
               : e->algo == COLL_ALGO_DIRECT ? "one window of slots between nodes"
                                             : "sends between nodes leave at their CTA's pace");
        return;
    }
    printf("  slots         %10.2f us  between nodes a connection's %u slots go out in order "
           "on its queue pair; a window waits where a chunk's round trip (its wire, then its "
           "landing, the proxy's post and the slot's way back, 2 x %.3f + %.3f us) outlasts the "
           "window's wire: %" G_GUINT64_FORMAT " x %.3f us%s\n",
           us(e->slots_ps), e->n_slots, us(e->inter.wire_ps), us(e->inter.sync_ps), e->n_windows,
           us(e->window_dead_ps),
           e->slots_ps == 0 ? " (the node's links pace the call anyway)" : "");
}

static void
explain_reduction(const CollEstimate *e)
{
    if (e->reduce_bytes == 0) {
        printf("  reduction     %10.2f us  %s\n", 0.0,
               e->algo == COLL_ALGO_NVLS ? "in the switch: no GPU time"
               : coll_op_reduces(e->op)  ? "none"
                                         : "none: the op copies");
        return;
    }
    printf("  reduction     %10.2f us  2 x %" G_GUINT64_FORMAT " B reduced a rank / %.2f GB/s "
           "(the GPU's streaming rate, hw_gpu_stream_bytes_per_s) = %.2f us, %s\n",
           us(e->reduce_exposed_ps), e->reduce_bytes, gbs((double)e->stream_bytes_per_s),
           us(e->reduce_ps),
           e->reduce_exposed_ps == 0 ? "hidden behind the copies of the same steps"
           : e->reduce_last_bytes > 0
               ? "the last step's (its own segment, nothing to send) in full, the others' beyond "
                 "their copies"
               : "beyond the copies of the same steps");
}

/* The harness's terms for a kernel of kernel_ps, in words; returns the
 * reported time. */
static uint64_t
launch_text(const CollComm *comm, const CollHarness *h, uint64_t kernel_ps, GString *out)
{
    const HwRuntime *rt = comm->system->runtime;
    CollHarnessTime t;
    coll_harness_time(rt, h, coll_comm_ranks_per_host(comm), kernel_ps, &t);
    if (rt == NULL) {
        g_string_append(out, "none: CUDA events around nvlsim-bench's kernel, no NCCL runtime");
        return t.time_ps;
    }
    uint32_t gpus = h->mode == COLL_LAUNCH_THREADS ? MAX(coll_comm_ranks_per_host(comm), 1) : 1;
    const char *issue = h->cuda_graph ? "graph_issue" : "host_issue";
    const char *gap = h->cuda_graph ? "graph_kernel_gap" : "kernel_gap";
    uint64_t issue_ps = h->cuda_graph ? rt->graph_issue_ps : rt->host_issue_ps;
    g_string_append_printf(out, "%s, %s%s: H = %u GPU%s x %s %.2f us = %.2f us",
                           coll_harness_kind_name(h->kind),
                           h->mode == COLL_LAUNCH_THREADS ? "one thread driving its host's GPUs"
                                                          : "one process per GPU",
                           h->cuda_graph ? ", a CUDA graph" : "", gpus, gpus == 1 ? "" : "s", issue,
                           us(issue_ps), us(t.issue_ps));
    if (h->kind == COLL_HARNESS_BLOCKING) {
        g_string_append_printf(out, "; every call waits: T = H + launch_latency %.2f us + kernel",
                               us(rt->launch_latency_ps));
        return t.time_ps;
    }
    g_string_append_printf(out,
                           ", D = kernel + %s %.2f us = %.2f us; %s paces: T = max(H, D) + "
                           "(min(H, D) + launch_latency %.2f us) / %" G_GUINT64_FORMAT
                           " iterations",
                           gap, us(t.device_ps - kernel_ps), us(t.device_ps),
                           t.issue_ps > t.device_ps ? "the host" : "the GPU",
                           us(rt->launch_latency_ps), rt->n_iterations);
    return t.time_ps;
}

/* The estimate, term by term; returns what the harness would report. */
static uint64_t
explain_estimate(const CollComm *comm, const CollHarness *h, const CollEstimate *e)
{
    printf("## The estimate, mechanism by mechanism\n");
    printf("What the simulation charges, as closed forms, for %s %s on %u channels:\n",
           coll_algo_name(e->algo), coll_proto_name(e->proto), e->plan.n_channels);
    printf("  kernel setup  %10.2f us  the runtime model's kernel_setup (%s)\n", us(e->setup_ps),
           comm->system->runtime->name);
    if (e->sync_ps > 0)
        printf("  NVLS sync     %10.2f us  NCCL's NVLS latency %.2f us less the wire through the "
               "switch, once\n",
               us(e->sync_ps), e->intra.nccl_step_us);
    explain_latency(comm, e);
    explain_bandwidth(comm, e);
    explain_fill(e);
    explain_fence_slots(e);
    explain_reduction(e);
    printf("  kernel        %10.2f us  the sum (the %s bind the bandwidth)\n", us(e->kernel_ps),
           coll_bound_name(e->bound));
    g_autoptr(GString) text = g_string_new(NULL);
    uint64_t reported = launch_text(comm, h, e->kernel_ps, text);
    printf("  launch        %10.2f us  %s\n", us(reported - e->kernel_ps), text->str);
    printf("  reported      %10.2f us  kernel + launch, as nvlsim coll would print it\n\n",
           us(reported));
    return reported;
}

/* ---- Loopback ---- */

/* The loopback kernel's closed form; returns it in ps. */
static uint64_t
explain_loopback(const CollComm *comm, CollOp op, uint64_t bytes)
{
    const HwLoopback *lb = comm->system->loopback;
    uint32_t k = comm->n_ranks, steps = op == COLL_OP_ALL_REDUCE ? 2 * (k - 1) : k - 1;
    uint64_t seg = bytes / k, n_full = seg / lb->slot_bytes, rest = seg % lb->slot_bytes;
    double h_full = us(coll_loopback_hop_ps(lb, lb->slot_bytes));
    double h_rest = rest ? us(coll_loopback_hop_ps(lb, rest)) : 0;
    uint64_t form = coll_loopback_time_ps(lb, op, k, bytes);
    printf("## What runs: nvlsim-bench's loopback kernel, not NCCL\n");
    printf("%u virtual ranks on one %s, one CTA each, pass %s around a ring through the GPU's "
           "own L2 and HBM.\nA step forwards one chunk of at most a slot (%" G_GUINT64_FORMAT
           " B, %" G_GUINT64_FORMAT " slots a rank) and raises a flag; there are no slices, so "
           "a step waits for the whole previous one:\nthe %" G_GUINT64_FORMAT
           " B each rank owns go in %" G_GUINT64_FORMAT " loop%s of %u steps (all_reduce "
           "2(n-1), all_gather n-1), one after the other.\n\n",
           k, comm->system->gpu->name, coll_op_name(op), lb->slot_bytes, lb->n_slots, seg,
           n_full + (rest > 0), n_full + (rest > 0) == 1 ? "" : "s", steps);
    printf("## The closed form\n");
    printf("  h(c) = c / B + 128 B / B + L + 2 x 8 B / B + L + overhead   (B = %.2f GB/s a CTA, "
           "L = %.3f us a flag, overhead %.3f us a step)\n",
           gbs((double)lb->cta_bytes_per_s), us(2 * lb->port.latency_ps), us(lb->step_overhead_ps));
    printf("  T = launch + steps x (full loops x h(slot) + h(rest))\n");
    printf("    = %.2f us + %u x (%" G_GUINT64_FORMAT " x %.3f us + %.3f us) = %.2f us\n",
           us(lb->launch_ps), steps, n_full, h_full, h_rest, us(form));
    printf("  (the bandwidth: one CTA's %.2f GB/s; no NCCL runtime, no harness around it)\n\n",
           gbs((double)lb->cta_bytes_per_s));
    return form;
}

/* ---- The simulation and the gap ---- */

static uint64_t
explain_sim(const CollComm *comm, const ExplainCall *c, uint64_t bytes, const CollResult *r)
{
    g_autoptr(GString) text = g_string_new(NULL);
    uint64_t reported = launch_text(comm, &c->harness, r->time_ps, text);
    double t = us(reported), algbw = (double)bytes / (t * 1e3);
    printf("## The simulation (flow fidelity; nvlsim coll prints the same)\n");
    printf("  kernel %.2f us (its setup %.2f us included) + launch %.2f us = time %.2f us\n",
           us(r->time_ps), us(r->start_ps), us(reported - r->time_ps), t);
    printf("  launch: %s\n", text->str);
    printf("  time %.2f us, algbw %.2f GB/s, busbw %.2f GB/s (%s, %s, %u channels)\n", t, algbw,
           algbw * coll_busbw_factor(c->call.op, comm->n_ranks), coll_algo_name(r->algo),
           coll_proto_name(r->proto), r->n_channels);
    printf("  %" G_GUINT64_FORMAT " messages carried %" G_GUINT64_FORMAT
           " payload bytes in %" G_GUINT64_FORMAT " events\n",
           r->exec.n_messages, r->exec.payload_bytes, r->exec.n_events);
    if (r->exec.fold > 1) {
        g_autoptr(GString) step = g_string_new(NULL);
        if (r->exec.fold_nodes != 0)
            g_string_append_printf(step, "%u node%s on", r->exec.fold_nodes,
                                   r->exec.fold_nodes == 1 ? "" : "s");
        if (r->exec.fold_gpus != 0)
            g_string_append_printf(step, "%s%u GPU%s on within its node",
                                   step->len > 0 ? " and " : "", r->exec.fold_gpus,
                                   r->exec.fold_gpus == 1 ? "" : "s");
        printf("  folded by symmetry: moving every rank %s maps the call onto itself, so "
               "1 rank in %u ran, standing for all\n",
               step->str, r->exec.fold);
    }
    printf("\n");
    return reported;
}

static void
explain_gap(const CollComm *comm, const CollEstimate *e, uint64_t sim_ps, uint64_t est_ps,
            const CollResult *r)
{
    double d = us(sim_ps) - us(est_ps);
    printf("## What separates them\n");
    printf("  simulated - estimate = %+.2f us (%+.1f%%)\n", d, 100.0 * d / us(est_ps));
    printf("  NCCL's own model says %.2f us for the same choice: its per-step latencies and "
           "bandwidth tables, not the links' rates\n",
           r->nccl_model_us);
    printf("  the estimate follows one rank: the simulation runs every CTA's %" G_GUINT64_FORMAT
           "-byte slices through %u-slot connections, shares every link max-min fairly among "
           "the flows crossing it (%s), and reduces at the GPU's streaming rate step by step; "
           "it adds up what the estimate can only bound: the pipeline %s, the slots' round "
           "trips%s.\n",
           e->plan.slice_bytes, e->plan.slices_in_flight,
           comm->n_nodes > 1 ? "switch ports, rails, the fabric" : "switch ports and planes",
           e->algo == COLL_ALGO_RING && e->op != COLL_OP_BROADCAST && e->op != COLL_OP_REDUCE
               ? "between bandwidth- and latency-bound steps"
               : "filling and draining",
           e->n_nodes > 1 ? ", the traffic of other ranks on a rank's NICs and the spine" : "");
}

int
cli_explain_coll(const ExplainOptions *o, const char *collective)
{
    ExplainCall c;
    g_autoptr(GError) error = NULL;
    if (!call_from_options(o, collective, &c, &error)) {
        cli_print_error("explain", error);
        return CLI_EXIT_USAGE;
    }
    g_autoptr(TopoWorld) fabric = NULL;
    int status;
    g_autoptr(CollComm) comm = explain_comm(&c, o, &fabric, &status);
    if (comm == NULL)
        return status;
    /* At least one element, for each rank where the size is the whole
     * buffer (as coll asks of its sizes). */
    CollOp op = c.call.op;
    if (!cli_coll_check_unit("bytes", o->bytes, c.call.n_bytes,
                             coll_op_unit_bytes(op, c.call.elem_bytes, comm->n_ranks),
                             c.call.elem_bytes, "float", "", &error)) {
        cli_print_error("explain", error);
        return CLI_EXIT_USAGE;
    }
    bool loopback = comm->system->loopback != NULL;
    CollEstimate e;
    CollResult r;
    if ((!loopback && !coll_estimate(comm, &c.call, &e, &error)) ||
        !coll_run(comm, &c.call, NET_FIDELITY_FLOW, &r, &error)) {
        cli_print_error("explain", error);
        return cli_simulation_status(error);
    }
    uint64_t bytes = loopback ? c.call.n_bytes : e.n_bytes;
    g_autofree char *nodes = cli_nodes_text(comm->system, comm->n_hosts, comm->n_nodes);
    bool reduces = coll_op_reduces(op);
    printf("# nvlsim explain coll: %s%s%s%s of %" G_GUINT64_FORMAT " bytes on %u %s of %s (%s)\n\n",
           coll_op_name(op), reduces ? " (" : "", reduces ? c.redop : "", reduces ? ")" : "", bytes,
           comm->n_ranks, loopback ? "virtual ranks" : "GPUs", c.system_id, nodes);
    uint64_t est_ps;
    if (loopback) {
        est_ps = explain_loopback(comm, c.call.op, bytes);
    } else {
        explain_pick(comm, &c.call, &e);
        est_ps = explain_estimate(comm, &c.harness, &e);
    }
    uint64_t sim_ps = explain_sim(comm, &c, bytes, &r);
    if (loopback) {
        double d = us(sim_ps) - us(est_ps);
        printf("## What separates them\n");
        printf("  simulated - closed form = %+.2f us (%+.1f%%)\n", d, 100.0 * d / us(est_ps));
        printf("  nothing but rounding: one CTA a rank and no slices leave the simulation "
               "no overlap the form lacks (tests/coll/test-coll-loopback.c holds them equal "
               "to the picosecond).\n");
        return CLI_EXIT_OK;
    }
    explain_gap(comm, &e, sim_ps, est_ps, &r);
    return CLI_EXIT_OK;
}
