/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim run: one training step of a scenario (work-scenario.h), simulated
 * on its system; prints step time, throughput, memory and where the time
 * goes, and optionally writes them as CSV, the step as a trace and its timeline
 * as Chrome trace-event JSON.
 */
#include <stdio.h>
#include <string.h>

#include "core/core-output.h"
#include "topo/topo-world.h"
#include "cli/cli-plot.h"
#include "cli/cli-run.h"
#include "cli/cli.h"
#include "core/core-time.h"
#include "hw/hw-keys.h"
#include "hw/hw-models.h"
#include "work/work-pipeline.h"
#include "work/work-run.h"
#include "report/report-chrome.h"
#include "core/core-csv.h"
#include "report/report-links.h"
#include "report/report-trace.h"

typedef struct RunOptions {
    char **sets;
    char *csv;
    char *plot;
    char *trace_out;
    char *timeline;
    char *links, *links_plot, *links_top;
    char *links_plot_csv; /* the summed CSV --links-plot draws, beside it */
    uint32_t n_links_top;
    gboolean quiet;
} RunOptions;

/* --links-top's default, and the most links one plot names. */
enum { RUN_LINKS_TOP = 8, RUN_LINKS_TOP_MAX = 64 };

#define OPT(field) CLI_OPTION_AT(RunOptions, field)

static const GOptionEntry run_entries[] = {
    {"set", 0, 0, G_OPTION_ARG_STRING_ARRAY, OPT(sets),
     "Override a scenario key (layout.tp=4, tp=4, or Megatron-LM's "
     "tensor_model_parallel_size=4); repeatable",
     "KEY=VALUE"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, OPT(csv), "Also write the result as one CSV row", "FILE"},
    {"plot", 0, 0, G_OPTION_ARG_FILENAME, OPT(plot),
     "Plot where the time goes as stacked bars with gnuplot (the CSV goes beside it "
     "without --csv)",
     "FILE.png|FILE.svg|FILE.pdf"},
    {"write-trace", 0, 0, G_OPTION_ARG_FILENAME, OPT(trace_out),
     "Write the simulated step as a trace CSV (replayable with scenario.trace)", "FILE"},
    {"trace", 0, 0, G_OPTION_ARG_FILENAME, OPT(timeline),
     "Write the step's timeline as Chrome trace-event JSON (opens in Perfetto)", "FILE.json"},
    {"links", 0, 0, G_OPTION_ARG_FILENAME, OPT(links),
     "Write every used link's utilization over the step (time_s,link,utilization)", "FILE.csv"},
    {"links-plot", 0, 0, G_OPTION_ARG_FILENAME, OPT(links_plot),
     "Plot link utilization over time with gnuplot: the mean of each link class (nvlink "
     "gpu-nvswitch, pcie, network nic-leaf ...) and the --links-top busiest links; their CSV, "
     "one column a series and one row a time bin, goes beside it (FILE.csv)",
     "FILE.png|FILE.svg|FILE.pdf"},
    {"links-top", 0, 0, G_OPTION_ARG_STRING, OPT(links_top),
     "The busiest links --links-plot draws beside the classes (default 8, at most 64; 0: "
     "classes only)",
     "N"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, OPT(quiet), "Print the step time only", NULL},
    G_OPTION_ENTRY_NULL,
};

