/* nvlsim explain: the reasoning behind a number, for teaching.
 *
 *   explain coll: what NCCL's cost model predicts for every algorithm and
 *     protocol it could run, which it picks and how it plans the call; the
 *     alpha-beta estimate of the pick with its numbers filled in; the
 *     simulated call (the same as nvlsim coll's); and what separates the
 *     two. On a loopback system (virtual ranks on one GPU), the kernel's
 *     plan and its exact closed form instead of NCCL's.
 *   explain run: a scenario's step taken apart: FLOPs per block and its
 *     closed form, the bytes of every tensor-, pipeline- and data-parallel
 *     collective a microbatch or a step issues, the pipeline bubble's
 *     closed form beside the simulated idle time, and the memory budget;
 *     then the simulated step (the same as nvlsim run's).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli-fabric.h"
#include "cli/cli-run.h"
#include "cli/cli.h"
#include "coll/coll-loopback.h"
#include "coll/coll-run.h"
#include "coll/coll-tune.h"
#include "core/core-time.h"
#include "core/core-units.h"
#include "hw/hw-models.h"
#include "work/work-compute.h"
#include "work/work-memory.h"

typedef struct ExplainOptions {
    char *system, *op, *bytes, *gpus;
    char **sets;
} ExplainOptions;

static GOptionContext *
explain_context(ExplainOptions *o)
{
    GOptionEntry entries[] = {
        {"system", 's', 0, G_OPTION_ARG_STRING, &o->system, "coll: system (default dgx-h100)",
         "NAME"},
        {"op", 'o', 0, G_OPTION_ARG_STRING, &o->op, "coll: operation (default all_reduce)", "OP"},
        {"bytes", 'b', 0, G_OPTION_ARG_STRING, &o->bytes, "coll: size (default 1G)", "SIZE"},
        {"gpus", 'g', 0, G_OPTION_ARG_STRING, &o->gpus, "coll: ranks (default one node)", "N"},
        {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->sets, "run: override a scenario key",
         "KEY=VALUE"},
        G_OPTION_ENTRY_NULL,
    };
    GOptionContext *context = g_option_context_new("coll|run [SCENARIO.ini]");
    g_option_context_set_summary(
        context, "Explains a collective call (explain coll) or a training step (explain run):\n"
                 "the model's choices and closed forms with the numbers filled in, beside the\n"
                 "simulated result.");
    g_option_context_add_main_entries(context, entries, NULL);
    return context;
}

/* ---- explain coll. ---- */

/* Steps of the ring schedule of op over n ranks. */
static uint32_t
ring_steps(CollOp op, uint32_t n)
{
    return op == COLL_OP_ALL_REDUCE ? 2 * (n - 1) : n - 1;
}

/* The communicator o asks for; NULL after printing the error. */
static CollComm *
explain_comm(const char *system_id, uint64_t n, CliFabric **fabric)
{
    GError *error = NULL;
    g_autoptr(HwSystem) probe = hw_system_load_by_id(system_id, hw_models_dir(), &error);
    CollComm *comm = NULL;
    if (probe != NULL) {
        uint32_t ranks = n ? (uint32_t)n : probe->n_gpus;
        *fabric = cli_fabric_load(system_id, (ranks + probe->n_gpus - 1) / probe->n_gpus, &error);
        comm = *fabric ? coll_comm_new((*fabric)->system, (*fabric)->graph, (*fabric)->router,
                                       ranks, &error)
                       : NULL;
    }
    if (comm == NULL) {
        cli_print_error("explain", error);
        g_error_free(error);
    }
    return comm;
}

/* NCCL's choice among its model's predictions, and the alpha-beta
 * estimate of it; returns the estimate in us. */
