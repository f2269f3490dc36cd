/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim validate: replays measured rows (the schema of
 * shared/reference/collectives.csv, columns found by name) on the simulator
 * and reports each row's error, the mean absolute percentage error (MAPE)
 * per system and measure and per system, NCCL's own model's MAPE on the
 * same rows, and as the last line the MAPE over all rows. Rows it cannot
 * replay are counted with the reason, never silently dropped; malformed
 * rows are reported one by one (FILE:LINE: column: what) and make the exit
 * status 1, as does --max-mape exceeded. Without a file it replays the
 * shipped measurement suite (data/measurements/, found as the models are:
 * core-data.h), one file after the other. The row kinds live in
 * cli-validate-p2p.c, cli-validate-coll.c and cli-validate-train.c.
 */
#include "cli/cli-validate.h"

#include <glib/gstdio.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core-output.h"
#include "cli/cli-plot.h"
#include "cli/cli-validate-cross.h"
#include "cli/cli.h"
#include "coll/coll-run.h"
#include "core/core-data.h"
#include "core/core-units.h"
#include "core/core-csv.h"
#include "judge/judge-log.h"

typedef struct ValidateOptions {
    char *fidelity;
    char *max_mape;
    char *min_bytes;
    char *csv;
    char *plot;
    char *system;
    char *cross;
    char *gpus, *nodes, *collective, *nccl_env;
    gboolean quiet;
    gboolean decompose;
    JudgeLogHints hints; /* --system, --gpus, --nodes, --collective, parsed */
} ValidateOptions;

typedef struct ValidateGroup {
    char *system, *measure; /* measure NULL: the system's total */
    uint32_t n, n_model;
    double sum_abs_pct, max_abs_pct, sum_abs_model_pct;
} ValidateGroup;

#define OPT(field) CLI_OPTION_AT(ValidateOptions, field)

static const GOptionEntry validate_entries[] = {
    {"fidelity", 0, 0, G_OPTION_ARG_STRING, OPT(fidelity),
     "packet, flow (default) or analytic (training rows' calls alone; collective rows at flow)",
     "F"},
    {"max-mape", 0, 0, G_OPTION_ARG_STRING, OPT(max_mape),
     "Exit 1 when the MAPE over all rows exceeds PCT percent", "PCT"},
    {"min-bytes", 0, 0, G_OPTION_ARG_STRING, OPT(min_bytes),
     "Replay only rows of at least SIZE bytes", "SIZE"},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, OPT(csv), "Write every replayed row with its error",
     "FILE"},
    {"plot", 0, 0, G_OPTION_ARG_FILENAME, OPT(plot),
     "Plot simulated against measured with gnuplot (the CSV goes beside it without --csv)",
     "FILE.png|FILE.svg|FILE.pdf"},
    {"system", 's', 0, G_OPTION_ARG_STRING, OPT(system),
     "Replay only rows of this system; for an nccl-tests log, the system it ran on", "NAME"},
    {"gpus", 0, 0, G_OPTION_ARG_STRING, OPT(gpus),
     "For an nccl-tests log without '#  Rank' lines: its ranks", "N"},
    {"nodes", 0, 0, G_OPTION_ARG_STRING, OPT(nodes),
     "For an nccl-tests log without '#  Rank' lines: the hosts its ranks span", "N"},
    {"collective", 0, 0, G_OPTION_ARG_STRING, OPT(collective),
     "For an nccl-tests log that does not name its test: the collective (all_reduce, "
     "all_reduce_perf ...)",
     "C"},
    {"nccl-env", 0, 0, G_OPTION_ARG_STRING, OPT(nccl_env),
     "For an nccl-tests log: the NCCL variables its run set that it does not print "
     "(\"NCCL_NVLS_ENABLE=0 NCCL_BUFFSIZE=16777216\")",
     "VARS"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, OPT(quiet), "Print the summary only", NULL},
    {"decompose", 0, 0, G_OPTION_ARG_NONE, OPT(decompose),
     "Split each sweep's miss into latency and bandwidth: t = alpha + bytes/beta fitted to "
     "the measured and the simulated times",
     NULL},
    {"cross", 0, 0, G_OPTION_ARG_STRING, OPT(cross),
     "Leave each system, generation or source out in turn: refit the fitted constants "
     "on the other rows (collectives: the runtime's; training: the compute efficiency) "
     "and report the group's rows",
     "system|generation|source"},
    G_OPTION_ENTRY_NULL,
};

