/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim p2p: the view of CUDA's p2pBandwidthLatencyTest, simulated.
 *
 * For every GPU pair: unidirectional and bidirectional copy bandwidth and
 * the latency of a 4-byte copy (links and switches, plus the system model's
 * fixed cost of one copy); then a size sweep for one pair. Copies
 * are copy-engine packets unless --sm. Human tables on stdout; --csv FILE
 * writes the same numbers as tidy rows, units in the column names.
 * --fault KEY=VALUE takes [faults] keys (topo-fault.h). --gpus-per-node K
 * keeps the matrices to the first K GPUs of each node (global numbers).
 */
#include <stdio.h>
#include <string.h>

#include "core/core-output.h"
#include "topo/topo-world.h"
#include "cli/cli.h"
#include "core/core-units.h"
#include "hw/hw-models.h"
#include "net/net-p2p.h"
#include "core/core-csv.h"

#define LATENCY_BYTES 4

typedef struct P2pOptions {
    char *system;
    char *nodes;
    char *fidelity;
    char *bytes;
    char *pair;
    char *min_bytes, *max_bytes, *factor;
    gboolean sm;
    gboolean matrices_only, sweep_only;
    char *csv;
    char **faults;
    char *gpus_per_node, *domains;
} P2pOptions;

typedef struct P2pPlan {
    NetFidelity fidelity;
    uint64_t n_bytes;
    uint32_t pair[2];
    uint64_t min_bytes, max_bytes, factor;
    bool matrices, sweep;
} P2pPlan;

#define OPT(field) CLI_OPTION_AT(P2pOptions, field)

static const GOptionEntry p2p_entries[] = {
    {"system", 's', 0, G_OPTION_ARG_STRING, OPT(system),
     "System model (default dgx-h100; see nvlsim list systems)", "NAME"},
    {"nodes", 'N', 0, G_OPTION_ARG_STRING, OPT(nodes),
     "Hosts, as the scheduler counts them: an NVL72 tray, a DGX box (default: one NVLink "
     "domain's)",
     "N"},
    {"gpus-per-node", 0, 0, G_OPTION_ARG_STRING, OPT(gpus_per_node),
     "The matrices over the first K GPUs of each node (host) (default: all)", "K"},
    {"domains", 0, 0, G_OPTION_ARG_STRING, OPT(domains),
     "NVLink domains the nodes spread over, as many in each, or the nodes of each, such as "
     "18,14 (default: the fewest that hold them)",
     "D|N,N.."},
    {"fidelity", 0, 0, G_OPTION_ARG_STRING, OPT(fidelity), "packet or flow (default flow)", "F"},
    {"bytes", 0, 0, G_OPTION_ARG_STRING, OPT(bytes),
     "Bytes per copy in the matrices (default 40MB, the CUDA sample's)", "SIZE"},
    {"pair", 0, 0, G_OPTION_ARG_STRING, OPT(pair), "GPU pair of the size sweep (default 0,1)",
     "I,J"},
    {"minbytes", 'b', 0, G_OPTION_ARG_STRING, OPT(min_bytes),
     "Smallest size of the sweep (default 1B)", "SIZE"},
    {"maxbytes", 'e', 0, G_OPTION_ARG_STRING, OPT(max_bytes),
     "Largest size of the sweep (default 256MiB)", "SIZE"},
    {"stepfactor", 'f', 0, G_OPTION_ARG_STRING, OPT(factor),
     "Multiplier between sweep sizes (default 2)", "N"},
    {"sm", 0, 0, G_OPTION_ARG_NONE, OPT(sm), "SM-issued copies (128 B NVLink packets)", NULL},
    {"matrices-only", 0, 0, G_OPTION_ARG_NONE, OPT(matrices_only), "Skip the size sweep", NULL},
    {"sweep-only", 0, 0, G_OPTION_ARG_NONE, OPT(sweep_only), "Skip the matrices", NULL},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, OPT(csv), "Also write the results as CSV", "FILE"},
    {"fault", 0, 0, G_OPTION_ARG_STRING_ARRAY, OPT(faults),
     "A fabric fault, as a scenario's [faults] key (links_down=0-1, slow_links=3:1); "
     "repeatable",
     "KEY=VALUE"},
    G_OPTION_ENTRY_NULL,
};

const CliUsage cli_p2p_usage = {
    .summary = "Peer-to-peer copy bandwidth and latency between every pair of GPUs, as CUDA's\n"
               "p2pBandwidthLatencyTest reports them, and a size sweep for one pair.",
    .description = "Bandwidth is GB/s = 1e9 bytes/s; bidirectional is the sum of both directions.\n"
                   "Latency is the simulated time of a 4-byte copy: links, switches and the\n"
                   "system's fixed cost of a copy ([host] copy_overhead).\n"
                   "Sizes: a number of bytes, nccl-tests' 8K/128M/8G (powers of 1024), or with a\n"
                   "unit (kB, MB, KiB, MiB, ...).",
    .entries = p2p_entries,
};