static double
explain_nccl(const CollComm *comm, CollOp op, uint64_t bytes)
{
    printf("## What NCCL picks, and why\n");
    printf("NCCL's cost model (its tuning.cc) predicts every algorithm and protocol it could run; "
           "it takes the fastest:\n");
    CollAlgo algo = COLL_ALGO_AUTO;
    CollProto proto = COLL_PROTO_AUTO;
    coll_tune_select(&comm->info, op, bytes, &algo, &proto);
    for (int a = COLL_ALGO_RING; a < COLL_N_ALGOS; a++)
        for (int p = COLL_PROTO_LL; p < COLL_N_PROTOS; p++) {
            double us = coll_tune_time_us(&comm->info, op, a, p, bytes);
            if (us < 0)
                continue;
            printf("  %-10s %-7s %12.2f us%s\n", coll_algo_name(a), coll_proto_name(p), us,
                   a == (int)algo && p == (int)proto ? "   <- the fastest: NCCL's choice" : "");
        }
    CollTunePlan plan;
    coll_tune_plan(&comm->info, op, algo, proto, bytes, &plan);
    printf("It runs %u channels (one CTA each), chunks of %" G_GUINT64_FORMAT
           " bytes, slices of %" G_GUINT64_FORMAT " bytes, %u slices in flight a connection.\n\n",
           plan.n_channels, plan.chunk_bytes, plan.slice_bytes, plan.slices_in_flight);

    double factor = coll_busbw_factor(op, comm->n_ranks);
    double ch_bw = coll_tune_channel_bw(&comm->info, op, algo, proto);
    double bus_bw = ch_bw * plan.n_channels;
    double alpha = coll_tune_step_latency_us(&comm->info, algo, proto);
    double base = (double)comm->system->runtime->kernel_setup_ps / SIM_PS_PER_US;
    uint32_t steps = ring_steps(op, comm->n_ranks);
    double per_rank = (double)bytes * factor;
    double estimate = base + steps * alpha + (bus_bw > 0 ? per_rank / (bus_bw * 1e3) : 0);
    printf("## The alpha-beta estimate\n");
    printf("A ring moves each rank's share through %u steps (all_reduce 2(n-1), the others "
           "n-1); each rank sends %.4g x the buffer\n(nccl-tests' bus factor: all_reduce "
           "2(n-1)/n, all_gather and reduce_scatter (n-1)/n):\n",
           steps, factor);
    printf("  T = launch + steps x alpha + bytes x factor / bus bandwidth\n");
    printf("    = %.2f us + %u x %.2f us + %" G_GUINT64_FORMAT " B x %.4g / (%u channels x "
           "%.2f GB/s)\n",
           base, steps, alpha, bytes, factor, plan.n_channels, ch_bw);
    printf("    = %.2f us + %.2f us + %.2f us = %.2f us\n", base, steps * alpha,
           bus_bw > 0 ? per_rank / (bus_bw * 1e3) : 0.0, estimate);
    printf("(launch: the runtime model's kernel_setup; alpha: "
           "NCCL's per-step latency; the bandwidth: NCCL's per-channel figure. For %s the ring "
           "form is an approximation: NCCL's own model above says %.2f us.)\n\n",
           coll_algo_name(algo), coll_tune_time_us(&comm->info, op, algo, proto, bytes));
    return estimate;
}

/* The loopback kernel's closed form; returns it in us. */
static double
explain_loopback(const CollComm *comm, CollOp op, uint64_t bytes)
{
    const HwLoopback *lb = comm->system->loopback;
    uint32_t k = comm->n_ranks, steps = ring_steps(op, k);
    uint64_t seg = bytes / k, n_full = seg / lb->slot_bytes, rest = seg % lb->slot_bytes;
    double h_full = (double)coll_loopback_hop_ps(lb, lb->slot_bytes) / SIM_PS_PER_US;
    double h_rest = rest ? (double)coll_loopback_hop_ps(lb, rest) / SIM_PS_PER_US : 0;
    double launch = (double)lb->launch_ps / SIM_PS_PER_US;
    double form = (double)coll_loopback_time_ps(lb, op, k, bytes) / SIM_PS_PER_US;
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
           (double)lb->cta_bytes_per_s / 1e9, (double)(2 * lb->port.latency_ps) / SIM_PS_PER_US,
           (double)lb->step_overhead_ps / SIM_PS_PER_US);
    printf("  T = launch + steps x (full loops x h(slot) + h(rest))\n");
    printf("    = %.2f us + %u x (%" G_GUINT64_FORMAT " x %.3f us + %.3f us) = %.2f us\n\n", launch,
           steps, n_full, h_full, h_rest, form);
    return form;
}