const CliUsage cli_validate_usage = {
    .args = "[FILE.csv|LOG]",
    .summary = "Replays measured rows on the simulator and reports the error "
               "per row and the MAPE\nper system and measure, beside NCCL's "
               "own model's.",
    .description =
        "Without FILE.csv: the shipped measurement suite, data/measurements/\n"
        "collectives.csv, training.csv, training-mcore-h100.csv then\n"
        "training-blackwell.csv and training-public.csv, found where the models are (nvlsim\n"
        "--version prints the folder), each under a line naming it; --max-mape\n"
        "gates each file, --cross crosses each (its collective rows, then its\n"
        "training rows), --csv and --plot need a FILE.csv.\n"
        "FILE.csv has the columns of data/measurements/collectives.csv (found by name),\n"
        "or those of data/measurements/training.csv (training steps, recognised by\n"
        "iteration_time_s).\n"
        "LOG is nccl-tests' output as printed (recognised by its table header; srun's\n"
        "and mpirun's task prefixes, several tests, NCCL INFO lines between) or its\n"
        "JSON (-J). Each test's header lines give its collective, ranks, hosts, GPU\n"
        "and NCCL version; the system is --system, else the GPU model's reference\n"
        "system. --gpus, --nodes and --collective give what a paste without them\n"
        "lacks; one the log contradicts is an error. Every field a hint or a rule\n"
        "filled is printed with its test; rows whose algbw or busbw do not follow\n"
        "from size and time are malformed. Out-of-place and in-place groups are a\n"
        "row each.\n"
        "Replayed: collective rows (all_reduce ... sendrecv) and p2p_* rows. Rows with\n"
        "no system, no size or an unmodelled algorithm are counted as skipped.\n"
        "Optional columns harness (nccl-tests, blocking), launch_mode (mpi,\n"
        "threads) and cuda_graph (0, 1) say how a row was measured; blank:\n"
        "nccl-tests' defaults. visible_devices (\"0,3,4,7\") places the ranks on\n"
        "those GPUs of each node (blank: the first); gpus_per_node (\"1\") on the\n"
        "first that many of each node (blank: nodes filled in order).\n"
        "--decompose: after the summary, each sweep of collective rows (one system,\n"
        "collective, rank count, host count, NVLink domain count, source and\n"
        "harness) cut where the simulated algorithm/protocol changes, each piece's\n"
        "line t = alpha + bytes /\n"
        "beta fitted to the measured and to the simulated times, and its miss read\n"
        "as latency (us) or bandwidth (%), the sweeps by their share of the error.\n"
        "--cross on training rows: each group's rows at the compute_efficiency fitted\n"
        "(the median of the rows' own, as calibrate compute-efficiency fits) on the\n"
        "other groups' rows, beside the shipped efficiency and one efficiency\n"
        "fitted on every row; needs rows of two groups. With --cross,\n"
        "--max-mape gates the CROSS MAPE. Rows are read, replayed and\n"
        "printed one at a time (memory does not grow with the file; --cross keeps\n"
        "a small record per row for its refits), each written whole as it is\n"
        "replayed, down a pipe too (stdout is line-buffered).\n"
        "Progress: when stderr is a terminal, one line there says rows done of the\n"
        "file's data lines (counted first, in one read of a regular file; a pipe\n"
        "shows rows done and the rate, no total), rows a second and the time left\n"
        "at that rate; it is erased at the end. Nothing when stderr is not one.\n"
        "Exit status: 0 done, 1 malformed rows or MAPE above --max-mape, 2 usage.",
    .entries = validate_entries,
};

void
validate_row_done(Validation *v)
{
    cli_progress_update(v->progress, v->n_rows, v->n_rows, -1);
}

void
validate_skip(Validation *v, const char *reason)
{
    gpointer n = g_hash_table_lookup(v->skipped, reason);
    g_hash_table_insert(v->skipped, g_strdup(reason), GUINT_TO_POINTER(GPOINTER_TO_UINT(n) + 1));
}

