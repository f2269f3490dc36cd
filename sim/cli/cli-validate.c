/* nvlsim validate: replays measured rows (the schema of
 * shared/reference/collectives.csv) on the simulator and reports the error
 * of every row and the mean absolute percentage error (MAPE) per system and
 * measure. Rows this version cannot replay are counted and named, never
 * silently dropped. --max-mape turns the run into a gate.
 *
 * Replayed now: the p2p_* rows (p2pBandwidthLatencyTest and its variants):
 * copy bandwidth one way, both ways, staged through the host, relayed
 * through an intermediate GPU where the algorithm column says so, and the
 * time of one copy ("latency"). The GPU pair comes from the source note
 * ("GPU0->GPU3"); a blank size means the CUDA sample's 40 MB copy (4 B for
 * latency).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli-fabric.h"
#include "cli/cli-rows.h"
#include "cli/cli.h"
#include "net/net-p2p.h"
#include "report/report-csv.h"

#define DEFAULT_COPY_BYTES 40000000
#define DEFAULT_LATENCY_BYTES 4
/* Rows whose printed value cannot be judged this finely are skipped. */
#define MAX_ROUNDING_SHARE 0.05

typedef struct ValidateOptions {
    char *fidelity;
    char *max_mape;
    char *csv;
    char *system;
    gboolean quiet;
} ValidateOptions;

typedef struct Group {
    char *system, *measure;
    uint32_t n;
    double sum_abs_pct, max_abs_pct;
} Group;

typedef struct Validation {
    NetFidelity fidelity;
    GHashTable *fabrics; /* system id -> CliFabric */
    GHashTable *memo;    /* "system|kind|a|b|bytes" -> double* simulated value */
    GPtrArray *groups;   /* Group */
    GHashTable *skipped; /* reason -> count (GUINT_TO_POINTER) */
    FILE *out;           /* per-row CSV, or NULL */
    bool quiet;
} Validation;

static GOptionContext *
validate_context(ValidateOptions *o)
{
    GOptionEntry entries[] = {
        {"fidelity", 0, 0, G_OPTION_ARG_STRING, &o->fidelity, "packet or flow (default flow)",
         "F"},
        {"max-mape", 0, 0, G_OPTION_ARG_STRING, &o->max_mape,
         "Exit 3 when any system's MAPE exceeds PCT percent", "PCT"},
        {"csv", 0, 0, G_OPTION_ARG_FILENAME, &o->csv, "Write every replayed row with its error",
         "FILE"},
        {"system", 's', 0, G_OPTION_ARG_STRING, &o->system, "Replay only rows of this system",
         "NAME"},
        {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet, "Print the summary only", NULL},
        G_OPTION_ENTRY_NULL,
    };
    GOptionContext *context = g_option_context_new("FILE.csv");
    g_option_context_set_summary(context,
                                 "Replays measured rows on the simulator and reports the error "
                                 "per row and the MAPE\nper system and measure.");
    g_option_context_set_description(
        context, "FILE.csv has the columns of shared/reference/collectives.csv. Replayed: p2p_*\n"
                 "rows. Other rows are counted as skipped, with the reason.\n"
                 "Exit status: 0 done, 1 bad input, 2 usage error, 3 MAPE above --max-mape.");
    g_option_context_add_main_entries(context, entries, NULL);
    return context;
}

static void
skip(Validation *v, const char *reason)
{
    gpointer n = g_hash_table_lookup(v->skipped, reason);
    g_hash_table_insert(v->skipped, g_strdup(reason), GUINT_TO_POINTER(GPOINTER_TO_UINT(n) + 1));
}

static CliFabric *
fabric_for(Validation *v, const char *system, GError **error)
{
    CliFabric *fabric = g_hash_table_lookup(v->fabrics, system);
    if (fabric == NULL) {
        fabric = cli_fabric_load(system, 1, error);
        if (fabric == NULL)
            return NULL;
        g_hash_table_insert(v->fabrics, g_strdup(system), fabric);
    }
    return fabric;
}

