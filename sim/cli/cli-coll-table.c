/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim coll's text: nccl-tests' output, simulated.
 *
 * The layout is nccl-tests' (src/common.cu): the settings line, the
 * devices a rank each, a header with an out-of-place and an in-place
 * group (size count type redop root | time algbw busbw #wrong, twice, so
 * awk's $12 is the in-place busbw), its row format and time precision,
 * and the footer with the mean busbw of every group. nvlsim's columns
 * (what ran) follow nccl-tests' own. Nothing is checked, so #wrong is
 * N/A, as nccl-tests prints it with -c 0. Times in us, GB/s = 1e9 B/s.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli-coll.h"
#include "cli/cli.h"
#include "hw/hw-gpu-list.h"
#include "core/core-csv.h"

/* nccl-tests' -n when neither the command nor a runtime model gives one. */
#define NCCL_TESTS_ITERS 20

/* The threads and GPUs per thread of nccl-tests' first line: -t and -g as
 * given, else what --launch-mode says (a thread per host's GPUs, or a
 * process per GPU). */
static void
threads_and_gpus(const CollPlan *plan, const CollComm *comm, uint32_t *n_threads, uint32_t *n_gpus)
{
    if (plan->n_gpus_per_thread != 0) {
        *n_threads = plan->n_threads;
        *n_gpus = plan->n_gpus_per_thread;
        return;
    }
    *n_threads = 1;
    *n_gpus = plan->harness.mode == COLL_LAUNCH_THREADS ? coll_comm_ranks_per_host(comm) : 1;
}

/* "#  Rank  r Group  0 Pid - on HOST device  d [sim] NVIDIA NAME" a rank:
 * nccl-tests' line with the simulated node, host and GPU the system model
 * places the rank on; no process and no PCI bus exist to name. */
static void
print_ranks(const CollComm *comm)
{
    const HwSystem *system = comm->system;
    uint32_t hosts = MAX(system->n_hosts, 1);
    uint32_t per_host = MAX(system->n_gpus / hosts, 1);
    printf("# Using devices (simulated: %s GPUs of %s; no process or PCI bus)\n", system->gpu->name,
           system->id);
    for (uint32_t r = 0; r < comm->n_ranks; r++) {
        const TopoVertex *v = topo_graph_vertex(comm->graph, comm->rank_vertex[r]);
        char host[32];
        if (hosts == 1)
            g_snprintf(host, sizeof host, "node%u", v->node);
        else
            g_snprintf(host, sizeof host, "node%u.h%u", v->node,
                       MIN(v->index / per_host, hosts - 1));
        /* A loopback system's ranks are CTAs of its one GPU. */
        printf("#  Rank %2u Group  0 Pid %6s on %10s device %2u [sim] NVIDIA %s%s\n", r, "-", host,
               system->loopback ? 0 : v->index, system->gpu->name,
               system->loopback ? " (a virtual rank: one CTA)" : "");
    }
}

void
cli_coll_print_preamble(const CollPlan *plan, const CollComm *comm)
{
    const CollHarness *h = &plan->harness;
    const HwRuntime *rt = comm->system->runtime;
    uint32_t iters = h->n_iterations ? h->n_iterations
                     : rt != NULL    ? (uint32_t)rt->n_iterations
                                     : NCCL_TESTS_ITERS;
    uint32_t n_threads, n_gpus;
    threads_and_gpus(plan, comm, &n_threads, &n_gpus);
    bool by_factor = plan->factor > 1;
    printf("# nThread %u nGpus %u minBytes %" G_GUINT64_FORMAT " maxBytes %" G_GUINT64_FORMAT
           " step: %" G_GUINT64_FORMAT "(%s) warmup iters: %u iters: %u agg iters: 1 "
           "validation: %u graph: %d\n",
           n_threads, n_gpus, plan->min_bytes, plan->max_bytes,
           by_factor ? plan->factor : plan->step_bytes, by_factor ? "factor" : "bytes",
           plan->n_warmup, iters, plan->n_check, h->cuda_graph ? 1 : 0);
    if (h->kind == COLL_HARNESS_BLOCKING)
        printf("# Blocking Enabled: wait for completion and barrier after each collective\n");
    printf("#\n");
    print_ranks(comm);
}

/* The GPUs of --gpu-list and, where NCCL's search ran, its ring graph:
 * channels, GB/s each, the farthest path, and each ring's GPUs. */
static void
print_rings(const CollComm *comm, const uint32_t *gpu_list, uint32_t n_listed)
{
    g_autofree char *list = hw_gpu_list_format(gpu_list, n_listed);
    printf("# gpus: %s on each %s (rank i on the i-th)\n", list,
           comm->system->n_hosts > 1 ? "NVLink domain" : "node");
    const CollRings *rings = &comm->info.rings;
    if (!rings->searched)
        return;
    static const char *const path_names[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
                                             "P2C", "PXN", "PHB", "SYS", "NET"};
    const CollRingsGraph *g = &rings->ring;
    printf("# NCCL rings: %u channel%s x %.1f GB/s, path %s:", g->n_channels,
           g->n_channels == 1 ? "" : "s", g->bw_intra,
           path_names[MIN(g->path_intra, COLL_PATH_NET)]);
    for (uint32_t c = 0; c < g->n_channels; c++) {
        printf(c == 0 ? " " : " | ");
        for (uint32_t i = 0; i < rings->n; i++)
            printf(i == 0 ? "%u" : " %u", gpu_list[g->order[c][i]]);
    }
    printf("\n");
}

/* How the reported time is taken: the harness, the host threads, a graph. */
static void
print_timing(const CollPlan *plan)
{
    const CollHarness *h = &plan->harness;
    printf("# time: as %s reports a call, ", coll_harness_kind_name(h->kind));
    if (h->mode == COLL_LAUNCH_MPI)
        printf("one process per GPU");
    else if (h->gpus_per_thread != 0)
        printf("one thread driving %u GPUs", h->gpus_per_thread);
    else
        printf("one thread driving each host's GPUs");
    printf("%s\n", h->cuda_graph ? ", launched as a CUDA graph" : "");
}

void
cli_coll_print_header(const CollPlan *plan, const CollComm *comm, const char *system_id,
                      const TopoFaults *faults, const uint32_t *gpu_list, uint32_t n_listed)
{
    g_autofree char *nodes = cli_nodes_text(comm->system, comm->n_hosts, comm->n_nodes);
    printf("#\n# nvlsim coll: %s on %u GPUs of %s (%s), %s fidelity\n", coll_op_name(plan->op),
           comm->n_ranks, system_id, nodes, net_fidelity_name(plan->fidelity));
    print_timing(plan);
    printf("# simulated: no data is moved or checked (#wrong N/A); in-place is the same call as "
           "out-of-place\n");
    if (hw_system_status_text(comm->system) != NULL)
        printf("# %s is %s\n", system_id, hw_system_status_text(comm->system));
    if (!topo_faults_empty(faults)) {
        g_autofree char *text = topo_faults_describe(faults, comm->system);
        printf("# faults: %s\n", text);
    }
    g_autofree char *env = hw_nccl_env_text(&comm->system->nccl);
    if (*env != '\0')
        printf("# NCCL environment: %s\n", env);
    if (gpu_list != NULL)
        print_rings(comm, gpu_list, n_listed);
    printf("#\n# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place"
           "            what ran (nvlsim)\n",
           "", "", "", "", "");
    printf(
        "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s  %-9s %-6s %4s %11s\n",
        "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time",
        "algbw", "busbw", "#wrong", "algo", "proto", "nch", "nccl_model");
    printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s  %-9s %-6s %4s "
           "%11s\n",
           "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)",
           "(GB/s)", "", "", "", "", "(us)");
}