void
validate_default(Validation *v, const char *stated)
{
    gpointer n = g_hash_table_lookup(v->defaults, stated);
    g_hash_table_insert(v->defaults, g_strdup(stated), GUINT_TO_POINTER(GPOINTER_TO_UINT(n) + 1));
}

void
validate_bad(Validation *v, const SimCsv *csv, guint r, const char *column, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    g_autofree char *message = g_strdup_vprintf(format, args);
    va_end(args);
    cli_progress_before_output(v->progress, v->err);
    if (v->err != NULL)
        fprintf(v->err, "nvlsim %s: %s:%u: %s%s%s%s\n", v->command, csv->path,
                g_array_index(csv->lines, uint32_t, r), column ? "column " : "",
                column ? column : "", column ? ": " : "", message);
    v->n_bad++;
}

void
validate_bad_error(Validation *v, const GError *error)
{
    cli_progress_before_output(v->progress, v->err);
    if (v->err != NULL)
        cli_print_error(v->command, error);
    v->n_bad++;
}

TopoWorld *
validate_fabric(Validation *v, const char *system, uint32_t n_nodes, bool collnet,
                const char *nccl_env, GError **error)
{
    if (nccl_env == NULL)
        nccl_env = "";
    g_autofree char *key = g_strdup_printf("%s|%u|%d|%s", system, n_nodes, collnet, nccl_env);
    TopoWorld *fabric = g_hash_table_lookup(v->fabrics, key);
    if (fabric == NULL) {
        fabric = topo_world_load(system, n_nodes, NULL, error);
        if (fabric == NULL)
            return NULL;
        if (!hw_nccl_env_parse(nccl_env, &fabric->system->nccl, error)) {
            topo_world_unref(fabric);
            return NULL;
        }
        if (collnet &&
            (!hw_system_sharp(fabric->system) || n_nodes < 2 || fabric->system->fabric_tiers > 2)) {
            g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                        "in-network reduction (SHARP, CollNet) needs %s",
                        n_nodes < 2                        ? "two nodes or more"
                        : fabric->system->fabric_tiers > 2 ? "a fabric of two tiers"
                                                           : "a fabric switch with SHARPv2 or "
                                                             "later (ib-qm8700, ib-qm9700, "
                                                             "ib-q3400)");
            topo_world_unref(fabric);
            return NULL;
        }
        fabric->system->collnet |= collnet;
        g_hash_table_insert(v->fabrics, g_steal_pointer(&key), fabric);
    }
    return fabric;
}

double
validate_rounding_share(const char *text, double value)
{
    const char *dot = strchr(text, '.');
    int decimals = 0;
    for (const char *p = dot ? dot + 1 : text + strlen(text); g_ascii_isdigit(*p); p++)
        decimals++;
    double half_unit = 0.5 * pow(10, -decimals);
    return value > 0 ? half_unit / value : 1;
}

static ValidateGroup *
group_for(Validation *v, const char *system, const char *measure)
{
    for (guint i = 0; i < v->groups->len; i++) {
        ValidateGroup *g = v->groups->pdata[i];
        if (strcmp(g->system, system) == 0 && g_strcmp0(g->measure, measure) == 0)
            return g;
    }
    ValidateGroup *g = g_new0(ValidateGroup, 1);
    g->system = g_strdup(system);
    g->measure = g_strdup(measure);
    g_ptr_array_add(v->groups, g);
    return g;
}

static void
group_free(gpointer data)
{
    ValidateGroup *g = data;
    g_free(g->system);
    g_free(g->measure);
    g_free(g);
}

static void
group_add(ValidateGroup *g, double pct, double model_pct)
{
    g->n++;
    g->sum_abs_pct += fabs(pct);
    g->max_abs_pct = MAX(g->max_abs_pct, fabs(pct));
    if (!isnan(model_pct)) {
        g->n_model++;
        g->sum_abs_model_pct += fabs(model_pct);
    }
}