/* The simulated value of a row: GB/s for bandwidths, us for latency. */
static double
simulate(Validation *v, CliFabric *fabric, const char *system, const char *measure,
         NetP2pKind kind, bool latency, uint32_t a, uint32_t b, uint64_t n_bytes)
{
    g_autofree char *key = g_strdup_printf("%s|%s|%d|%u|%u|%" G_GUINT64_FORMAT, system, measure,
                                           (int)kind, a, b, n_bytes);
    double *memo = g_hash_table_lookup(v->memo, key);
    if (memo != NULL)
        return *memo;
    NetP2p p2p = {
        .fidelity = v->fidelity,
        .issuer = NET_ISSUER_CE,
        .copy_overhead_ps = fabric->system->copy_overhead_ps,
        .graph = fabric->graph,
        .router = fabric->router,
    };
    double value = latency ? (double)net_p2p_time_ps(&p2p, kind, a, b, n_bytes) / 1e6
                           : net_p2p_bandwidth(&p2p, kind, a, b, n_bytes) / 1e9;
    memo = g_new(double, 1);
    *memo = value;
    g_hash_table_insert(v->memo, g_steal_pointer(&key), memo);
    return value;
}

static Group *
group_for(Validation *v, const char *system, const char *measure)
{
    for (guint i = 0; i < v->groups->len; i++) {
        Group *g = v->groups->pdata[i];
        if (strcmp(g->system, system) == 0 && strcmp(g->measure, measure) == 0)
            return g;
    }
    Group *g = g_new0(Group, 1);
    g->system = g_strdup(system);
    g->measure = g_strdup(measure);
    g_ptr_array_add(v->groups, g);
    return g;
}

static void
group_free(gpointer data)
{
    Group *g = data;
    g_free(g->system);
    g_free(g->measure);
    g_free(g);
}

static bool
p2p_kind(const char *measure, NetP2pKind *kind, bool *latency)
{
    *latency = false;
    if (strcmp(measure, "p2p_write_unidirectional") == 0 ||
        strcmp(measure, "p2p_copy_unidirectional") == 0)
        *kind = NET_P2P_UNIDIRECTIONAL;
    else if (strcmp(measure, "p2p_copy_bidirectional_total") == 0)
        *kind = NET_P2P_BIDIRECTIONAL;
    else if (strcmp(measure, "p2p_copy_unidirectional_via_host") == 0)
        *kind = NET_P2P_VIA_HOST;
    else if (strcmp(measure, "p2p_latency") == 0) {
        *kind = NET_P2P_UNIDIRECTIONAL;
        *latency = true;
    } else
        return false;
    return true;
}

/* How much of a printed value its last digit's rounding can hide: half a
 * unit of the last decimal place over the value ("0.01" GB/s: 50%); 1 for
 * zero. */
static double
rounding_share(const char *text, double value)
{
    const char *dot = strchr(text, '.');
    int decimals = 0;
    for (const char *p = dot ? dot + 1 : text + strlen(text); g_ascii_isdigit(*p); p++)
        decimals++;
    double half_unit = 0.5 * pow(10, -decimals);
    return value > 0 ? half_unit / value : 1;
}

/* Adds one replayed row to its group, the table and the CSV. */
static void
record(Validation *v, uint32_t line, const char *system, const char *measure, bool latency,
       uint32_t a, uint32_t b, uint64_t n_bytes, double measured, double sim)
{
    double pct = (sim - measured) / measured * 100;
    Group *g = group_for(v, system, measure);
    g->n++;
    g->sum_abs_pct += fabs(pct);
    g->max_abs_pct = MAX(g->max_abs_pct, fabs(pct));
    const char *unit = latency ? "us" : "GB/s";
    if (!v->quiet)
        printf("%5u %-12s %-34s GPU%u->GPU%u %11" G_GUINT64_FORMAT " %10.2f %10.2f %-4s %+8.1f%%\n",
               line, system, measure, a, b, n_bytes, measured, sim, unit, pct);
    if (v->out)
        fprintf(v->out, "%u,%s,%s,%u,%u,%" G_GUINT64_FORMAT ",%s,%.6g,%.6g,%.3f\n", line, system,
                measure, a, b, n_bytes, unit, measured, sim, pct);
}