const CliUsage cli_run_usage = {
    .args = "[SCENARIO.ini]",
    .summary = "Simulates one training step of a scenario and reports step time, tokens/s,\n"
               "TFLOP/s per GPU, MFU, memory per GPU and where the time goes.\n"
               "Without SCENARIO.ini it runs a built-in study (GPT-3 class model on DGX A100).",
    .description =
        "Scenario groups and keys:\n"
        "  [scenario]  name, system, nodes (hosts), domains, model, fidelity\n"
        "              (flow|packet|analytic), trace\n"
        "  [layout]    tp, cp, pp, dp | gpus, vp, ep, sp, zero, fsdp (zero 3's sharding,\n"
        "              gradients reduce-scattered block by block every microbatch), recompute\n"
        "              (none|selective|full), schedule (gpipe|1f1b|interleaved),\n"
        "              flash_attention, dp_overlap, bucket_params, tp_comm_overlap\n"
        "              (Transformer Engine's userbuffers: tensor-parallel all-gathers\n"
        "              and reduce-scatters beside their GEMMs; tp > 1 and sp); cp:\n"
        "              context-parallel ranks (ring attention: each holds seq_len / cp\n"
        "              tokens, passes keys and values round the ring, and reduces\n"
        "              gradients with the dp ranks); gpus makes dp gpus / (tp x cp x pp),\n"
        "              and a --set of gpus replaces the scenario's dp (of dp, its gpus);\n"
        "              first_stage_layers, last_stage_layers: layers of the first and of\n"
        "              the last pipeline stage, the rest split evenly over the others\n"
        "              (as Megatron-LM: at least one a stage; with vp > 1 each stage's\n"
        "              a multiple of vp); account_for_embedding, account_for_loss\n"
        "              (yes|no): the split counts the embedding as a layer of the first\n"
        "              stage, the loss as one of the last (not with the two before);\n"
        "              with none of the four, pp x vp must divide the layers;\n"
        "              moe_balance (the mean tokens an expert-parallel rank receives over\n"
        "              the busiest's, 1) and moe_capacity_factor (at most that many times\n"
        "              an expert's even share, the rest dropped; none: dropless): the\n"
        "              busiest rank is simulated, the all-to-alls wait for it\n"
        "  [batch]     global_batch, micro_batch, seq_len\n"
        "  [precision] math (bf16|fp16|fp8|mxfp8|nvfp4: the linear layers; attention,\n"
        "              norms, logits and the optimizer stay in bf16/fp32; mxfp8 and nvfp4\n"
        "              on Blackwell), fp8_scaling (delayed|current), param_bytes,\n"
        "              grad_bytes, optimizer_bytes, activation_bytes, dropout,\n"
        "              fused_cross_entropy (yes; no: Megatron's unfused loss, 7 passes)\n"
        "  [faults]    planes_down (NVSwitch planes: 1,3), links_down (bundles: 3:1 is GPU 3\n"
        "              to plane 1, 0-1 GPUs 0 and 1, 3:1x2 two of the links), slow_links,\n"
        "              slow_rate (0.5), crc_links, crc_error_rate (1e-4); on every node\n"
        "  [stragglers] ranks (3, 17), hosts (2), compute_rate (0.5), step_delay (5ms)\n"
        "Trace CSV (scenario trace = FILE replays one; --write-trace writes one): a\n"
        "header, then a row per task, the columns found by name:\n"
        "  rank, task (0, 1, ... per rank, its issue order), kind (compute|coll|send|\n"
        "  recv), category (compute|tp|pp|dp|ep|cp), group and members (coll: a\n"
        "  communicator's name and its ranks, \"0 1 2 3\"; a member without rows is a\n"
        "  replica), peer (send, recv: the k-th send a to b pairs with the k-th recv\n"
        "  on b from a), op (coll: all_reduce ... sendrecv), bytes (coll: nccl-tests'\n"
        "  size), sms (coll, optional: the SMs it holds beside compute, as Transformer\n"
        "  Engine's userbuffers do; empty: NCCL's, a CTA a channel), duration_us\n"
        "  (compute, to the picosecond) or flops (compute: its\n"
        "  time from the GPU's model), memory_share (compute, optional: the share\n"
        "  of its time in memory-bound kernels, 0 to 1: beside a collective they keep\n"
        "  their SMs but share HBM), deps (the rank's task numbers it waits for),\n"
        "  replicas and replica_stride (copies of the job's ranks, at most two\n"
        "  axes: \"24 8\" and \"8 1\"), label (free text). A task starts when its deps\n"
        "  are done; a rank's compute runs one at a time, its calls on a group in\n"
        "  order. The whole format: sim/work/work-trace.h.\n"
        "Megatron-LM's argument names, for --set (with _ or -):\n"
        "  tensor_model_parallel_size (tp), pipeline_model_parallel_size (pp),\n"
        "  virtual_pipeline_model_parallel_size (vp), expert_model_parallel_size (ep),\n"
        "  moe_expert_capacity_factor (moe_capacity_factor),\n"
        "  decoder_first_pipeline_num_layers (first_stage_layers),\n"
        "  decoder_last_pipeline_num_layers (last_stage_layers),\n"
        "  account_for_embedding_in_pipeline_split (account_for_embedding),\n"
        "  account_for_loss_in_pipeline_split (account_for_loss),\n"
        "  context_parallel_size (cp),\n"
        "  sequence_parallel (sp), recompute_granularity (recompute),\n"
        "  use_distributed_optimizer (zero 1; false: zero 0), micro_batch_size\n"
        "  (micro_batch), global_batch_size (global_batch), seq_length (seq_len)\n"
        "Exit status: 0 done, 1 bad scenario or model, 2 usage.",
    .entries = run_entries,
};

