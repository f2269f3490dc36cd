/* nvlsim calibrate copy-overhead: fits a system's fixed cost of one
 * cudaMemcpyPeer from measured copy times.
 *
 * The calibration set is the p2p_latency rows of one system in a
 * measurement file (the schema of shared/reference/collectives.csv),
 * narrowed by --match to rows whose algorithm column contains the text, and
 * to GPU pairs with a direct NVLink route. For each row the simulator gives
 * the copy's transfer time without overhead; the overhead is the median of
 * measured minus simulated (robust to a few slow pairs). The command prints
 * the fit, its error on the rows it was fitted on, and the line to put in
 * the system model; nvlsim validate then judges it on every other row.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli-fabric.h"
#include "cli/cli-rows.h"
#include "cli/cli.h"
#include "net/net-p2p.h"

#define LATENCY_BYTES 4

typedef struct CalibrateOptions {
    char *system;
    char *match;
    char *fidelity;
} CalibrateOptions;

typedef struct Sample {
    double measured_us, transfer_us;
} Sample;

static GOptionContext *
calibrate_context(CalibrateOptions *o)
{
    GOptionEntry entries[] = {
        {"system", 's', 0, G_OPTION_ARG_STRING, &o->system, "System whose rows to fit (required)",
         "NAME"},
        {"match", 0, 0, G_OPTION_ARG_STRING, &o->match,
         "Fit only rows whose algorithm column contains TEXT", "TEXT"},
        {"fidelity", 0, 0, G_OPTION_ARG_STRING, &o->fidelity, "packet or flow (default flow)",
         "F"},
        G_OPTION_ENTRY_NULL,
    };
    GOptionContext *context = g_option_context_new("copy-overhead FILE.csv");
    g_option_context_set_summary(
        context, "Fits a system's fixed cost of one peer copy (the [host] copy_overhead key)\n"
                 "from the p2p_latency rows of a measurement file.");
    g_option_context_set_description(
        context, "Example, the fit shipped in models/system/dgx1-p100.ini:\n"
                 "  nvlsim calibrate copy-overhead shared/reference/collectives.csv \\\n"
                 "    --system dgx1-p100 --match 'modified p2pBandwidthLatencyTest'\n"
                 "Judge the fit on the rows it was not fitted on with nvlsim validate.");
    g_option_context_add_main_entries(context, entries, NULL);
    return context;
}

static int
compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Collects (measured, simulated transfer) for the calibration rows. */
static bool
collect(const ReportCsv *csv, const CalibrateOptions *o, const NetP2p *p2p, GArray *samples,
        GError **error)
{
    CliRowColumns col;
    if (!cli_rows_find_columns(csv, &col, error))
        return false;
    for (guint r = 0; r < csv->rows->len; r++) {
        if (strcmp(report_csv_field(csv, r, col.system), o->system) != 0 ||
            strcmp(report_csv_field(csv, r, col.collective), "p2p_latency") != 0 ||
            (o->match && !strstr(report_csv_field(csv, r, col.algorithm), o->match)))
            continue;
        double measured, bytes = LATENCY_BYTES;
        if (!cli_rows_number(csv, r, col.time_us, "time_us", &measured, error))
            return false;
        if (*report_csv_field(csv, r, col.bytes) != '\0' &&
            !cli_rows_number(csv, r, col.bytes, "bytes", &bytes, error))
            return false;
        uint32_t a, b, n = topo_graph_n_gpus(p2p->graph);
        cli_rows_pair(report_csv_field(csv, r, col.note), &a, &b);
        if (a >= n || b >= n || a == b || bytes < 1 || !net_p2p_nvlink(p2p, a, b))
            continue;
        Sample s = {
            .measured_us = measured,
            .transfer_us =
                (double)net_p2p_time_ps(p2p, NET_P2P_UNIDIRECTIONAL, a, b, (uint64_t)bytes) / 1e6,
        };
        g_array_append_val(samples, s);
    }
    return true;
}

static int
calibrate_run(const CalibrateOptions *o, const char *path, NetFidelity fidelity)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(ReportCsv) csv = report_csv_read(path, &error);
    g_autoptr(CliFabric) fabric = csv ? cli_fabric_load(o->system, 1, &error) : NULL;
    if (fabric == NULL) {
        cli_print_error("calibrate", error);
        return CLI_EXIT_BAD_INPUT;
    }
    NetP2p p2p = {.fidelity = fidelity,
                  .issuer = NET_ISSUER_CE,
                  .graph = fabric->graph,
                  .router = fabric->router};
    g_autoptr(GArray) samples = g_array_new(FALSE, FALSE, sizeof(Sample));
    if (!collect(csv, o, &p2p, samples, &error)) {
        cli_print_error("calibrate", error);
        return CLI_EXIT_BAD_INPUT;
    }
    if (samples->len == 0) {
        fprintf(stderr,
                "nvlsim calibrate: %s: no p2p_latency rows of %s%s%s over a direct NVLink\n",
                path, o->system, o->match ? " matching " : "", o->match ? o->match : "");
        return CLI_EXIT_BAD_INPUT;
    }
    g_autofree double *residual = g_new(double, samples->len);
    for (guint i = 0; i < samples->len; i++) {
        const Sample *s = &g_array_index(samples, Sample, i);
        residual[i] = s->measured_us - s->transfer_us;
    }
    qsort(residual, samples->len, sizeof(double), compare_double);
    guint n = samples->len;
    double fit = n % 2 ? residual[n / 2] : (residual[n / 2 - 1] + residual[n / 2]) / 2;
    fit = MAX(fit, 0);
    double sum_abs = 0, worst = 0;
    for (guint i = 0; i < n; i++) {
        const Sample *s = &g_array_index(samples, Sample, i);
        double pct = fabs(s->transfer_us + fit - s->measured_us) / s->measured_us * 100;
        sum_abs += pct;
        worst = MAX(worst, pct);
    }
    printf("# nvlsim calibrate copy-overhead: %s, %u rows of %s%s%s (%s fidelity)\n", path, n,
           o->system, o->match ? " matching " : "", o->match ? o->match : "",
           net_fidelity_name(fidelity));
    printf("# measured - simulated transfer: min %.3f us, median %.3f us, max %.3f us\n",
           residual[0], fit, residual[n - 1]);
    printf("# error on the fitted rows: MAPE %.2f%%, max %.2f%%\n", sum_abs / n, worst);
    printf("copy_overhead = %.0fns\n", fit * 1e3);
    return CLI_EXIT_OK;
}

int
cli_calibrate(int argc, char **argv)
{
    CalibrateOptions o = {0};
    g_autoptr(GOptionContext) context = calibrate_context(&o);
    int status = CLI_EXIT_USAGE;
    NetFidelity fidelity = NET_FIDELITY_FLOW;
    if (!cli_parse_options(context, "calibrate", &argc, &argv))
        goto out;
    if (argc != 3 || strcmp(argv[1], "copy-overhead") != 0) {
        fprintf(stderr, "nvlsim calibrate: expected copy-overhead FILE.csv (see nvlsim help "
                        "calibrate)\n");
        goto out;
    }
    if (o.system == NULL) {
        fprintf(stderr, "nvlsim calibrate: --system is required\n");
        goto out;
    }
    if (o.fidelity && !net_fidelity_parse(o.fidelity, &fidelity)) {
        fprintf(stderr, "nvlsim calibrate: --fidelity: '%s': expected packet or flow\n",
                o.fidelity);
        goto out;
    }
    status = calibrate_run(&o, argv[2], fidelity);
out:
    g_free(o.system);
    g_free(o.match);
    g_free(o.fidelity);
    return status;
}