/* Replays row r; false only on bad input (error set). */
static bool
replay_row(Validation *v, const ReportCsv *csv, const CliRowColumns *col, guint r, const char *only,
           GError **error)
{
    const char *system = report_csv_field(csv, r, col->system);
    const char *measure = report_csv_field(csv, r, col->collective);
    if (only != NULL && strcmp(system, only) != 0)
        return true;
    if (*system == '\0') {
        skip(v, "no nvlsim_system named");
        return true;
    }
    NetP2pKind kind;
    bool latency;
    if (!g_str_has_prefix(measure, "p2p_")) {
        skip(v, "collectives (not replayed by this version)");
        return true;
    }
    if (!p2p_kind(measure, &kind, &latency)) {
        skip(v, "unknown p2p measure");
        return true;
    }
    double measured;
    if (!cli_rows_number(csv, r, latency ? col->time_us : col->busbw,
                      latency ? "time_us" : "busbw_gbps", &measured, error))
        return false;
    if (rounding_share(report_csv_field(csv, r, latency ? col->time_us : col->busbw),
                       measured) > MAX_ROUNDING_SHARE) {
        skip(v, "measured value printed to too few digits (its rounding alone exceeds 5%)");
        return true;
    }
    uint64_t n_bytes = latency ? DEFAULT_LATENCY_BYTES : DEFAULT_COPY_BYTES;
    const char *bytes_text = report_csv_field(csv, r, col->bytes);
    if (*bytes_text != '\0') {
        double b;
        if (!cli_rows_number(csv, r, col->bytes, "bytes", &b, error))
            return false;
        if (b > 1e15) {
            skip(v, "GPU pair or size outside the system");
            return true;
        }
        n_bytes = (uint64_t)b;
    }
    uint32_t a, b;
    cli_rows_pair(report_csv_field(csv, r, col->note), &a, &b);
    CliFabric *fabric = fabric_for(v, system, error);
    if (fabric == NULL) {
        g_prefix_error(error, "%s:%u: nvlsim_system '%s': ", csv->path,
                       g_array_index(csv->lines, uint32_t, r), system);
        return false;
    }
    uint32_t n_gpus = topo_graph_n_gpus(fabric->graph);
    if (a >= n_gpus || b >= n_gpus || a == b || n_bytes == 0) {
        skip(v, "GPU pair or size outside the system");
        return true;
    }
    /* Tartan's variant relays copies between GPUs without a direct NVLink
     * through an intermediate GPU; its rows say so in the algorithm column. */
    if (strstr(report_csv_field(csv, r, col->algorithm), "intermediate GPU") != NULL) {
        NetP2p probe = {.graph = fabric->graph, .router = fabric->router};
        if (!net_p2p_nvlink(&probe, a, b) && kind != NET_P2P_VIA_HOST)
            kind = kind == NET_P2P_BIDIRECTIONAL ? NET_P2P_RELAY_BIDIRECTIONAL : NET_P2P_RELAY;
    }
    double sim = simulate(v, fabric, system, measure, kind, latency, a, b, n_bytes);
    record(v, g_array_index(csv->lines, uint32_t, r), system, measure, latency, a, b, n_bytes,
           measured, sim);
    return true;
}

static double
print_summary(const Validation *v)
{
    double worst = 0;
    printf("\n# MAPE per system and measure (%s fidelity)\n", net_fidelity_name(v->fidelity));
    printf("%-14s %-34s %6s %8s %9s\n", "system", "measure", "rows", "MAPE_%", "max_err_%");
    for (guint i = 0; i < v->groups->len; i++) {
        const Group *g = v->groups->pdata[i];
        double mape = g->sum_abs_pct / g->n;
        worst = MAX(worst, mape);
        printf("%-14s %-34s %6u %8.2f %9.2f\n", g->system, g->measure, g->n, mape,
               g->max_abs_pct);
    }
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, v->skipped);
    while (g_hash_table_iter_next(&it, &key, &value))
        printf("# skipped %u rows: %s\n", GPOINTER_TO_UINT(value), (char *)key);
    return worst;
}