static int
explain_coll(const ExplainOptions *o)
{
    const char *system_id = o->system ? o->system : "dgx-h100";
    CollOp op = COLL_OP_ALL_REDUCE;
    uint64_t bytes = UINT64_C(1) << 30, n = 0;
    GError *error = NULL;
    if ((o->op && !coll_op_parse(o->op, &op)) ||
        (o->bytes && !cli_parse_size("bytes", o->bytes, &bytes, &error)) ||
        (o->gpus && (!sim_units_parse_count(o->gpus, &n, NULL) || n < 2 || n > 65536))) {
        if (error != NULL) {
            cli_print_error("explain", error);
            g_error_free(error);
        } else {
            fprintf(stderr, "nvlsim explain: --op or --gpus: expected a collective name and 2 "
                            "to 65536 ranks\n");
        }
        return CLI_EXIT_USAGE;
    }
    g_autoptr(CliFabric) fabric = NULL;
    g_autoptr(CollComm) comm = explain_comm(system_id, n, &fabric);
    if (comm == NULL)
        return CLI_EXIT_BAD_INPUT;
    CollCall call = {.op = op, .n_bytes = bytes, .elem_bytes = 4};
    CollResult r;
    if (!coll_run(comm, &call, NET_FIDELITY_FLOW, &r, &error)) {
        cli_print_error("explain", error);
        g_error_free(error);
        return CLI_EXIT_BAD_INPUT;
    }
    bool loopback = comm->system->loopback != NULL;
    printf("# nvlsim explain coll: %s of %" G_GUINT64_FORMAT " bytes on %u %s of %s (%u "
           "node%s)\n\n",
           coll_op_name(op), bytes, comm->n_ranks, loopback ? "virtual ranks" : "GPUs", system_id,
           comm->n_nodes, comm->n_nodes > 1 ? "s" : "");
    double estimate = loopback ? explain_loopback(comm, op, bytes) : explain_nccl(comm, op, bytes);
    CollHarness harness = COLL_HARNESS_DEFAULT;
    double sim_us = (double)coll_reported_ps(comm, &r, &harness) / 1e6;
    double algbw = (double)bytes / (sim_us * 1e3);
    double factor = coll_busbw_factor(op, comm->n_ranks);
    printf("## The simulation (flow fidelity; nvlsim coll prints the same)\n");
    printf("  time %.2f us, algbw %.2f GB/s, busbw %.2f GB/s (%s, %s, %u channels)\n", sim_us,
           algbw, algbw * factor, coll_algo_name(r.algo), coll_proto_name(r.proto), r.n_channels);
    printf("  %" G_GUINT64_FORMAT " messages carried %" G_GUINT64_FORMAT
           " payload bytes in %" G_GUINT64_FORMAT " events\n\n",
           r.exec.n_messages, r.exec.payload_bytes, r.exec.n_events);
    printf("## What separates them\n");
    printf("  simulated - %s = %+.2f us (%+.1f%%)\n", loopback ? "closed form" : "estimate",
           sim_us - estimate, 100.0 * (sim_us - estimate) / estimate);
    if (loopback) {
        printf("  nothing but rounding: one CTA a rank and no slices leave the simulation "
               "no overlap the form lacks (tests/coll/test-coll-loopback.c holds them equal "
               "to the picosecond).\n");
        return CLI_EXIT_OK;
    }
    printf("  protocol: %s puts %.4g wire bytes on a link per data byte (LL 16/8, LL128 "
           "128/120, Simple 1)\n",
           coll_proto_name(r.proto),
           r.proto == COLL_PROTO_LL      ? 2.0
           : r.proto == COLL_PROTO_LL128 ? 128.0 / 120.0
                                         : 1.0);
    printf("  the simulation pipelines slices through every step: the first byte waits for "
           "the path latency and flags of each hop, the last for the slowest link, "
           "and the GPU reduces at HBM speed while channels share it; links shared by "
           "channels or by ranks (contention) run at their max-min fair share.\n");
    return CLI_EXIT_OK;
}

/* ---- explain run. ---- */

static void
gib(const char *what, uint64_t bytes)
{
    printf("  %-34s %10.3f GiB\n", what, (double)bytes / (1 << 30));
}