/* A positive size (see cli_parse_size). */
static bool
parse_positive_size(const char *option, const char *text, uint64_t *out, GError **error)
{
    if (!cli_parse_size(option, text, out, error))
        return false;
    if (*out == 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--%s: '%s': expected a positive size", option, text);
        return false;
    }
    return true;
}

static bool
plan_from_options(const P2pOptions *o, P2pPlan *plan, GError **error)
{
    *plan = (P2pPlan){
        .fidelity = NET_FIDELITY_FLOW,
        .n_bytes = 40000000,
        .pair = {0, 1},
        .min_bytes = 1,
        .max_bytes = 256 << 20,
        .factor = 2,
        .matrices = !o->sweep_only,
        .sweep = !o->matrices_only,
    };
    uint64_t v;
    if (o->nodes) {
        if (!sim_units_parse_count(o->nodes, &v, error) || v < 1 || v > 4096) {
            g_clear_error(error);
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "--nodes: '%s': expected a whole number from 1 to 4096", o->nodes);
            return false;
        }
    }
    if (o->fidelity && !net_fidelity_parse(o->fidelity, &plan->fidelity)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--fidelity: '%s': expected packet or flow", o->fidelity);
        return false;
    }
    if ((o->bytes && !parse_positive_size("bytes", o->bytes, &plan->n_bytes, error)) ||
        (o->min_bytes && !parse_positive_size("minbytes", o->min_bytes, &plan->min_bytes, error)) ||
        (o->max_bytes && !parse_positive_size("maxbytes", o->max_bytes, &plan->max_bytes, error)))
        return false;
    if (o->factor && (!sim_units_parse_count(o->factor, &plan->factor, NULL) || plan->factor < 2)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--stepfactor: '%s': expected a whole number of at least 2", o->factor);
        return false;
    }
    if (plan->min_bytes > plan->max_bytes) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--minbytes %" G_GUINT64_FORMAT
                    " B is larger than --maxbytes %" G_GUINT64_FORMAT " B",
                    plan->min_bytes, plan->max_bytes);
        return false;
    }
    if (o->pair) {
        unsigned a, b;
        char end;
        if (sscanf(o->pair, "%u,%u%c", &a, &b, &end) != 2 || a == b) {
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "--pair: '%s': expected two different GPU numbers such as 0,1", o->pair);
            return false;
        }
        plan->pair[0] = a;
        plan->pair[1] = b;
    }
    if (o->matrices_only && o->sweep_only) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--matrices-only and --sweep-only exclude each other");
        return false;
    }
    return true;
}

typedef struct P2pTables {
    uint32_t n;
    const uint32_t *gpu;       /* [n]: the GPU of each row and column */
    double *uni, *bi, *lat_us; /* [n * n], bytes/s and us */
} P2pTables;

static void
measure_matrices(const NetP2p *p2p, const P2pPlan *plan, P2pTables *t)
{
    uint32_t n = t->n;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            if (i == j)
                continue;
            uint32_t a = t->gpu[i], b = t->gpu[j];
            t->uni[i * n + j] = net_p2p_bandwidth(p2p, NET_P2P_UNIDIRECTIONAL, a, b, plan->n_bytes);
            t->lat_us[i * n + j] =
                (double)net_p2p_time_ps(p2p, NET_P2P_UNIDIRECTIONAL, a, b, LATENCY_BYTES) / 1e6;
            if (j > i)
                t->bi[i * n + j] = t->bi[j * n + i] =
                    net_p2p_bandwidth(p2p, NET_P2P_BIDIRECTIONAL, a, b, plan->n_bytes);
        }
}

static void
print_matrix(const char *title, const P2pTables *t, const double *m, double scale)
{
    printf("\n%s\n   D\\D", title);
    for (uint32_t j = 0; j < t->n; j++)
        printf(" %7u", t->gpu[j]);
    printf("\n");
    for (uint32_t i = 0; i < t->n; i++) {
        printf("%6u", t->gpu[i]);
        for (uint32_t j = 0; j < t->n; j++)
            if (i == j)
                printf(" %7s", "-");
            else
                printf(" %7.2f", m[i * t->n + j] * scale);
        printf("\n");
    }
}