/* nccl-tests' time: 2 decimals under 100 us, 1 under 10 ms, none above. */
static void
format_time(double us, char *out, size_t size)
{
    g_snprintf(out, size, us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
}

static void
print_group(const CollRowTime *t)
{
    char time[32];
    format_time(t->time_us, time, sizeof time);
    printf("  %7s  %6.2f  %6.2f  %5s", time, t->algbw_gb_per_s, t->busbw_gb_per_s, "N/A");
}

void
cli_coll_print_row(const CollRow *row)
{
    const CollResult *r = row->result;
    printf("%12" G_GUINT64_FORMAT "  %12" G_GUINT64_FORMAT "  %8s  %6s  %6d", row->n_bytes,
           row->n_elements, row->dtype, row->redop, row->root);
    print_group(&row->out_of_place);
    print_group(&row->in_place);
    /* No NCCL model where NCCL does not run (a loopback system). */
    char model[24] = "-";
    if (r->nccl_model_us >= 0)
        g_snprintf(model, sizeof model, "%.2f", r->nccl_model_us);
    printf("  %-9s %-6s %4u %11s\n", coll_algo_name(r->algo), coll_proto_name(r->proto),
           r->n_channels, model);
    fflush(stdout);
}

void
cli_coll_print_footer(double busbw_sum_gb_per_s, uint32_t n_groups)
{
    printf("# Out of bounds values : 0 OK\n");
    printf("# Avg bus bandwidth    : %g\n#\n", n_groups > 0 ? busbw_sum_gb_per_s / n_groups : 0.0);
}

void
cli_coll_csv_header(FILE *csv)
{
    SimCsvWriter w = {.file = csv};
    sim_csv_put_plain(&w, "size_bytes,count_elements,type,redop,root,time_us,algbw_GB_per_s,"
                          "busbw_GB_per_s,algo,proto,n_channels,nccl_model_time_us,"
                          "in_place_time_us,in_place_algbw_GB_per_s,in_place_busbw_GB_per_s");
    sim_csv_end_row(&w);
}

void
cli_coll_csv_row(FILE *csv, const CollRow *row)
{
    const CollResult *r = row->result;
    const CollRowTime *o = &row->out_of_place, *i = &row->in_place;
    SimCsvWriter w = {.file = csv};
    sim_csv_put_plain(&w, "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT, row->n_bytes,
                      row->n_elements);
    sim_csv_put(&w, row->dtype);
    sim_csv_put(&w, row->redop);
    sim_csv_put_plain(&w, "%d,%.4f,%.4f,%.4f,%s,%s,%u", row->root, o->time_us, o->algbw_gb_per_s,
                      o->busbw_gb_per_s, coll_algo_name(r->algo), coll_proto_name(r->proto),
                      r->n_channels);
    if (r->nccl_model_us >= 0)
        sim_csv_put_plain(&w, "%.4f", r->nccl_model_us);
    else
        sim_csv_put(&w, NULL);
    sim_csv_put_plain(&w, "%.4f,%.4f,%.4f", i->time_us, i->algbw_gb_per_s, i->busbw_gb_per_s);
    sim_csv_end_row(&w);
}