void
validate_record(Validation *v, const ValidateRow *row)
{
    double pct = (row->simulated - row->measured) / row->measured * 100;
    double model_pct = (row->model - row->measured) / row->measured * 100;
    group_add(group_for(v, row->system, row->measure), pct, model_pct);
    group_add(group_for(v, row->system, NULL), pct, model_pct);
    if (!v->training && !g_str_has_prefix(row->measure, "p2p_"))
        group_add(
            group_for(v, row->system,
                      row->n_bytes >= (1 << 20) ? "collectives >= 1 MiB" : "collectives < 1 MiB"),
            pct, model_pct);
    group_add(group_for(v, "", NULL), pct, model_pct);
    if (!v->quiet)
        cli_progress_before_output(v->progress, stdout);
    if (!v->quiet && v->training) {
        printf("%5u %-15s %-31s %5u %-34s %9.3f %9.3f %-1s %+7.1f%%  %s\n", row->line, row->system,
               row->measure, row->n_gpus, row->detail, row->measured, row->simulated, row->unit,
               pct, row->where ? row->where : "");
    } else if (!v->quiet) {
        char model[16] = "        -";
        if (!isnan(model_pct))
            g_snprintf(model, sizeof model, "%+8.1f%%", model_pct);
        printf("%5u %-15s %-32s %5u %11" G_GUINT64_FORMAT
               " %-16s %10.2f %10.2f %-4s %+8.1f%% %s%s%s\n",
               row->line, row->system, row->measure, row->n_gpus, row->n_bytes, row->detail,
               row->measured, row->simulated, row->unit, pct, model,
               row->where != NULL ? "  defaults: " : "", row->where != NULL ? row->where : "");
    }
    if (v->out) {
        SimCsvWriter w = {.file = v->out};
        sim_csv_put_plain(&w, "%u", row->line);
        sim_csv_put(&w, row->system);
        sim_csv_put(&w, row->measure);
        sim_csv_put_plain(&w, "%u,%" G_GUINT64_FORMAT, row->n_gpus, row->n_bytes);
        sim_csv_put(&w, row->detail);
        sim_csv_put(&w, row->unit);
        sim_csv_put_plain(&w, "%.6g,%.6g,%.3f,%.6g,%.3f", row->measured, row->simulated, pct,
                          row->model, model_pct);
        sim_csv_put(&w, row->where != NULL ? row->where : "");
        sim_csv_end_row(&w);
    }
}

void
validate_trim_caches(Validation *v)
{
    if (g_hash_table_size(v->fabrics) <= VALIDATE_MAX_FABRICS &&
        g_hash_table_size(v->memo) <= VALIDATE_MAX_MEMO)
        return;
    /* Communicators point into fabrics, memo keys name communicators. */
    g_hash_table_remove_all(v->memo);
    g_hash_table_remove_all(v->comms);
    g_hash_table_remove_all(v->fabrics);
}

static void
replay_row(Validation *v, const SimCsv *csv, const CliRowColumns *col, guint r)
{
    const char *system = sim_csv_field(csv, r, col->system);
    const char *measure = sim_csv_field(csv, r, col->collective);
    if (v->only_system != NULL && strcmp(system, v->only_system) != 0)
        return;
    if (*system == '\0')
        validate_skip(v, "no nvlsim_system named");
    else if (g_str_has_prefix(measure, "p2p_"))
        validate_p2p_row(v, csv, col, r);
    else
        validate_coll_row(v, csv, col, r);
}

uint32_t
validate_print_skipped(const Validation *v)
{
    uint32_t n_skipped = 0;
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init(&it, v->skipped);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        printf("# skipped %u rows: %s\n", GPOINTER_TO_UINT(value), (char *)key);
        n_skipped += GPOINTER_TO_UINT(value);
    }
    g_hash_table_iter_init(&it, v->defaults);
    while (g_hash_table_iter_next(&it, &key, &value))
        printf("# default for %u rows: %s\n", GPOINTER_TO_UINT(value), (char *)key);
    return n_skipped;
}