static void
csv_matrix(FILE *csv, const char *measure, const P2pTables *t, const double *m, uint64_t n_bytes)
{
    for (uint32_t i = 0; i < t->n; i++)
        for (uint32_t j = 0; j < t->n; j++) {
            if (i == j)
                continue;
            double v = m[i * t->n + j];
            bool is_lat = strcmp(measure, "latency") == 0;
            SimCsvWriter w = {.file = csv};
            sim_csv_put_plain(&w, "%s,%u,%u,%" G_GUINT64_FORMAT, measure, t->gpu[i], t->gpu[j],
                              is_lat ? (uint64_t)LATENCY_BYTES : n_bytes);
            if (is_lat)
                sim_csv_put_plain(&w, "%.4f,", v);
            else
                sim_csv_put_plain(&w, "%.4f,%.4f",
                                  (double)n_bytes / v * 1e6 *
                                      (strcmp(measure, "bidirectional") == 0 ? 2 : 1),
                                  v / 1e9);
            sim_csv_end_row(&w);
        }
}

static void
run_sweep(const NetP2p *p2p, const P2pPlan *plan, FILE *csv)
{
    uint32_t a = plan->pair[0], b = plan->pair[1];
    printf("\nSize sweep, GPU%u -> GPU%u (bidirectional: both ways at once)\n", a, b);
    printf("%14s %12s %10s %12s %10s\n", "bytes", "uni_time_us", "uni_GB/s", "bi_time_us",
           "bi_GB/s");
    for (uint64_t s = plan->min_bytes; s <= plan->max_bytes;) {
        uint64_t tu = net_p2p_time_ps(p2p, NET_P2P_UNIDIRECTIONAL, a, b, s);
        uint64_t tb = net_p2p_time_ps(p2p, NET_P2P_BIDIRECTIONAL, a, b, s);
        double uni = (double)s / ((double)tu / 1e12), bi = 2.0 * (double)s / ((double)tb / 1e12);
        printf("%14" G_GUINT64_FORMAT " %12.3f %10.2f %12.3f %10.2f\n", s, (double)tu / 1e6,
               uni / 1e9, (double)tb / 1e6, bi / 1e9);
        if (csv) {
            SimCsvWriter w = {.file = csv};
            sim_csv_put_plain(&w, "sweep_unidirectional,%u,%u,%" G_GUINT64_FORMAT ",%.4f,%.4f", a,
                              b, s, (double)tu / 1e6, uni / 1e9);
            sim_csv_end_row(&w);
            sim_csv_put_plain(&w, "sweep_bidirectional,%u,%u,%" G_GUINT64_FORMAT ",%.4f,%.4f", a, b,
                              s, (double)tb / 1e6, bi / 1e9);
            sim_csv_end_row(&w);
        }
        if (s > plan->max_bytes / plan->factor)
            break;
        s *= plan->factor;
    }
}

static void
run_matrices(const NetP2p *p2p, const P2pPlan *plan, const uint32_t *gpu, uint32_t n, FILE *csv)
{
    P2pTables t = {.n = n, .gpu = gpu};
    t.uni = g_new0(double, (size_t)n *n);
    t.bi = g_new0(double, (size_t)n *n);
    t.lat_us = g_new0(double, (size_t)n *n);
    measure_matrices(p2p, plan, &t);
    printf("# matrices: %" G_GUINT64_FORMAT " B per copy\n", plan->n_bytes);
    print_matrix("Unidirectional P2P=Enabled Bandwidth Matrix (GB/s)", &t, t.uni, 1e-9);
    print_matrix("Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)", &t, t.bi, 1e-9);
    print_matrix("P2P=Enabled Latency Matrix (us)", &t, t.lat_us, 1);
    if (csv) {
        csv_matrix(csv, "unidirectional", &t, t.uni, plan->n_bytes);
        csv_matrix(csv, "bidirectional", &t, t.bi, plan->n_bytes);
        csv_matrix(csv, "latency", &t, t.lat_us, LATENCY_BYTES);
    }
    g_free(t.uni);
    g_free(t.bi);
    g_free(t.lat_us);
}

