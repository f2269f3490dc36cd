/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime's fitted constants, and judging them on rows they were not
 * fitted on.
 *
 * Two constants of the runtime model have no source: host_issue (the
 * host's cost of issuing one call for one GPU) and kernel_setup (the
 * kernel's start before its first step). They are fitted once across
 * every system's collective rows of at most 1 KiB (see fits()),
 * minimising the mean absolute percentage error in each row's own
 * measure; every row's simulation is
 * kept (ValidateSample), so that a fit needs no simulation: a row's
 * prediction is the harness closed form over its simulated kernel
 * (coll-harness.h). The fit is a coordinate search: each constant in turn
 * over 0 to 50 us in 100 ns steps, then 1 ns steps around the best, until
 * neither moves.
 *
 * --cross KEY: the rows grouped by system (nvlsim_system), generation
 * (the GPU generation column) or source (the source_url's repository,
 * github.com/OWNER/REPO, or its host); each group's rows predicted with
 * the constants fitted on the other groups' rows, and its MAPE reported
 * for rows of at least 1 MiB and below, beside NCCL's model on the same
 * rows.
 */
#include "cli/cli-validate-cross.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

#define FIT_MAX_PS UINT64_C(50000000)
#define FIT_COARSE_PS UINT64_C(100000)
#define FIT_FINE_PS UINT64_C(1000)
#define BIG_BYTES (UINT64_C(1) << 20)
#define FIT_MAX_BYTES (UINT64_C(1) << 10)

static double
abs_pct(double predicted, double measured)
{
    return fabs(predicted - measured) / measured * 100;
}

/* Whether a row measures the constants: an NCCL system's call of at most
 * FIT_MAX_BYTES, whose data takes under 1% of its time on any system
 * (1 KiB at a channel's few GB/s is a fraction of a microsecond, against
 * 10 us and more of launch and steps); the larger rows measure the data's
 * movement and the mechanisms that carry it, not these two constants. */
static bool
fits(const ValidateSample *s)
{
    return s->runtime != NULL && s->n_bytes <= FIT_MAX_BYTES;
}

/* The mean absolute percentage error over the samples for which use[i]. */
static double
cost(const GPtrArray *samples, const bool *use, const HwRuntime *rt)
{
    double sum = 0;
    guint n = 0;
    for (guint i = 0; i < samples->len; i++) {
        if (!use[i])
            continue;
        const ValidateSample *s = samples->pdata[i];
        sum += abs_pct(validate_sample_predict(s, rt), s->measured);
        n++;
    }
    return n ? sum / n : 0;
}

/* The best value of *field between lo and hi in steps of step. */
static void
search(const GPtrArray *samples, const bool *use, HwRuntime *rt, uint64_t *field, uint64_t lo,
       uint64_t hi, uint64_t step)
{
    uint64_t best = *field;
    double best_cost = cost(samples, use, rt);
    for (uint64_t x = lo; x <= hi; x += step) {
        *field = x;
        double c = cost(samples, use, rt);
        if (c < best_cost) {
            best_cost = c;
            best = x;
        }
    }
    *field = best;
}

double
validate_fit_runtime(const GPtrArray *samples, const bool *use, HwRuntime *rt)
{
    uint64_t *fields[] = {&rt->host_issue_ps, &rt->kernel_setup_ps};
    for (int round = 0; round < 16; round++) {
        uint64_t before[G_N_ELEMENTS(fields)];
        for (size_t f = 0; f < G_N_ELEMENTS(fields); f++) {
            before[f] = *fields[f];
            search(samples, use, rt, fields[f], 0, FIT_MAX_PS, FIT_COARSE_PS);
            uint64_t at = *fields[f];
            search(samples, use, rt, fields[f], at > FIT_COARSE_PS ? at - FIT_COARSE_PS : 0,
                   at + FIT_COARSE_PS, FIT_FINE_PS);
        }
        bool moved = false;
        for (size_t f = 0; f < G_N_ELEMENTS(fields); f++)
            moved = moved || *fields[f] != before[f];
        if (!moved)
            break;
    }
    return cost(samples, use, rt);
}

/* The runtime every sample's system shares (the first NCCL one). */
static const HwRuntime *
shared_runtime(const GPtrArray *samples)
{
    for (guint i = 0; i < samples->len; i++) {
        const ValidateSample *s = samples->pdata[i];
        if (s->runtime != NULL)
            return s->runtime;
    }
    return NULL;
}

/* The group of a sample under key: its system, generation or source. */
static char *
group_of(const ValidateSample *s, ValidateCross key)
{
    if (key == VALIDATE_CROSS_SYSTEM)
        return g_strdup(s->system);
    if (key == VALIDATE_CROSS_GENERATION)
        return g_strdup(*s->generation ? s->generation : "(none)");
    const char *url = s->source;
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    /* github.com/OWNER/REPO, else the host. */
    int parts = g_str_has_prefix(p, "github.com/") ? 3 : 1;
    const char *end = p;
    for (int k = 0; k < parts && *end; k++) {
        end = strchr(end, '/');
        if (end == NULL) {
            end = p + strlen(p);
            break;
        }
        if (k + 1 < parts)
            end++;
    }
    return *p ? g_strndup(p, (gsize)(end - p)) : g_strdup("(none)");
}

typedef struct CrossSum {
    uint32_t n[2], n_model[2]; /* [0]: >= 1 MiB, [1]: < 1 MiB */
    double sum[2], sum_model[2];
} CrossSum;

static void
sum_add(CrossSum *c, const ValidateSample *s, double predicted)
{
    int k = s->n_bytes >= BIG_BYTES ? 0 : 1;
    c->n[k]++;
    c->sum[k] += abs_pct(predicted, s->measured);
    if (!isnan(s->model)) {
        c->n_model[k]++;
        c->sum_model[k] += abs_pct(s->model, s->measured);
    }
}

static void
print_part(const CrossSum *c, int k)
{
    if (c->n[k] == 0) {
        printf(" %6s %8s %8s", "0", "-", "-");
        return;
    }
    g_autofree char *model = c->n_model[k]
                                 ? g_strdup_printf("%.2f", c->sum_model[k] / c->n_model[k])
                                 : g_strdup("-");
    printf(" %6u %8.2f %8s", c->n[k], c->sum[k] / c->n[k], model);
}

static double
all_mape(const CrossSum *c)
{
    uint32_t n = c->n[0] + c->n[1];
    return n ? (c->sum[0] + c->sum[1]) / n : 0;
}

static double
part_mape(const CrossSum *c, int k)
{
    return c->n[k] ? c->sum[k] / c->n[k] : 0;
}

bool
validate_cross_parse(const char *text, ValidateCross *key)
{
    static const char *const names[] = {"system", "generation", "source"};
    for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
        if (g_strcmp0(text, names[i]) == 0) {
            *key = (ValidateCross)i;
            return true;
        }
    return false;
}

double
validate_cross_report(const GPtrArray *samples, ValidateCross key, const char *key_name)
{
    const HwRuntime *shipped = shared_runtime(samples);
    guint n = samples->len;
    g_autofree char **group = g_new(char *, n);
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    for (guint i = 0; i < n; i++) {
        group[i] = group_of(samples->pdata[i], key);
        bool seen = false;
        for (guint g = 0; g < names->len && !seen; g++)
            seen = strcmp(names->pdata[g], group[i]) == 0;
        if (!seen)
            g_ptr_array_add(names, group[i]);
    }
    printf("# nvlsim validate --cross %s: each group's collective rows predicted with the "
           "runtime's host_issue and kernel_setup\n# fitted on the other groups' rows; "
           "nccl_%%: NCCL's own model on the same rows\n",
           key_name);
    printf("%-40s %6s %8s %8s %6s %8s %8s %11s %13s\n", "group", ">=1MiB", "MAPE_%", "nccl_%",
           "<1MiB", "MAPE_%", "nccl_%", "host_issue", "kernel_setup");
    g_autofree bool *use = g_new(bool, n);
    CrossSum total = {0};
    for (guint g = 0; g < names->len; g++) {
        bool others = false;
        for (guint i = 0; i < n; i++) {
            use[i] = strcmp(group[i], names->pdata[g]) != 0 && fits(samples->pdata[i]);
            others = others || use[i];
        }
        HwRuntime rt = shipped ? *shipped : (HwRuntime){0};
        if (shipped != NULL && others)
            validate_fit_runtime(samples, use, &rt);
        CrossSum c = {0};
        for (guint i = 0; i < n; i++) {
            if (strcmp(group[i], names->pdata[g]) != 0)
                continue;
            const ValidateSample *s = samples->pdata[i];
            double predicted = validate_sample_predict(s, s->runtime ? &rt : NULL);
            sum_add(&c, s, predicted);
            sum_add(&total, s, predicted);
        }
        printf("%-40s", (char *)names->pdata[g]);
        print_part(&c, 0);
        print_part(&c, 1);
        if (shipped != NULL && others)
            printf(" %9.2fus %11.2fus\n", (double)rt.host_issue_ps / 1e6,
                   (double)rt.kernel_setup_ps / 1e6);
        else
            printf(" %11s %13s\n", "-", "-");
    }
    printf("%-40s", "(all)");
    print_part(&total, 0);
    print_part(&total, 1);
    printf("\n");
    for (guint i = 0; i < n; i++)
        g_free(group[i]);
    printf("CROSS MAPE: %.1f%% (>= 1 MiB %.1f%%, < 1 MiB %.1f%%) over %u rows\n",
           all_mape(&total), part_mape(&total, 0), part_mape(&total, 1),
           total.n[0] + total.n[1]);
    return all_mape(&total);
}

int
validate_calibrate_runtime(const char *path, NetFidelity fidelity)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(SimCsvStream) rows = sim_csv_stream_open(path, &error);
    if (rows == NULL) {
        cli_print_error("calibrate", error);
        return CLI_EXIT_BAD_INPUT;
    }
    Validation v;
    validate_init(&v);
    v.command = "calibrate";
    v.fidelity = fidelity;
    v.quiet = true;
    v.samples = g_ptr_array_new_with_free_func(validate_sample_free);
    int status = CLI_EXIT_OK;
    const HwRuntime *shipped = NULL;
    if (!validate_rows(&v, rows, &error)) {
        cli_print_error("calibrate", error);
        status = CLI_EXIT_BAD_INPUT;
    } else if (v.n_bad > 0) {
        status = CLI_EXIT_BAD_INPUT;
    } else if ((shipped = shared_runtime(v.samples)) == NULL) {
        fprintf(stderr, "nvlsim calibrate: %s: no collective rows of an NCCL system\n", path);
        status = CLI_EXIT_BAD_INPUT;
    }
    if (status == CLI_EXIT_OK) {
        guint n = v.samples->len;
        g_autofree bool *use = g_new(bool, n);
        for (guint i = 0; i < n; i++)
            use[i] = fits(v.samples->pdata[i]);
        HwRuntime rt = *shipped;
        double before = cost(v.samples, use, shipped);
        double mape = validate_fit_runtime(v.samples, use, &rt);
        CrossSum c = {0};
        guint n_fit = 0;
        for (guint i = 0; i < n; i++) {
            const ValidateSample *s = v.samples->pdata[i];
            n_fit += use[i];
            if (s->runtime != NULL)
                sum_add(&c, s, validate_sample_predict(s, &rt));
        }
        printf("# nvlsim calibrate latency: %s, fitted on the %u collective rows of at most %u "
               "bytes (%s fidelity)\n",
               path, n_fit, (unsigned)FIT_MAX_BYTES, net_fidelity_name(fidelity));
        printf("# MAPE on them with the shipped constants %.2f%%, at the fit %.2f%%\n", before,
               mape);
        printf("# at the fit, all %u collective rows: >= 1 MiB %.2f%%, < 1 MiB %.2f%%\n",
               c.n[0] + c.n[1], part_mape(&c, 0), part_mape(&c, 1));
        printf("# judged leaving each system out: nvlsim validate --cross system %s\n", path);
        printf("[runtime] of models/runtime/nccl.ini:\nhost_issue = %.0fns\nkernel_setup = %.0fns\n",
               (double)rt.host_issue_ps / 1e3, (double)rt.kernel_setup_ps / 1e3);
    }
    validate_clear(&v);
    return status;
}
