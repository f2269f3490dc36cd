/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim explain: the reasoning behind a number, for teaching.
 *
 *   explain coll (cli-explain-coll.c): NCCL's pick, the call's time split
 *     into the mechanisms the simulation charges, the simulated call.
 *   explain run: a scenario's step taken apart: FLOPs per block and its
 *     closed form, a block's kernels with their time and what bounds
 *     each, the bytes of every tensor-, pipeline- and data-parallel
 *     collective a microbatch or a step issues, the pipeline bubble's
 *     closed form beside the simulated idle time, and the memory budget;
 *     then the simulated step (the same as nvlsim run's).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli-explain.h"
#include "topo/topo-world.h"
#include "cli/cli-run.h"
#include "cli/cli.h"
#include "work/work-compute.h"
#include "work/work-gen.h"
#include "work/work-memory.h"
#include "work/work-pipeline.h"

#define OPT(field) CLI_OPTION_AT(ExplainOptions, field)

static const GOptionEntry explain_entries[] = {
    {"system", 's', 0, G_OPTION_ARG_STRING, OPT(system), "coll: system (default dgx-h100)", "NAME"},
    {"collective", 0, 0, G_OPTION_ARG_STRING, OPT(collective),
     "coll: all_reduce (default), all_gather, reduce_scatter, broadcast, reduce, alltoall, "
     "sendrecv; also the argument after coll, as nvlsim coll takes it",
     "C"},
    {"op", 'o', 0, G_OPTION_ARG_STRING, OPT(op),
     "coll: reduction, as nvlsim coll's -o: sum (default), prod, min, max, avg; costs the same",
     "OP"},
    {"bytes", 'b', 0, G_OPTION_ARG_STRING, OPT(bytes), "coll: size (default 1G)", "SIZE"},
    {"gpus", 0, 0, G_OPTION_ARG_STRING, OPT(gpus), "coll: ranks (default one node)", "N"},
    {"gpus-per-node", 0, 0, G_OPTION_ARG_STRING, OPT(gpus_per_node),
     "coll: the first K GPUs of each node (host) (default: --gpus over --nodes, else nodes "
     "filled in order)",
     "K"},
    {"nodes", 0, 0, G_OPTION_ARG_STRING, OPT(nodes),
     "coll: hosts the ranks span (an NVL72 tray, a DGX box; default: filled in order)", "N"},
    {"domains", 0, 0, G_OPTION_ARG_STRING, OPT(domains),
     "coll: NVLink domains the nodes spread over, or the nodes of each, such as 18,14 "
     "(default: the fewest that hold them)",
     "D|N,N.."},
    {"algo", 0, 0, G_OPTION_ARG_STRING, OPT(algo),
     "coll: auto (default, NCCL's choice), ring, tree, nvls, nvls_tree, direct, pat, "
     "collnet_direct, collnet_chain",
     "A"},
    {"collnet", 0, 0, G_OPTION_ARG_NONE, OPT(collnet),
     "coll: NCCL with its SHARP plugin (NCCL_COLLNET_ENABLE=1), 2 nodes or more", NULL},
    {"proto", 0, 0, G_OPTION_ARG_STRING, OPT(proto), "coll: auto (default), LL, LL128, Simple",
     "P"},
    {"harness", 0, 0, G_OPTION_ARG_STRING, OPT(harness),
     "coll: nccl-tests (default: calls back to back, the mean) or blocking", "H"},
    {"launch-mode", 0, 0, G_OPTION_ARG_STRING, OPT(launch_mode),
     "coll: mpi (default: one process per GPU) or threads (one thread drives a node's GPUs)", "M"},
    {"cuda-graph", 0, 0, G_OPTION_ARG_NONE, OPT(cuda_graph),
     "coll: the calls are launched as a CUDA graph", NULL},
    {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, OPT(sets), "run: override a scenario key",
     "KEY=VALUE"},
    G_OPTION_ENTRY_NULL,
};

const CliUsage cli_explain_usage = {
    .args = "coll [COLLECTIVE]|run [SCENARIO.ini]",
    .summary = "Explains a collective call (explain coll) or a training step (explain run):\n"
               "the model's choices and closed forms with the numbers filled in, beside the\n"
               "simulated result.",
    .entries = explain_entries,
};

/* ---- explain run. ---- */

static void
gib(const char *what, uint64_t bytes)
{
    printf("  %-34s %10.3f GiB\n", what, (double)bytes / (1 << 30));
}

/* The same step at the other tier (analytic, or flow for an analytic
 * scenario): how much the shared network's contention adds over the
 * calls' times alone. */
static int
explain_tiers(WorkScenario *s, double step_s)
{
    const char *ran = work_scenario_fidelity_name(s);
    s->analytic = !s->analytic;
    g_autoptr(TopoWorld) fabric = NULL;
    WorkRunResult other = {0};
    GError *error = NULL;
    bool ok = work_run_scenario(s, NULL, &fabric, &other, NULL, &error);
    s->analytic = !s->analytic;
    if (!ok) {
        cli_print_error("explain", error);
        g_clear_error(&error);
        work_run_result_clear(&other);
        return CLI_EXIT_BAD_INPUT;
    }
    double analytic_s = s->analytic ? step_s : other.step_s;
    double event_s = s->analytic ? other.step_s : step_s;
    printf("\n## The analytic tier (fidelity = analytic: each call its time alone, no shared "
           "network)\n");
    printf("  step time %.6f s analytic, %.6f s at %s fidelity: %s / analytic = %.4f\n", analytic_s,
           event_s, s->analytic ? "flow" : ran, s->analytic ? "flow" : ran, event_s / analytic_s);
    printf("  the difference is what the analytic tier leaves out: calls that overlap on links "
           "slowing\n  each other, and the replicas' traffic on the links the detailed ranks "
           "use\n");
    if (other.replayed_microbatches[0] > 0)
        printf("  the analytic step from its steady state: %u and %u of %" G_GUINT64_FORMAT
               " microbatches replayed, each part of the step\n  extended linearly from them, "
               "as long as replaying them all to the picosecond\n",
               other.replayed_microbatches[0], other.replayed_microbatches[1],
               work_layout_microbatches(&s->layout));
    work_run_result_clear(&other);
    return CLI_EXIT_OK;
}

/* What sets a kernel's time in the kernel model. */
static const char *
op_bound(const WorkOp *op, const HwGpu *gpu)
{
    if (work_compute_op_memory_bound(op, gpu))
        return "HBM";
    return op->kind == WORK_OP_ATTENTION ? "flash" : "tensor";
}

static const char *const pass_names[] = {
    [WORK_PASS_FORWARD] = "forward",
    [WORK_PASS_BACKWARD] = "backward",
    [WORK_PASS_RECOMPUTE] = "recompute",
    [WORK_PASS_OPTIMIZER] = "optimizer",
};

/* One pass of a block's kernels, one row each: what it does, how long it
 * takes alone on gpu, and what bounds it. Returns the pass's ps. */
static uint64_t
explain_pass(const WorkScenario *s, const HwGpu *gpu, WorkPass pass)
{
    WorkComputeConfig config = s->gen.compute;
    work_compute_config_on(&config, gpu);
    GArray *ops = work_compute_ops_new();
    work_compute_block(ops, pass, s->model, &s->layout, &config);
    uint64_t total = work_compute_ops_ps(ops, gpu);
    for (guint i = 0; i < ops->len; i++) {
        const WorkOp *op = &g_array_index(ops, WorkOp, i);
        uint64_t ps = work_compute_op_ps(op, gpu);
        double us = (double)ps / 1e6;
        char rate[32] = "", share[16] = "";
        if (op->flops > 0) {
            double flops_per_s = work_compute_op_executed_flops(op) / ((double)ps / SIM_PS_PER_S);
            g_snprintf(rate, sizeof rate, "%8.1f", flops_per_s / 1e12);
            g_snprintf(share, sizeof share, "%5.1f%%",
                       100.0 * flops_per_s / work_compute_peak(gpu, op->math));
        }
        printf("  %-9s %-26s %10.3f %9.1f %10.1f %5.1f%% %8s %7s  %s\n", pass_names[pass], op->name,
               (double)op->flops / 1e9, (double)op->bytes / 1e6, us,
               100.0 * (double)ps / (double)MAX(total, 1), rate, share, op_bound(op, gpu));
    }
    g_array_unref(ops);
    return total;
}

/* A block's kernels, one microbatch, pass by pass: where the compute time
 * goes and which mechanism (tensor cores, FlashAttention, HBM) sets it. */
static void
explain_compute(const WorkScenario *s, const HwGpu *gpu)
{
    printf("## Compute of one block, one microbatch, kernel by kernel (%s, each kernel alone)\n",
           gpu->name);
    printf("  %-9s %-26s %10s %9s %10s %6s %8s %7s  %s\n", "pass", "kernel", "GFLOP", "MB", "us",
           "share", "TFLOP/s", "of peak", "bound");
    uint64_t fwd = explain_pass(s, gpu, WORK_PASS_FORWARD);
    uint64_t bwd = explain_pass(s, gpu, WORK_PASS_BACKWARD);
    uint64_t rec = explain_pass(s, gpu, WORK_PASS_RECOMPUTE);
    double efficiency = work_gen_compute_efficiency(&s->gen, gpu);
    if (s->layout.flash_attention) {
        uint64_t d = s->model->hidden_size / s->model->n_heads;
        WorkFlashModel f;
        work_compute_flash_model(gpu, d, &f);
        printf("  FlashAttention at head size d = %" G_GUINT64_FORMAT ": r = %.0f tensor FLOPs / "
               "(%.0f exponentials x 4 d) an SM a clock = %.3f; 1 / (1 / eta + kappa r) = "
               "1 / (1 / %.3f + %.3f x %.3f)%s = %.1f%% of peak forward, %.1f%% backward\n",
               d, f.tensor_per_clock, f.exp_per_clock, f.r, f.eta, f.kappa, f.r,
               f.clock_scale != 1 ? " x the GPU's own GEMM ceiling over its generation's" : "",
               100 * f.forward, 100 * f.backward);
    }
    printf("  GFLOP: Megatron's count (attention's whole s x s); TFLOP/s and of peak: the FLOPs "
           "the kernel runs\n  (attention: the causal half, backward 5/2 of forward) over its "
           "time, against the peak of its math\n");
    printf("  forward %.1f us, backward %.1f us, recompute %.1f us alone (each with a %.1f us "
           "launch); the step runs them at %.3f of these rates: %.1f us a block and "
           "microbatch\n\n",
           (double)fwd / 1e6, (double)bwd / 1e6, (double)rec / 1e6,
           (double)WORK_COMPUTE_LAUNCH_PS / 1e6, efficiency,
           (double)(fwd + bwd + rec) / 1e6 / efficiency);
}

static int
explain_run(const ExplainOptions *o, const char *path)
{
    GError *error = NULL;
    g_autoptr(WorkScenario) s = work_scenario_load(path, o->sets, NULL, &error);
    g_autoptr(TopoWorld) fabric = NULL;
    WorkRunResult result = {0};
    if (s == NULL || s->trace_path != NULL ||
        !work_run_scenario(s, NULL, &fabric, &result, NULL, &error)) {
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

    explain_compute(s, fabric->system->gpu);

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
    if (l->dp > 1 && l->zero == WORK_ZERO_0)
        printf("  data parallel (dp = %u): the gradients of a GPU's %" G_GUINT64_FORMAT
               " parameters x %u bytes = %.4g bytes a step, all-reduced (ring bus factor "
               "2(n-1)/n = %.4g)\n",
               l->dp, mem.n_params, l->grad_bytes, (double)mem.n_params * l->grad_bytes,
               2.0 * (l->dp - 1) / l->dp);
    else if (l->dp > 1)
        printf("  data parallel (dp = %u): the gradients of a GPU's %" G_GUINT64_FORMAT
               " parameters x %u bytes = %.4g bytes a step, reduce-scattered, and its "
               "parameters x %u bytes = %.4g all-gathered%s (ring bus factor (n-1)/n = %.4g "
               "each)\n",
               l->dp, mem.n_params, l->grad_bytes, (double)mem.n_params * l->grad_bytes,
               l->param_bytes, (double)mem.n_params * l->param_bytes,
               l->zero == WORK_ZERO_3 ? " block by block"
               : s->gen.dp_overlap    ? " under the next step's forward, bucket by bucket"
                                      : " after the optimizer",
               (double)(l->dp - 1) / l->dp);
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
        if (!work_pipeline_even(l, m)) {
            g_autofree char *stages = work_pipeline_describe(l, m);
            printf("  uneven stages (transformer layers each: %s): the slowest sets the pace of "
                   "the steady state, the others' passes add to the bubble\n",
                   stages);
        }
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
    printf("  %-34s %10.3f GiB = %" G_GUINT64_FORMAT " blocks of %" G_GUINT64_FORMAT
           " chunks in flight x %.4g bytes (Korthikanti et al. 2022, Table 2)\n",
           "activations", (double)result.memory.activations_bytes / (1 << 30),
           result.memory.n_layers_in_flight, result.memory.n_chunks_in_flight,
           (double)work_memory_layer_activation_bytes(l, m));
    gib("embedding and output layers",
        result.memory.embedding_activations_bytes + result.memory.output_activations_bytes);
    gib("total", result.memory.total_bytes);
    printf("  of %.3f GiB HBM: %s\n\n", (double)fabric->system->gpu->hbm_bytes / (1 << 30),
           result.fits ? "fits" : "does not fit");

    printf("## The simulated step (nvlsim run prints the same)\n");
    printf("  step time %.6f s; compute %.1f%%, exposed TP %.1f%%, PP %.1f%%, DP %.1f%%, EP "
           "%.1f%%, CP %.1f%%, idle %.1f%%\n",
           result.step_s,
           100.0 * (double)result.replay.time_ps[WORK_TIME_COMPUTE] / (double)result.replay.step_ps,
           100.0 * (double)result.replay.time_ps[WORK_TIME_TP] / (double)result.replay.step_ps,
           100.0 * (double)result.replay.time_ps[WORK_TIME_PP] / (double)result.replay.step_ps,
           100.0 * (double)result.replay.time_ps[WORK_TIME_DP] / (double)result.replay.step_ps,
           100.0 * (double)result.replay.time_ps[WORK_TIME_EP] / (double)result.replay.step_ps,
           100.0 * (double)result.replay.time_ps[WORK_TIME_CP] / (double)result.replay.step_ps,
           100.0 * (double)result.replay.time_ps[WORK_TIME_IDLE] / (double)result.replay.step_ps);
    double step_s = result.step_s;
    work_run_result_clear(&result);
    return explain_tiers(s, step_s);
}

int
cli_explain(int argc, char **argv)
{
    ExplainOptions o = {0};
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_explain_usage, &o);
    int status = CLI_EXIT_USAGE;
    if (!cli_parse_options(context, "explain", &argc, &argv)) {
        status = CLI_EXIT_USAGE;
    } else if (argc >= 2 && strcmp(argv[1], "coll") == 0 && argc <= 3) {
        status = cli_explain_coll(&o, argc == 3 ? argv[2] : NULL);
    } else if (argc >= 2 && strcmp(argv[1], "run") == 0 && argc <= 3) {
        status = explain_run(&o, argc == 3 ? argv[2] : NULL);
    } else {
        fprintf(stderr,
                "nvlsim explain: expected coll [COLLECTIVE] [options] or run [SCENARIO.ini]\n");
    }
    g_free(o.system);
    g_free(o.collective);
    g_free(o.op);
    g_free(o.bytes);
    g_free(o.gpus);
    g_free(o.gpus_per_node);
    g_free(o.nodes);
    g_free(o.domains);
    g_free(o.algo);
    g_free(o.proto);
    g_free(o.harness);
    g_free(o.launch_mode);
    g_strfreev(o.sets);
    return status;
}