static int
validate_run(const ValidateOptions *o, const char *path, NetFidelity fidelity, double max_mape)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(ReportCsv) csv = report_csv_read(path, &error);
    CliRowColumns col;
    if (csv == NULL || !cli_rows_find_columns(csv, &col, &error)) {
        cli_print_error("validate", error);
        return CLI_EXIT_BAD_INPUT;
    }
    Validation v = {
        .fidelity = fidelity,
        .fabrics = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify)cli_fabric_free),
        .memo = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
        .groups = g_ptr_array_new_with_free_func(group_free),
        .skipped = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        .quiet = o->quiet,
    };
    char *tmp = NULL;
    int status = CLI_EXIT_BAD_INPUT;
    if (o->csv) {
        v.out = cli_output_open(o->csv, &tmp, &error);
        if (v.out == NULL)
            goto out;
        fprintf(v.out, "line,system,measure,src_gpu,dst_gpu,bytes,unit,measured,simulated,"
                       "error_pct\n");
    }
    if (!o->quiet)
        printf("%5s %-12s %-34s %-11s %11s %10s %10s %-4s %9s\n", "line", "system", "measure",
               "pair", "bytes", "measured", "simulated", "unit", "error");
    for (guint r = 0; r < csv->rows->len; r++)
        if (!replay_row(&v, csv, &col, r, o->system, &error))
            goto out;
    double worst = print_summary(&v);
    if (v.out != NULL) {
        FILE *f = v.out;
        v.out = NULL;
        if (!cli_output_commit(f, tmp, o->csv, &error))
            goto out;
    }
    status = max_mape > 0 && worst > max_mape ? CLI_EXIT_GATE : CLI_EXIT_OK;
    if (status == CLI_EXIT_GATE)
        fprintf(stderr, "nvlsim validate: MAPE %.2f%% exceeds --max-mape %g%%\n", worst,
                max_mape);
out:
    if (error != NULL)
        cli_print_error("validate", error);
    if (v.out != NULL)
        cli_output_abandon(v.out, tmp);
    g_hash_table_unref(v.fabrics);
    g_hash_table_unref(v.memo);
    g_ptr_array_unref(v.groups);
    g_hash_table_unref(v.skipped);
    return status;
}

int
cli_validate(int argc, char **argv)
{
    ValidateOptions o = {0};
    g_autoptr(GOptionContext) context = validate_context(&o);
    int status = CLI_EXIT_USAGE;
    NetFidelity fidelity = NET_FIDELITY_FLOW;
    double max_mape = 0;
    if (!cli_parse_options(context, "validate", &argc, &argv))
        goto out;
    if (argc != 2) {
        fprintf(stderr, "nvlsim validate: expected one FILE.csv (see nvlsim help validate)\n");
        goto out;
    }
    if (o.fidelity && !net_fidelity_parse(o.fidelity, &fidelity)) {
        fprintf(stderr, "nvlsim validate: --fidelity: '%s': expected packet or flow\n",
                o.fidelity);
        goto out;
    }
    if (o.max_mape) {
        char *end;
        max_mape = g_ascii_strtod(o.max_mape, &end);
        if (*end != '\0' || !(max_mape > 0)) {
            fprintf(stderr, "nvlsim validate: --max-mape: '%s': expected a positive percentage\n",
                    o.max_mape);
            goto out;
        }
    }
    status = validate_run(&o, argv[1], fidelity, max_mape);
out:
    g_free(o.fidelity);
    g_free(o.max_mape);
    g_free(o.csv);
    g_free(o.system);
    return status;
}