void
cli_run_print_injected(const WorkScenario *s, const HwSystem *system)
{
    if (!topo_faults_empty(s->faults)) {
        g_autofree char *text = topo_faults_describe(s->faults, system);
        printf("# faults: %s\n", text);
    }
    if (work_stragglers_active(&s->stragglers)) {
        g_autofree char *text = work_stragglers_describe(&s->stragglers);
        printf("# stragglers: %s\n", text);
    }
}

static const char *const recompute_names[] = {"none", "selective", "full"};
static const char *const schedule_names[] = {"gpipe", "1f1b", "interleaved"};

static double
seconds(uint64_t ps)
{
    return (double)ps / (double)SIM_PS_PER_S;
}

static void
print_table(const WorkScenario *s, const TopoWorld *f, const WorkRunResult *r, double wall_s)
{
    const WorkLayout *l = &s->layout;
    printf("# nvlsim run: %s\n", s->name);
    printf("# system %s x %u node%s", f->system->id, r->n_hosts, r->n_hosts == 1 ? "" : "s");
    if (f->system->n_hosts > 1 || r->n_domains != r->n_hosts)
        printf(" in %u NVLink domain%s", r->n_domains, r->n_domains == 1 ? "" : "s");
    for (uint32_t d = 0; s->domain_hosts != NULL && d < s->domains; d++)
        printf("%s%u", d == 0 ? " of " : d + 1 < s->domains ? ", " : " and ", s->domain_hosts[d]);
    if (s->domain_hosts != NULL)
        printf(" hosts");
    printf(" (%u GPUs of %s); fidelity %s\n", r->n_gpus, f->system->gpu->name,
           work_scenario_fidelity_name(s));
    if (hw_system_status_text(f->system) != NULL)
        printf("# %s is %s\n", f->system->id, hw_system_status_text(f->system));
    if (s->trace_path == NULL) {
        char cp[24] = "";
        if (l->cp > 1)
            g_snprintf(cp, sizeof cp, " cp %u", l->cp);
        printf("# model %s; layout tp %u%s pp %u dp %u vp %u ep %u, sp %s, zero %d, recompute %s, "
               "%s; batch %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
               " tokens, micro %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " microbatches)\n",
               s->model->name, l->tp, cp, l->pp, l->dp, l->vp, l->ep, l->sp ? "yes" : "no", l->zero,
               recompute_names[l->recompute], schedule_names[l->schedule], l->global_batch,
               l->seq_len, l->micro_batch, work_layout_microbatches(l));
        if (!work_pipeline_even(l, s->model)) {
            g_autofree char *stages = work_pipeline_describe(l, s->model);
            printf("# pipeline stages (transformer layers each): %s\n", stages);
        }
    } else {
        printf("# trace %s: %u GPUs\n", s->trace_path, r->n_gpus);
    }
    cli_run_print_injected(s, f->system);
    printf("%-26s %14.6f s\n", "step time", r->step_s);
    if (s->trace_path == NULL) {
        printf("%-26s %14.0f\n", "tokens/s", r->tokens_per_s);
        printf("%-26s %14.1f\n", "TFLOP/s per GPU", r->tflops_per_gpu);
        printf("%-26s %13.1f%%\n", "MFU", 100.0 * r->mfu);
        g_autofree char *mem = work_memory_describe(&r->memory, l, f->system->gpu->hbm_bytes);
        printf("%-26s %s\n", "memory per GPU", mem);
    }
    printf("# where the time goes (mean over %u simulated GPUs)\n", r->replay.n_detailed);
    static const char *const labels[WORK_N_TIMES] = {
        "compute",         "exposed TP comm", "exposed PP comm",     "exposed DP comm",
        "exposed EP comm", "exposed CP comm", "idle (bubble, waits)"};
    for (int k = 0; k < WORK_N_TIMES; k++)
        printf("%-26s %14.6f s %6.1f%%\n", labels[k], seconds(r->replay.time_ps[k]),
               r->step_s > 0 ? 100.0 * seconds(r->replay.time_ps[k]) / r->step_s : 0.0);
    printf("# of the compute, %.6f s is its slowing beside collectives (the SMs their CTAs "
           "hold, the HBM their traffic shares)\n",
           seconds(r->replay.slowed_ps));
    printf("# simulated: %u tasks, %" G_GUINT64_FORMAT " calls (%" G_GUINT64_FORMAT
           " shapes alone), %" G_GUINT64_FORMAT " flows + %" G_GUINT64_FORMAT
           " replica flows, %" G_GUINT64_FORMAT " events in %.2f s\n",
           r->n_tasks, r->replay.n_calls, r->replay.n_shapes, r->replay.n_flows,
           r->replay.n_mirror_flows, r->replay.n_events, wall_s);
    if (r->replayed_microbatches[0] > 0)
        printf("# analytic steady state: %u and %u of the step's %" G_GUINT64_FORMAT
               " microbatches replayed, the step extended from them (the counts above are "
               "theirs)\n",
               r->replayed_microbatches[0], r->replayed_microbatches[1],
               work_layout_microbatches(&s->layout));
}