/* Prints the groups; returns the MAPE over all rows (0 when none). */
static double
print_summary(const Validation *v)
{
    printf("\n# MAPE per system and measure (%s fidelity); nccl_model: NCCL's own cost model on "
           "the same rows\n",
           net_fidelity_name(v->fidelity));
    printf("%-15s %-32s %6s %8s %9s %12s\n", "system", "measure", "rows", "MAPE_%", "max_err_%",
           "nccl_model_%");
    /* Measures first, then each system's rows by size (>= or < 1 MiB), then
     * each system's total. */
    const ValidateGroup *all = NULL;
    for (int pass = 0; pass < 3; pass++)
        for (guint i = 0; i < v->groups->len; i++) {
            const ValidateGroup *g = v->groups->pdata[i];
            if (*g->system == '\0') {
                all = g;
                continue;
            }
            bool by_size = g->measure != NULL && strstr(g->measure, "MiB") != NULL;
            int kind = g->measure == NULL ? 2 : by_size ? 1 : 0;
            if (kind != pass)
                continue;
            g_autofree char *model =
                g->n_model ? g_strdup_printf("%.2f", g->sum_abs_model_pct / g->n_model)
                           : g_strdup("-");
            printf("%-15s %-32s %6u %8.2f %9.2f %12s\n", g->system,
                   g->measure ? g->measure : "(all)", g->n, g->sum_abs_pct / g->n, g->max_abs_pct,
                   model);
        }
    uint32_t n_skipped = validate_print_skipped(v);
    if (v->n_bad)
        printf("# %u malformed rows (reported on stderr)\n", v->n_bad);
    double mape = all ? all->sum_abs_pct / all->n : 0;
    if (all && all->n_model)
        printf("# NCCL's model on the %u rows it covers: MAPE %.1f%%\n", all->n_model,
               all->sum_abs_model_pct / all->n_model);
    printf("MAPE: %.1f%% over %u rows (%u skipped)\n", mape, all ? all->n : 0, n_skipped);
    return mape;
}

bool
validate_rows(Validation *v, SimCsvStream *rows, GError **error)
{
    const SimCsv *csv = sim_csv_stream_table(rows);
    v->training = validate_is_training(csv);
    if (v->training) {
        if (!v->quiet)
            printf("%5s %-15s %-31s %5s %-34s %9s %9s %-1s %8s  %s\n", "line", "system", "source",
                   "gpus", "model and layout", "measured", "simulated", "", "error",
                   "simulated step: % compute, exposed tp pp dp ep cp, idle");
        return validate_train_rows(v, rows, error);
    }
    CliRowColumns col;
    if (!cli_rows_find_columns(csv, &col, error))
        return false;
    if (!v->quiet)
        printf("%5s %-15s %-32s %5s %11s %-16s %10s %10s %-4s %9s %9s\n", "line", "system",
               "measure", "gpus", "bytes", "detail", "measured", "simulated", "unit", "error",
               "nccl_mod");
    while (sim_csv_stream_next(rows, error)) {
        v->n_rows++;
        validate_trim_caches(v);
        replay_row(v, csv, &col, 0);
        validate_row_done(v);
    }
    return error == NULL || *error == NULL;
}

/* The data lines of the CSV at path (its lines less the header), in one
 * pass of block reads and no parsing, when it is a regular file; 0 when
 * it is not (a pipe cannot be read twice: the progress line then shows no
 * total). A quoted line break counts as a line, so the total can exceed
 * the rows by as many: the line is erased at the end, whatever it says. */
static uint64_t
count_data_lines(const char *path)
{
    GStatBuf st;
    if (g_stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    FILE *f = g_fopen(path, "rb");
    if (f == NULL)
        return 0;
    char buf[1 << 16];
    size_t n;
    uint64_t n_lines = 0;
    char last = '\n';
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        for (const char *p = buf; (p = memchr(p, '\n', (size_t)(buf + n - p))) != NULL; p++)
            n_lines++;
        last = buf[n - 1];
    }
    fclose(f);
    n_lines += last != '\n';
    return n_lines > 1 ? n_lines - 1 : 0;
}

/* Replays the rows of path, a progress line over them on a terminal. */
static bool
validate_stream(Validation *v, SimCsvStream *rows, const char *path, GError **error)
{
    g_autoptr(CliProgress) progress = cli_progress_new("rows", 0);
    if (cli_progress_active(progress)) {
        cli_progress_free(g_steal_pointer(&progress));
        progress = cli_progress_new("rows", count_data_lines(path));
    }
    v->progress = progress;
    bool ok = validate_rows(v, rows, error);
    v->progress = NULL;
    return ok;
}