static int
explain_run(const ExplainOptions *o, const char *path)
{
    GError *error = NULL;
    g_autoptr(WorkScenario) s = work_scenario_load(path, o->sets, NULL, &error);
    g_autoptr(CliFabric) fabric = NULL;
    WorkRunResult result = {0};
    if (s == NULL || s->trace_path != NULL ||
        !cli_run_scenario(s, &fabric, &result, NULL, &error)) {
        if (error == NULL)
            fprintf(stderr,
                    "nvlsim explain: %s replays a trace: nothing to explain from a "
                    "model\n",
                    s->path);
        else
            cli_print_error("explain", error);
        g_clear_error(&error);
        work_run_result_clear(&result);
        return CLI_EXIT_BAD_INPUT;
    }
    const WorkLayout *l = &s->layout;
    const WorkModel *m = s->model;
    uint64_t b = l->micro_batch, sl = l->seq_len, h = m->hidden_size, e = l->activation_bytes;
    uint64_t mb = work_layout_microbatches(l);
    printf("# nvlsim explain run: %s\n", s->name);
    cli_run_print_injected(s, fabric->system);
    printf("\n");

    printf("## FLOPs of one block, one microbatch (b = %" G_GUINT64_FORMAT
           " sequences of s = %" G_GUINT64_FORMAT " tokens)\n",
           b, sl);
    GArray *ops = work_compute_ops_new();
    work_compute_block(ops, WORK_PASS_FORWARD, m, l, &s->gen.compute);
    uint64_t fwd = work_compute_ops_flops(ops) * l->tp;
    g_array_set_size(ops, 0);
    work_compute_block(ops, WORK_PASS_BACKWARD, m, l, &s->gen.compute);
    uint64_t bwd = work_compute_ops_flops(ops) * l->tp;
    g_array_unref(ops);
    printf("  forward %.4g FLOPs over the tensor group (%.4g a GPU); backward twice that, "
           "%.4g\n",
           (double)fwd, (double)fwd / l->tp, (double)bwd);
    if (m->n_experts == 0 && m->ffn_kind == WORK_FFN_GELU && m->n_kv_heads == m->n_heads)
        printf("  closed form (GPT block, Narayanan et al. 2021): 24 b s h^2 + 4 b s^2 h = 24 x "
               "%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT "^2 + 4 x "
               "%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT "^2 x %" G_GUINT64_FORMAT " = %.4g\n",
               b, sl, h, b, sl, h, 24.0 * b * sl * h * h + 4.0 * b * sl * sl * h);
    printf("  the model per token: %.4g FLOPs (Megatron's count, recompute %s)\n\n",
           (double)work_model_flops_per_token(m, sl, l->recompute == WORK_RECOMPUTE_FULL),
           l->recompute == WORK_RECOMPUTE_FULL ? "included" : "not included");

    uint64_t act = b * sl * h * e;
    printf("## Communication\n");
    if (l->tp > 1)
        printf("  tensor parallel (tp = %u): %s of b s h e = %" G_GUINT64_FORMAT
               " x %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
               " = %.4g bytes, 4 a block a pass (2 forward, 2 backward)%s\n",
               l->tp, l->sp ? "all-gathers and reduce-scatters" : "all-reduces", b, sl, h, e,
               (double)act,
               l->recompute == WORK_RECOMPUTE_FULL ? ", and 2 more replaying the forward" : "");
    else
        printf("  tensor parallel: none (tp = 1)\n");
    if (l->pp > 1)
        printf("  pipeline (pp = %u): b s h e / tp = %.4g bytes a microbatch and stage boundary, "
               "each way\n",
               l->pp, (double)act / l->tp);
    else
        printf("  pipeline: none (pp = 1)\n");
    WorkMemory mem;
    work_memory_stage(l, m, 0, &mem);
    if (l->dp > 1)
        printf("  data parallel (dp = %u): the gradients of a GPU's %" G_GUINT64_FORMAT
               " parameters x %u bytes = %.4g bytes a step, %s (ring bus factor 2(n-1)/n = "
               "%.4g)\n",
               l->dp, mem.n_params, l->grad_bytes, (double)mem.n_params * l->grad_bytes,
               l->zero == WORK_ZERO_0 ? "all-reduced" : "reduce-scattered, then gathered",
               2.0 * (l->dp - 1) / l->dp);
    else
        printf("  data parallel: none (dp = 1)\n");
    printf("\n## The pipeline bubble\n");
    if (l->pp > 1) {
        double ideal = l->schedule == WORK_SCHEDULE_INTERLEAVED
                           ? (double)(l->pp - 1) / ((double)mb * l->vp + l->pp - 1)
                           : (double)(l->pp - 1) / ((double)mb + l->pp - 1);
        bool inter = l->schedule == WORK_SCHEDULE_INTERLEAVED;
        char vp_text[32] = "";
        if (inter)
            g_snprintf(vp_text, sizeof vp_text, " x %u", l->vp);
        printf("  (p - 1) / (m%s + p - 1) = %u / (%" G_GUINT64_FORMAT "%s + %u) = %.1f%% of the "
               "step with equal stages and free communication\n",
               inter ? " v" : "", l->pp - 1, mb, vp_text, l->pp - 1, 100.0 * ideal);
    } else {
        printf("  none: one stage\n");
    }
    printf("  simulated idle (bubble, waits for peers): %.1f%% of the step\n\n",
           100.0 * (double)result.replay.time_ps[WORK_TIME_IDLE] /
               (double)MAX(result.replay.step_ps, 1));

    printf("## Memory of the most loaded stage (stage %u of %u)\n", result.memory.stage, l->pp);
    gib("weights", result.memory.weights_bytes);
    gib("gradients", result.memory.gradients_bytes);
    gib("optimizer states", result.memory.optimizer_bytes);
    printf("  %-34s %10.3f GiB = %" G_GUINT64_FORMAT " in flight x %" G_GUINT64_FORMAT
           " blocks x %.4g bytes (Korthikanti et al. 2022, Table 2)\n",
           "activations", (double)result.memory.activations_bytes / (1 << 30),
           result.memory.n_chunks_in_flight, result.memory.n_layers / l->vp,
           (double)work_memory_layer_activation_bytes(l, m));
    gib("embedding and output layers",
        result.memory.embedding_activations_bytes + result.memory.output_activations_bytes);
    gib("total", result.memory.total_bytes);
    printf("  of %.3f GiB HBM: %s\n\n", (double)fabric->system->gpu->hbm_bytes / (1 << 30),
           result.fits ? "fits" : "does not fit");

    printf("## The simulated step (nvlsim run prints the same)\n");
    printf("  step time %.6f s; compute %.1f%%, exposed TP %.1f%%, PP %.1f%%, DP %.1f%%, EP "
           "%.1f%%, idle %.1f%%\n",
           result.step_s,
           100.0 * (double)result.replay.time_ps[WORK_TIME_COMPUTE] / (double)result.replay.step_ps,
           100.0 * (double)result.replay.time_ps[WORK_TIME_TP] / (double)result.replay.step_ps,
           100.0 * (double)result.replay.time_ps[WORK_TIME_PP] / (double)result.replay.step_ps,
           100.0 * (double)result.replay.time_ps[WORK_TIME_DP] / (double)result.replay.step_ps,
           100.0 * (double)result.replay.time_ps[WORK_TIME_EP] / (double)result.replay.step_ps,
           100.0 * (double)result.replay.time_ps[WORK_TIME_IDLE] / (double)result.replay.step_ps);
    work_run_result_clear(&result);
    return CLI_EXIT_OK;
}

int
cli_explain(int argc, char **argv)
{
    ExplainOptions o = {0};
    g_autoptr(GOptionContext) context = explain_context(&o);
    int status = CLI_EXIT_USAGE;
    if (!cli_parse_options(context, "explain", &argc, &argv)) {
        status = CLI_EXIT_USAGE;
    } else if (argc >= 2 && strcmp(argv[1], "coll") == 0 && argc == 2) {
        status = explain_coll(&o);
    } else if (argc >= 2 && strcmp(argv[1], "run") == 0 && argc <= 3) {
        status = explain_run(&o, argc == 3 ? argv[2] : NULL);
    } else {
        fprintf(stderr, "nvlsim explain: expected coll [options] or run [SCENARIO.ini]\n");
    }
    g_free(o.system);
    g_free(o.op);
    g_free(o.bytes);
    g_free(o.gpus);
    g_strfreev(o.sets);
    return status;
}