static bool
write_csv(const char *path, const WorkScenario *s, const TopoWorld *f, const WorkRunResult *r,
          GError **error)
{
    char *tmp = NULL;
    FILE *out = sim_output_open(path, &tmp, error);
    if (out == NULL)
        return false;
    const WorkLayout *l = &s->layout;
    bool gen = s->trace_path == NULL;
    SimCsvWriter w = {.file = out};
    sim_csv_put_plain(
        &w, "scenario,system,nodes,domains,gpus,model,tp,cp,pp,dp,vp,ep,sp,zero,recompute,"
            "schedule,global_batch,micro_batch,seq_len,fidelity,step_time_s,"
            "tokens_per_s,tflops_per_gpu,mfu,memory_gib,hbm_gib,fits");
    for (int k = 0; k < WORK_N_TIMES; k++)
        sim_csv_put_plain(&w, "%s_s", work_time_name(k));
    sim_csv_end_row(&w);
    /* The name's commas and quotes become spaces, so that the row splits
     * on commas as it is (README and the guide cut it). */
    g_autofree char *name = g_strdelimit(g_strdup(s->name), ",\"", ' ');
    sim_csv_put_line(&w, name);
    sim_csv_put(&w, f->system->id);
    sim_csv_put_plain(&w, "%u,%u,%u", r->n_hosts, r->n_domains, r->n_gpus);
    sim_csv_put(&w, gen ? s->model_id : NULL);
    if (gen)
        sim_csv_put_plain(&w,
                          "%u,%u,%u,%u,%u,%u,%d,%d,%s,%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                          ",%" G_GUINT64_FORMAT,
                          l->tp, l->cp, l->pp, l->dp, l->vp, l->ep, l->sp, l->zero,
                          recompute_names[l->recompute], schedule_names[l->schedule],
                          l->global_batch, l->micro_batch, l->seq_len);
    else
        sim_csv_put_plain(&w, ",,,,,,,,,,,,");
    sim_csv_put_plain(&w, "%s,%.9f", work_scenario_fidelity_name(s), r->step_s);
    if (gen)
        sim_csv_put_plain(&w, "%.1f,%.3f,%.5f,%.4f,%.4f,%d", r->tokens_per_s, r->tflops_per_gpu,
                          r->mfu, (double)r->memory.total_bytes / (1 << 30),
                          (double)f->system->gpu->hbm_bytes / (1 << 30), r->fits);
    else
        sim_csv_put_plain(&w, ",,,,,");
    for (int k = 0; k < WORK_N_TIMES; k++)
        sim_csv_put_plain(&w, "%.9f", seconds(r->replay.time_ps[k]));
    sim_csv_end_row(&w);
    return sim_output_commit(out, tmp, path, error);
}

/* The timeline of the step: a process per node, tracks per GPU; says on
 * stderr when it had to merge slices to stay viewable. */