/* What the log's tests were read as: each test's collective, ranks, hosts,
 * system and GPU, and every field a hint or a rule filled; its malformed
 * parts reported as malformed rows. */
static void
report_log(Validation *v, const JudgeLog *log)
{
    for (guint i = 0; i < log->tests->len; i++) {
        const JudgeLogTest *t = log->tests->pdata[i];
        g_autofree char *hosts = t->n_hosts > 0 ? g_strdup_printf(" on %u host%s", t->n_hosts,
                                                                  t->n_hosts == 1 ? "" : "s")
                                                : g_strdup("");
        printf("# %s:%u: nccl-tests %s, %u ranks%s of %s%s%s%s%s, %u sizes\n", log->path, t->line,
               coll_op_name(t->op), t->n_ranks, hosts, t->system, t->device != NULL ? ", GPU " : "",
               t->device != NULL ? t->device : "", t->nccl_version != NULL ? ", NCCL " : "",
               t->nccl_version != NULL ? t->nccl_version : "", t->rows->len);
        for (guint k = 0; k < t->stated->len; k++)
            printf("#   stated: %s\n", (const char *)t->stated->pdata[k]);
    }
    for (guint i = 0; i < log->problems->len; i++) {
        fprintf(stderr, "nvlsim %s: %s\n", v->command, (const char *)log->problems->pdata[i]);
        v->n_bad++;
    }
}

/* The rows of path: nccl-tests' output (judge_log_open) made the suite's
 * rows, or a CSV file read a row at a time: a file ending in .csv, or one
 * judge_log_open finds no log in. */
static SimCsvStream *
open_rows(Validation *v, const ValidateOptions *o, const char *path, GError **error)
{
    if (!g_str_has_suffix(path, ".csv")) {
        g_autoptr(GError) failed = NULL;
        g_autoptr(JudgeLog) log = judge_log_open(path, &o->hints, &failed);
        if (log != NULL) {
            report_log(v, log);
            return sim_csv_stream_new_table(judge_log_table(log));
        }
        /* Not a log, or not readable: read as CSV, which says why not. */
        if (g_error_matches(failed, JUDGE_LOG_ERROR, JUDGE_LOG_ERROR_MALFORMED)) {
            g_propagate_error(error, g_steal_pointer(&failed));
            return NULL;
        }
    }
    const JudgeLogHints *h = &o->hints;
    if (h->n_gpus != 0 || h->n_nodes != 0 || h->collective != NULL) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s: not nccl-tests' output (no table header '#  size  count  type ... "
                    "algbw  busbw'): --gpus, --nodes and --collective describe a log",
                    path);
        return NULL;
    }
    return sim_csv_stream_open(path, error);
}