static int
p2p_run(const P2pOptions *o, const P2pPlan *plan)
{
    g_autoptr(GError) error = NULL;
    const char *system_id = o->system ? o->system : "dgx-h100";
    g_autoptr(HwSystem) probe = hw_system_load_by_id(system_id, hw_models_dir(), &error);
    if (probe == NULL) {
        cli_print_error("p2p", error);
        return CLI_EXIT_BAD_INPUT;
    }
    g_autoptr(TopoFaults) faults = topo_world_faults(o->faults, "--fault", probe, &error);
    if (faults == NULL) {
        cli_print_error("p2p", error);
        return CLI_EXIT_USAGE;
    }
    CliPlaceInput where = {
        .text = {NULL, o->nodes, o->gpus_per_node, o->domains, NULL},
        .name = {"gpus", "nodes", "gpus-per-node", "domains", "gpu-list"},
        .options = true,
    };
    g_auto(TopoPlace) place = {0};
    const char *bad_name;
    if (!cli_place(probe, &where, &place, &bad_name, &error)) {
        cli_print_error("p2p", error);
        return CLI_EXIT_USAGE;
    }
    g_autoptr(TopoWorld) fabric = topo_world_load(system_id, place.n_domains, faults, &error);
    if (fabric == NULL) {
        cli_print_error("p2p", error);
        return CLI_EXIT_BAD_INPUT;
    }
    uint32_t n = topo_graph_n_gpus(fabric->graph), per_node = fabric->system->n_gpus;
    /* The placed GPUs of each domain, as NCCL's launcher places ranks. */
    uint32_t n_shown = place.n_gpus;
    g_autofree uint32_t *gpu = g_new(uint32_t, MAX(n_shown, 1));
    for (uint32_t i = 0, d = 0, first = 0; i < n_shown; i++) {
        if (i - first == topo_place_domain_ranks(&place, d))
            first = i, d++;
        gpu[i] = d * per_node + place.local[i - first];
    }
    if (plan->sweep && (plan->pair[0] >= n || plan->pair[1] >= n)) {
        fprintf(stderr, "nvlsim p2p: --pair: GPU %u does not exist: %s has GPUs 0 to %u\n",
                MAX(plan->pair[0], plan->pair[1]), system_id, n - 1);
        return CLI_EXIT_USAGE;
    }
    g_autoptr(NetP2pMemo) memo = net_p2p_memo_new();
    NetP2p p2p = {
        .fidelity = plan->fidelity,
        .issuer = o->sm ? NET_ISSUER_SM : NET_ISSUER_CE,
        .copy_overhead_ps = fabric->system->copy_overhead_ps,
        .graph = fabric->graph,
        .router = fabric->router,
        .memo = memo,
    };
    FILE *csv = NULL;
    char *tmp = NULL;
    if (o->csv) {
        csv = sim_output_open(o->csv, &tmp, &error);
        if (csv == NULL) {
            cli_print_error("p2p", error);
            return CLI_EXIT_BAD_INPUT;
        }
        SimCsvWriter w = {.file = csv};
        sim_csv_put_plain(&w, "measure,src_gpu,dst_gpu,bytes,time_us,bandwidth_GB_per_s");
        sim_csv_end_row(&w);
    }
    g_autofree char *nodes = cli_nodes_text(fabric->system, place.n_hosts, place.n_domains);
    printf("# nvlsim p2p: %s (%s), %u GPUs on %s, %s fidelity, %s copies\n", system_id,
           fabric->system->name, n_shown, nodes, net_fidelity_name(plan->fidelity),
           o->sm ? "SM" : "copy-engine");
    if (!topo_faults_empty(faults)) {
        g_autofree char *text = topo_faults_describe(faults, fabric->system);
        printf("# faults: %s\n", text);
    }
    printf("# every copy also costs the system's copy overhead: %.3f us\n",
           (double)fabric->system->copy_overhead_ps / 1e6);
    if (plan->matrices)
        run_matrices(&p2p, plan, gpu, n_shown, csv);
    if (plan->sweep)
        run_sweep(&p2p, plan, csv);
    if (csv && !sim_output_commit(csv, tmp, o->csv, &error)) {
        cli_print_error("p2p", error);
        return CLI_EXIT_BAD_INPUT;
    }
    return CLI_EXIT_OK;
}

int
cli_p2p(int argc, char **argv)
{
    P2pOptions o = {0};
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_p2p_usage, &o);
    g_autoptr(GError) error = NULL;
    P2pPlan plan;
    int status = CLI_EXIT_USAGE;
    if (!cli_parse_options(context, "p2p", &argc, &argv))
        goto out;
    if (argc > 1) {
        fprintf(stderr, "nvlsim p2p: unexpected argument '%s'\n", argv[1]);
        goto out;
    }
    if (!plan_from_options(&o, &plan, &error)) {
        cli_print_error("p2p", error);
        goto out;
    }
    status = p2p_run(&o, &plan);
out:
    g_free(o.system);
    g_free(o.nodes);
    g_free(o.gpus_per_node);
    g_free(o.domains);
    g_free(o.fidelity);
    g_free(o.bytes);
    g_free(o.pair);
    g_free(o.min_bytes);
    g_free(o.max_bytes);
    g_free(o.factor);
    g_free(o.csv);
    g_strfreev(o.faults);
    return status;
}