static bool
write_timeline(const char *path, const WorkScenario *s, const TopoWorld *f,
               const WorkStream *stream, const WorkRunResult *r, GError **error)
{
    ReportChromeOptions opts;
    report_chrome_options_init(&opts);
    opts.gpus_per_node = f->graph->gpus->len;
    opts.title = s->name;
    uint32_t n_links = 0;
    ReportChromeLink *links = r->replay.link_load != NULL
                                  ? report_chrome_links_from_load(f->graph, r->replay.link_load,
                                                                  r->replay.step_ps, &n_links)
                                  : NULL;
    opts.links = links;
    opts.n_links = n_links;
    ReportChromeStats stats;
    bool ok = report_chrome_write(stream, &r->replay, &opts, path, &stats, error);
    report_chrome_links_free(links, n_links);
    if (!ok)
        return false;
    if (stats.merged)
        fprintf(stderr,
                "nvlsim run: trace: %" G_GUINT64_FORMAT " events merged into %" G_GUINT64_FORMAT
                " (limit %" G_GUINT64_FORMAT ")\n",
                stats.n_tasks, stats.n_events, opts.max_events);
    return true;
}

/* Every used link's utilization over the step, long format: one row per
 * link and time bin (the bin's start), and 0 at the step's end. */
static bool
write_links(const char *path, const TopoWorld *f, const WorkRunResult *r, GError **error)
{
    uint32_t n_links = 0;
    ReportChromeLink *links =
        report_chrome_links_from_load(f->graph, r->replay.link_load, r->replay.step_ps, &n_links);
    char *tmp = NULL;
    FILE *out = sim_output_open(path, &tmp, error);
    if (out != NULL) {
        SimCsvWriter w = {.file = out};
        sim_csv_put_plain(&w, "time_s,link,utilization");
        sim_csv_end_row(&w);
        for (uint32_t i = 0; i < n_links; i++)
            for (uint32_t k = 0; k < links[i].n_samples; k++) {
                sim_csv_put_plain(&w, "%.9f", seconds(links[i].samples[k].t_ps));
                sim_csv_put(&w, links[i].name);
                sim_csv_put_plain(&w, "%.6f", links[i].samples[k].utilization);
                sim_csv_end_row(&w);
            }
    }
    report_chrome_links_free(links, n_links);
    return out != NULL && sim_output_commit(out, tmp, path, error);
}

/* --links-plot's data: the link classes and the n_top busiest links, one
 * column each (report-links.h). */
static bool
write_links_plot(const char *path, const TopoWorld *f, const WorkRunResult *r, uint32_t n_top,
                 GError **error)
{
    g_autoptr(ReportLinkSummary) summary =
        report_link_summary_new(f->graph, r->replay.link_load, r->replay.step_ps, n_top);
    return report_link_summary_write(summary, path, error);
}