static int
validate_run(Validation *v, const ValidateOptions *o, const char *path, double max_mape)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(SimCsvStream) rows = open_rows(v, o, path, &error);
    if (rows == NULL) {
        cli_print_error("validate", error);
        return CLI_EXIT_BAD_INPUT;
    }
    char *tmp = NULL;
    if (o->csv) {
        if ((v->out = sim_output_open(o->csv, &tmp, &error)) == NULL) {
            cli_print_error("validate", error);
            return CLI_EXIT_BAD_INPUT;
        }
        SimCsvWriter w = {.file = v->out};
        sim_csv_put_plain(&w, "line,system,measure,gpus,bytes,detail,unit,measured,simulated,"
                              "error_pct,nccl_model,nccl_model_error_pct,note");
        sim_csv_end_row(&w);
    }
    bool read = validate_stream(v, rows, path, &error);
    /* No rows would pass any --max-mape gate with a MAPE of 0. */
    if (read && v->n_rows == 0 && v->n_bad == 0)
        g_set_error(&error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: no rows: expected a measurement per row after the header", path);
    if (error != NULL) {
        if (v->out != NULL)
            sim_output_abandon(v->out, tmp);
        v->out = NULL;
        cli_print_error("validate", error);
        return CLI_EXIT_BAD_INPUT;
    }
    double mape;
    ValidateCross cross;
    if (o->cross != NULL && validate_cross_parse(o->cross, &cross)) {
        mape = validate_cross_report(v->samples, cross, o->cross);
        if (v->n_bad)
            printf("# %u malformed rows (reported on stderr)\n", v->n_bad);
    } else {
        mape = print_summary(v);
    }
    if (v->decompose != NULL)
        validate_print_decompose(v);
    if (v->out != NULL && v->n_bad > 0) {
        /* Malformed rows are bad input: no output file, as for a file
         * that cannot be read at all. */
        sim_output_abandon(v->out, tmp);
        v->out = NULL;
        return CLI_EXIT_BAD_INPUT;
    }
    if (v->out != NULL) {
        FILE *f = v->out;
        v->out = NULL;
        if (!sim_output_commit(f, tmp, o->csv, &error)) {
            cli_print_error("validate", error);
            return CLI_EXIT_BAD_INPUT;
        }
    }
    if (o->plot != NULL) {
        g_autofree char *title = g_strdup_printf("nvlsim validate: %s, %s fidelity", path,
                                                 net_fidelity_name(v->fidelity));
        const char *const vars[] = {"plottitle", title, NULL};
        if (!cli_plot("validate", "scatter", o->csv, o->plot, vars))
            return CLI_EXIT_BAD_INPUT;
    }
    if (max_mape > 0 && mape > max_mape) {
        fprintf(stderr, "nvlsim validate: %s: MAPE %.2f%% exceeds --max-mape %g%%\n", path, mape,
                max_mape);
        return CLI_EXIT_BAD_INPUT;
    }
    return v->n_bad ? CLI_EXIT_BAD_INPUT : CLI_EXIT_OK;
}

static bool
parse_options(ValidateOptions *o, Validation *v, double *max_mape)
{
    if (!cli_parse_log_hints("validate", o->system, o->gpus, o->nodes, o->collective, o->nccl_env,
                             &o->hints))
        return false;
    v->analytic = o->fidelity != NULL && strcmp(o->fidelity, "analytic") == 0;
    if (o->fidelity && !v->analytic && !net_fidelity_parse(o->fidelity, &v->fidelity)) {
        fprintf(stderr, "nvlsim validate: --fidelity: '%s': expected packet, flow or analytic\n",
                o->fidelity);
        return false;
    }
    if (o->max_mape) {
        char *end;
        *max_mape = g_ascii_strtod(o->max_mape, &end);
        if (*end != '\0' || !(*max_mape > 0)) {
            fprintf(stderr, "nvlsim validate: --max-mape: '%s': expected a positive percentage\n",
                    o->max_mape);
            return false;
        }
    }
    ValidateCross cross;
    if (o->cross && !validate_cross_parse(o->cross, &cross)) {
        fprintf(stderr, "nvlsim validate: --cross: '%s': expected system, generation or source\n",
                o->cross);
        return false;
    }
    if (o->cross && o->decompose) {
        fprintf(stderr, "nvlsim validate: --decompose splits the misses of the whole file: "
                        "expected no --cross with it\n");
        return false;
    }
    if (o->cross && (o->system || o->csv || o->plot)) {
        fprintf(stderr, "nvlsim validate: --cross leaves groups out of the whole file: expected "
                        "no --system, --csv or --plot with it\n");
        return false;
    }
    if (o->min_bytes && !sim_units_parse_count(o->min_bytes, &v->min_bytes, NULL) &&
        !sim_units_parse_size_bytes(o->min_bytes, &v->min_bytes, NULL)) {
        fprintf(stderr, "nvlsim validate: --min-bytes: '%s': expected a size such as 1MiB\n",
                o->min_bytes);
        return false;
    }
    return true;
}

void
validate_init(Validation *v)
{
    *v = (Validation){
        .command = "validate",
        .fidelity = NET_FIDELITY_FLOW,
        .fabrics = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify)topo_world_unref),
        .comms =
            g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)coll_comm_free),
        .memo = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free),
        .groups = g_ptr_array_new_with_free_func(group_free),
        .skipped = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        .defaults = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        .err = stderr,
    };
}