static int
run(const RunOptions *o, const char *path)
{
    GError *error = NULL;
    gint64 t0 = g_get_monotonic_time();
    g_autoptr(WorkScenario) s = work_scenario_load(path, o->sets, NULL, &error);
    g_autoptr(TopoWorld) fabric = NULL;
    g_autoptr(WorkStream) stream = NULL;
    WorkRunResult result = {0};
    int status = CLI_EXIT_OK;
    /* Every output checked before the run, so that one that cannot be
     * written neither wastes the run nor leaves the others behind. */
    const char *const outputs[] = {o->csv,  o->trace_out,  o->timeline,      o->links,
                                   o->plot, o->links_plot, o->links_plot_csv};
    for (size_t i = 0; s != NULL && i < G_N_ELEMENTS(outputs); i++)
        if (outputs[i] != NULL && !sim_output_check(outputs[i], &error)) {
            cli_print_error("run", error);
            g_error_free(error);
            return CLI_EXIT_BAD_INPUT;
        }
    /* A timeline shows every link's utilization: count it, from 1 us bins
     * (widened as the step needs, WORK_REPLAY_LINK_BINS at most). */
    if (s != NULL && (o->timeline != NULL || o->links != NULL || o->links_plot != NULL))
        s->link_bin_ps = SIM_PS_PER_US;
    /* The step's tasks only where they are written: without them the
     * analytic tier may compose a long step from its steady state. */
    bool tasks = o->trace_out != NULL || o->timeline != NULL;
    if (s == NULL ||
        !work_run_scenario(s, NULL, &fabric, &result, tasks ? &stream : NULL, &error) ||
        (o->csv != NULL && !write_csv(o->csv, s, fabric, &result, &error)) ||
        (o->trace_out != NULL && !report_trace_write(stream, o->trace_out, &error)) ||
        (o->timeline != NULL && !write_timeline(o->timeline, s, fabric, stream, &result, &error)) ||
        (o->links != NULL && !write_links(o->links, fabric, &result, &error)) ||
        (o->links_plot != NULL &&
         !write_links_plot(o->links_plot_csv, fabric, &result, o->n_links_top, &error))) {
        cli_print_error("run", error);
        g_error_free(error);
        status = CLI_EXIT_BAD_INPUT;
    } else if (o->quiet) {
        printf("%.9f\n", result.step_s);
    } else {
        print_table(s, fabric, &result, (double)(g_get_monotonic_time() - t0) / 1e6);
    }
    if (status == CLI_EXIT_OK && o->plot != NULL) {
        g_autofree char *title = g_strdup_printf("nvlsim run: %s", s->name);
        const char *const vars[] = {"plottitle", title, NULL};
        if (!cli_plot("run", "breakdown", o->csv, o->plot, vars))
            status = CLI_EXIT_BAD_INPUT;
    }
    if (status == CLI_EXIT_OK && o->links_plot != NULL) {
        g_autofree char *title = g_strdup_printf("link utilization: %s", s->name);
        const char *const vars[] = {"plottitle", title, NULL};
        if (!cli_plot("run", "linkutil", o->links_plot_csv, o->links_plot, vars))
            status = CLI_EXIT_BAD_INPUT;
    }
    work_run_result_clear(&result);
    return status;
}

/* --links-plot and --links-top: the plot's name, its CSV beside it (which
 * --links must not name: that is the long format), and N. */
static bool
parse_links_plot(RunOptions *o)
{
    guint64 n = RUN_LINKS_TOP;
    g_autoptr(GError) error = NULL;
    if (o->links_top != NULL && o->links_plot == NULL) {
        fprintf(stderr, "nvlsim run: --links-top: expected --links-plot FILE with it\n");
        return false;
    }
    if (o->links_top != NULL &&
        !g_ascii_string_to_unsigned(o->links_top, 10, 0, RUN_LINKS_TOP_MAX, &n, &error)) {
        fprintf(stderr, "nvlsim run: --links-top: %s\n", error->message);
        return false;
    }
    o->n_links_top = (uint32_t)n;
    if (o->links_plot == NULL)
        return true;
    if (!cli_plot_csv("run", o->links_plot, &o->links_plot_csv))
        return false;
    g_autofree char *plot_csv = g_canonicalize_filename(o->links_plot_csv, NULL);
    g_autofree char *links = o->links != NULL ? g_canonicalize_filename(o->links, NULL) : NULL;
    if (links != NULL && strcmp(links, plot_csv) == 0) {
        fprintf(stderr,
                "nvlsim run: --links %s: --links-plot %s writes its summed CSV there; expected "
                "another name for the long format\n",
                o->links, o->links_plot);
        return false;
    }
    return true;
}

int
cli_run(int argc, char **argv)
{
    RunOptions o = {0};
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_run_usage, &o);
    int status;
    if (!cli_parse_options(context, "run", &argc, &argv)) {
        status = CLI_EXIT_USAGE;
    } else if (argc > 2) {
        fprintf(stderr, "nvlsim run: expected at most one SCENARIO.ini, got %d arguments\n",
                argc - 1);
        status = CLI_EXIT_USAGE;
    } else if ((o.plot != NULL && !cli_plot_csv("run", o.plot, &o.csv)) || !parse_links_plot(&o)) {
        status = CLI_EXIT_USAGE;
    } else {
        status = run(&o, argc == 2 ? argv[1] : NULL);
    }
    g_strfreev(o.sets);
    g_free(o.csv);
    g_free(o.plot);
    g_free(o.trace_out);
    g_free(o.timeline);
    g_free(o.links);
    g_free(o.links_plot);
    g_free(o.links_top);
    g_free(o.links_plot_csv);
    return status;
}