void
validate_clear(Validation *v)
{
    /* Communicators point into fabrics: free them first. */
    g_hash_table_unref(v->comms);
    g_hash_table_unref(v->fabrics);
    g_hash_table_unref(v->memo);
    g_ptr_array_unref(v->groups);
    g_hash_table_unref(v->skipped);
    g_hash_table_unref(v->defaults);
    if (v->samples != NULL)
        g_ptr_array_unref(v->samples);
    judge_decompose_free(v->decompose);
    if (v->models != NULL) {
        g_ptr_array_unref(v->models);
        g_ptr_array_unref(v->model_ids);
    }
}

char *
validate_suite_file(const char *name)
{
    g_autofree char *part = g_build_filename("data", "measurements", name, NULL);
    return sim_data_path(part);
}

/* Whether the CSV at path has training rows (an unreadable file is left
 * to the replay to report). */
static bool
is_training(const char *path)
{
    g_autoptr(SimCsvStream) rows = sim_csv_stream_open(path, NULL);
    return rows != NULL && validate_is_training(sim_csv_stream_table(rows));
}

/* Replays the file at path with the options of o and settings (fidelity,
 * sizes), each file on a validation of its own; returns the exit status. */
static int
validate_file(const ValidateOptions *o, const Validation *settings, const char *path,
              double max_mape)
{
    Validation v;
    validate_init(&v);
    v.fidelity = settings->fidelity;
    v.analytic = settings->analytic;
    v.min_bytes = settings->min_bytes;
    v.only_system = o->system;
    v.quiet = o->quiet || o->cross != NULL;
    if (o->cross != NULL)
        v.samples = g_ptr_array_new_with_free_func(validate_sample_free);
    if (o->decompose)
        v.decompose = judge_decompose_new();
    ValidateCross cross;
    int status = o->cross != NULL && validate_cross_parse(o->cross, &cross) && is_training(path)
                     ? validate_train_cross(&v, path, cross, o->cross, max_mape)
                     : validate_run(&v, o, path, max_mape);
    validate_clear(&v);
    return status;
}

/* Without FILE: the shipped suite, each file under a line naming it. The
 * worst status of the files. */
static int
validate_suite(const ValidateOptions *o, const Validation *settings, double max_mape)
{
    static const char *const files[] = {"collectives.csv", "training.csv",
                                        "training-mcore-h100.csv", "training-blackwell.csv",
                                        "training-public.csv"};
    int status = CLI_EXIT_OK;
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        g_autofree char *path = validate_suite_file(files[i]);
        printf("%s# nvlsim validate: %s (the shipped measurement suite)\n", i > 0 ? "\n" : "",
               path);
        fflush(stdout);
        int file_status = validate_file(o, settings, path, max_mape);
        if (file_status != CLI_EXIT_OK)
            status = file_status;
    }
    return status;
}

int
cli_validate(int argc, char **argv)
{
    ValidateOptions o = {0};
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_validate_usage, &o);
    int status = CLI_EXIT_USAGE;
    double max_mape = 0;
    Validation settings;
    validate_init(&settings);
    if (!cli_parse_options(context, "validate", &argc, &argv))
        goto out;
    /* A row is written whole as it is replayed, even down a pipe: a reader
     * sees it at once, and a SIGTERM loses none that was printed. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 2) {
        fprintf(stderr, "nvlsim validate: expected one FILE.csv, or none for the shipped suite\n");
        goto out;
    }
    if (!parse_options(&o, &settings, &max_mape))
        goto out;
    if (argc == 1 && (o.csv != NULL || o.plot != NULL)) {
        fprintf(stderr, "nvlsim validate: --csv and --plot write one file's rows: expected a "
                        "FILE.csv with them\n");
        goto out;
    }
    if (o.plot != NULL && !cli_plot_csv("validate", o.plot, &o.csv))
        goto out;
    status = argc == 2 ? validate_file(&o, &settings, argv[1], max_mape)
                       : validate_suite(&o, &settings, max_mape);
out:
    validate_clear(&settings);
    g_free(o.fidelity);
    g_free(o.max_mape);
    g_free(o.min_bytes);
    g_free(o.csv);
    g_free(o.plot);
    g_free(o.system);
    g_free(o.cross);
    g_free(o.gpus);
    g_free(o.nodes);
    g_free(o.collective);
    g_free(o.nccl_env);
    return status;
}
