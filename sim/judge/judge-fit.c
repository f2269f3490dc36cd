/* SPDX-License-Identifier: Apache-2.0 */
/* calibrate cluster's fit. Each test of the logs is placed on the base
 * system as it ran (its ranks, hosts, GPUs a host) and its sizes are
 * simulated with the figures in place: the NVLink and NIC port links run
 * at their efficiency (topo-build.c), the NIC vertices take the latency,
 * the runtime the kernel setup. The fit minimizes the mean squared log
 * ratio of simulated to measured time over the fitted sizes, one figure
 * at a time by golden-section search over its range, in stages: the
 * NVLink rate and the kernel setup on the tests within one NVLink domain
 * (which the NIC does not touch: large sizes tell the one, small the
 * other), then the NIC's rate and latency on the tests across domains,
 * then all four together; each stage sweeps its figures in turn.
 */
#include "judge/judge-fit.h"

#include <math.h>
#include <string.h>

#include "coll/coll-run.h"
#include "core/core-time.h"
#include "hw/hw-models.h"
#include "topo/topo-world.h"

/* Each figure's key, group, unit and the range searched. */
static const struct {
    const char *key, *group, *unit;
    double lo, hi;
} params[JUDGE_FIT_N_PARAMS] = {
    [JUDGE_FIT_NVLINK_EFFICIENCY] = {"efficiency", "nvlink", "", 0.3, 1.0},
    [JUDGE_FIT_KERNEL_SETUP] = {"kernel_setup", "host", "us", 0.0, 50.0},
    [JUDGE_FIT_NIC_EFFICIENCY] = {"nic_efficiency", "network", "", 0.3, 1.0},
    [JUDGE_FIT_NIC_LATENCY] = {"nic_latency", "network", "us", 0.0, 20.0},
};

/* Golden-section steps per search, and sweeps over a stage's figures. */
#define FIT_STEPS 16
#define FIT_SWEEPS 3
/* The weight of the pull toward the base's figures: a figure moved over
 * its whole range costs what a 0.1% error on every size does. */
#define FIT_PULL 1e-6
/* A fitted figure that improves the fit by less than a root mean square
 * of this (a log ratio: 0.2%, about what printed digits hold) over the
 * base's is not told by the sizes: the base's stands. */
#define FIT_TOLD 0.002

const char *
judge_fit_param_key(JudgeFitParam p)
{
    return params[p].key;
}

const char *
judge_fit_param_group(JudgeFitParam p)
{
    return params[p].group;
}

const char *
judge_fit_param_unit(JudgeFitParam p)
{
    return params[p].unit;
}

typedef struct Sample {
    const JudgeLogTest *test;
    bool networked; /* its test crosses NVLink domains */
    uint64_t bytes;
    uint32_t elem_bytes;
    double measured_us;
    bool judged; /* held out of the fit */
} Sample;

typedef struct Fit {
    const char *base;
    NetFidelity fidelity;
    GPtrArray *tests; /* const JudgeLogTest * */
    GPtrArray *paths; /* const char *: each test's log */
    GArray *samples;  /* Sample, grouped by test */
    double *sim_us;   /* per sample, of the last evaluation */
    /* The tests a stage fits on: those within one NVLink domain (1), those
     * across domains (2), or every test (3). */
    int stage_tests;
    const double *base_value; /* the base's figures */
} Fit;

static void
apply(HwSystem *system, const double *v)
{
    system->nvlink_efficiency = v[JUDGE_FIT_NVLINK_EFFICIENCY];
    system->nic_efficiency = v[JUDGE_FIT_NIC_EFFICIENCY];
    if (system->nic != NULL)
        system->nic->latency_ps = (uint64_t)llround(v[JUDGE_FIT_NIC_LATENCY] * 1e6);
    if (system->runtime != NULL)
        system->runtime->kernel_setup_ps = (uint64_t)llround(v[JUDGE_FIT_KERNEL_SETUP] * 1e6);
}

/* The communicator of test on base with the figures v, and whether it
 * crosses NVLink domains (the network). */
static CollComm *
test_comm(const Fit *f, const JudgeLogTest *t, const double *v, TopoWorld **world, bool *networked,
          GError **error)
{
    HwSystem *system = hw_system_load_by_id(f->base, hw_models_dir(), error);
    if (system == NULL)
        return NULL;
    apply(system, v);
    return judge_log_test_comm(t, system, world, networked, error);
}

/* Whether sample s counts in the stage f is at. */
static bool
in_stage(const Fit *f, const Sample *s)
{
    return (f->stage_tests & (s->networked ? 2 : 1)) != 0;
}

/* Simulates every sample of the stage's tests (judged too when all) with
 * the figures v. */
static bool
simulate(Fit *f, const double *v, bool all, GError **error)
{
    for (guint i = 0; i < f->samples->len;) {
        const JudgeLogTest *t = g_array_index(f->samples, Sample, i).test;
        if (!in_stage(f, &g_array_index(f->samples, Sample, i))) {
            i++;
            continue;
        }
        g_autoptr(TopoWorld) world = NULL;
        bool networked;
        g_autoptr(CollComm) comm = test_comm(f, t, v, &world, &networked, error);
        if (comm == NULL)
            return false;
        CollHarness h = judge_log_test_harness(t);
        for (; i < f->samples->len && g_array_index(f->samples, Sample, i).test == t; i++) {
            const Sample *s = &g_array_index(f->samples, Sample, i);
            if (s->judged && !all)
                continue;
            CollCall call = {.op = t->op, .n_bytes = s->bytes, .elem_bytes = s->elem_bytes};
            CollResult r;
            if (!coll_run(comm, &call, f->fidelity, &r, error))
                return false;
            f->sim_us[i] = (double)coll_reported_ps(comm, &r, &h) / (double)SIM_PS_PER_US;
        }
    }
    return true;
}

/* The mean squared log ratio over the fitted samples with v. */
static bool
cost(Fit *f, const double *v, double *out, GError **error)
{
    if (!simulate(f, v, false, error))
        return false;
    double sum = 0;
    guint n = 0;
    for (guint i = 0; i < f->samples->len; i++) {
        const Sample *s = &g_array_index(f->samples, Sample, i);
        if (s->judged || !in_stage(f, s))
            continue;
        double l = log(f->sim_us[i] / s->measured_us);
        sum += l * l;
        n++;
    }
    /* Where the sizes cannot tell a figure (a NIC with slack), the base's
     * stands: a tie is broken toward it, far below any error measured. */
    double pull = 0;
    for (int p = 0; p < JUDGE_FIT_N_PARAMS; p++) {
        double d = (v[p] - f->base_value[p]) / (params[p].hi - params[p].lo);
        pull += d * d;
    }
    *out = (n > 0 ? sum / n : 0) + FIT_PULL * pull;
    return true;
}

/* MAPE of the fitted and the judged samples, as last simulated. */
static void
mapes(const Fit *f, double *fit_mape, double *judged_mape)
{
    double sum[2] = {0, 0};
    guint n[2] = {0, 0};
    for (guint i = 0; i < f->samples->len; i++) {
        const Sample *s = &g_array_index(f->samples, Sample, i);
        sum[s->judged] += fabs(f->sim_us[i] - s->measured_us) / s->measured_us * 100;
        n[s->judged]++;
    }
    *fit_mape = n[0] ? sum[0] / n[0] : NAN;
    *judged_mape = n[1] ? sum[1] / n[1] : NAN;
}

/* Golden-section search of figure p over its range, the others as in v. */
static bool
search(Fit *f, double *v, JudgeFitParam p, GError **error)
{
    const double g = (sqrt(5.0) - 1) / 2;
    double a = params[p].lo, b = params[p].hi;
    double c = b - g * (b - a), d = a + g * (b - a), fc, fd;
    v[p] = c;
    if (!cost(f, v, &fc, error))
        return false;
    v[p] = d;
    if (!cost(f, v, &fd, error))
        return false;
    for (int step = 0; step < FIT_STEPS; step++) {
        if (fc < fd) {
            b = d;
            d = c;
            fd = fc;
            c = b - g * (b - a);
            v[p] = c;
            if (!cost(f, v, &fc, error))
                return false;
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + g * (b - a);
            v[p] = d;
            if (!cost(f, v, &fd, error))
                return false;
        }
    }
    v[p] = (a + b) / 2;
    return true;
}

/* The samples: each test's sizes (the out-of-place time, else the
 * in-place), every other one held out to judge the fit. */
static void
gather(Fit *f, GPtrArray *logs)
{
    for (guint l = 0; l < logs->len; l++) {
        const JudgeLog *log = logs->pdata[l];
        for (guint k = 0; k < log->tests->len; k++) {
            const JudgeLogTest *t = log->tests->pdata[k];
            uint32_t elem = 0;
            guint n = 0;
            for (guint r = 0; r < t->rows->len; r++) {
                const JudgeLogRow *row = &g_array_index(t->rows, JudgeLogRow, r);
                elem = coll_dtype_bytes(row->type);
                if (row->bytes == 0 || elem == 0 || (!row->has[0] && !row->has[1]))
                    continue;
                Sample s = {.test = t,
                            .bytes = row->bytes,
                            .elem_bytes = elem,
                            .measured_us = row->time_us[row->has[0] ? 0 : 1],
                            .judged = n % 2 == 1};
                if (s.measured_us > 0) {
                    g_array_append_val(f->samples, s);
                    n++;
                }
            }
            if (n > 0) {
                g_ptr_array_add(f->tests, (gpointer)t);
                g_ptr_array_add(f->paths, log->path);
            }
        }
    }
}

bool
judge_fit_cluster(const char *base, GPtrArray *logs, NetFidelity fidelity, JudgeFit *fit,
                  GError **error)
{
    *fit = (JudgeFit){.base = g_strdup(base)};
    for (int p = 0; p < JUDGE_FIT_N_PARAMS; p++)
        fit->sources[p] = g_string_new(NULL);
    g_autoptr(HwSystem) system = hw_system_load_by_id(base, hw_models_dir(), error);
    if (system == NULL)
        return false;
    fit->base_value[JUDGE_FIT_NVLINK_EFFICIENCY] = system->nvlink_efficiency;
    fit->base_value[JUDGE_FIT_NIC_EFFICIENCY] = system->nic_efficiency;
    fit->base_value[JUDGE_FIT_NIC_LATENCY] =
        system->nic != NULL ? (double)system->nic->latency_ps / 1e6 : 0;
    fit->base_value[JUDGE_FIT_KERNEL_SETUP] =
        system->runtime != NULL ? (double)system->runtime->kernel_setup_ps / 1e6 : 0;
    Fit f = {.base = base,
             .fidelity = fidelity,
             .tests = g_ptr_array_new(),
             .paths = g_ptr_array_new(),
             .samples = g_array_new(FALSE, FALSE, sizeof(Sample))};
    gather(&f, logs);
    bool ok = false;
    if (f.samples->len == 0) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "no size to fit: the logs hold no timed call of a collective");
        goto out;
    }
    f.sim_us = g_new0(double, f.samples->len);
    /* Which figures the tests can tell, and from which tests. */
    bool networked_any = false;
    for (guint k = 0; k < f.tests->len; k++) {
        const JudgeLogTest *t = f.tests->pdata[k];
        g_autoptr(TopoWorld) world = NULL;
        bool networked;
        g_autoptr(CollComm) comm = test_comm(&f, t, fit->base_value, &world, &networked, error);
        if (comm == NULL) {
            g_prefix_error(error, "a test of %u ranks on %s: ", t->n_ranks, base);
            goto out;
        }
        networked_any |= networked;
        for (guint i = 0; i < f.samples->len; i++) {
            Sample *s = &g_array_index(f.samples, Sample, i);
            if (s->test == t)
                s->networked = networked;
        }
        g_autofree char *what = g_strdup_printf(
            "%s:%u (%u ranks%s)", (const char *)f.paths->pdata[k], t->line, t->n_ranks,
            networked ? " across NVLink domains" : " in one NVLink domain");
        for (int p = 0; p < JUDGE_FIT_N_PARAMS; p++) {
            bool nic = p == JUDGE_FIT_NIC_EFFICIENCY || p == JUDGE_FIT_NIC_LATENCY;
            if (!nic || networked)
                g_string_append_printf(fit->sources[p], "%s%s", fit->sources[p]->len ? ", " : "",
                                       what);
        }
    }
    for (int p = 0; p < JUDGE_FIT_N_PARAMS; p++)
        fit->value[p] = fit->base_value[p];
    fit->fitted[JUDGE_FIT_NVLINK_EFFICIENCY] = system->nvlink != NULL;
    fit->why_not[JUDGE_FIT_NVLINK_EFFICIENCY] = "the system has no NVLink";
    fit->fitted[JUDGE_FIT_KERNEL_SETUP] = system->runtime != NULL;
    fit->why_not[JUDGE_FIT_KERNEL_SETUP] = "the system has no runtime";
    for (int p = JUDGE_FIT_NIC_EFFICIENCY; p <= JUDGE_FIT_NIC_LATENCY; p++) {
        fit->fitted[p] = system->nic != NULL && networked_any;
        fit->why_not[p] = system->nic == NULL ? "the system has no NIC"
                                              : "no test crosses NVLink domains (the network)";
    }
    f.stage_tests = 3;
    f.base_value = fit->base_value;
    if (!simulate(&f, fit->value, true, error))
        goto out;
    mapes(&f, &fit->base_fit_mape, &fit->base_judged_mape);
    /* First the figures of one domain on the tests within one (all tests
     * where none is), then the NIC's on those across domains, then all
     * of them together. */
    bool local_any = false;
    for (guint i = 0; i < f.samples->len; i++)
        local_any |= !g_array_index(f.samples, Sample, i).networked;
    static const struct {
        int tests, sweeps;
        JudgeFitParam first, last;
    } stages[] = {
        {1, FIT_SWEEPS, JUDGE_FIT_NVLINK_EFFICIENCY, JUDGE_FIT_KERNEL_SETUP},
        {2, FIT_SWEEPS, JUDGE_FIT_NIC_EFFICIENCY, JUDGE_FIT_NIC_LATENCY},
        {3, 1, JUDGE_FIT_NVLINK_EFFICIENCY, JUDGE_FIT_NIC_LATENCY},
    };
    for (size_t st = 0; st < G_N_ELEMENTS(stages); st++) {
        f.stage_tests = stages[st].tests == 1 && !local_any ? 3 : stages[st].tests;
        for (int sweep = 0; sweep < stages[st].sweeps; sweep++)
            for (int p = stages[st].first; p <= (int)stages[st].last; p++)
                if (fit->fitted[p] && !search(&f, fit->value, (JudgeFitParam)p, error))
                    goto out;
    }
    f.stage_tests = 3;
    /* Each figure against the base's, the others as fitted. */
    bool reverted = false;
    for (int p = 0; p < JUDGE_FIT_N_PARAMS; p++) {
        if (!fit->fitted[p])
            continue;
        double here, there, keep = fit->value[p];
        if (!cost(&f, fit->value, &here, error))
            goto out;
        fit->value[p] = fit->base_value[p];
        if (!cost(&f, fit->value, &there, error))
            goto out;
        if (there - here >= FIT_TOLD * FIT_TOLD) {
            fit->value[p] = keep;
            continue;
        }
        fit->fitted[p] = false;
        fit->why_not[p] = "the sizes do not tell it from the base's (the fit gains less than "
                          "0.2%)";
        reverted = true;
    }
    /* The figures left, once more with those the sizes cannot tell at
     * the base's. */
    for (int p = 0; reverted && p < JUDGE_FIT_N_PARAMS; p++)
        if (fit->fitted[p] && !search(&f, fit->value, (JudgeFitParam)p, error))
            goto out;
    f.stage_tests = 3;
    if (!simulate(&f, fit->value, true, error))
        goto out;
    mapes(&f, &fit->fit_mape, &fit->judged_mape);
    for (guint i = 0; i < f.samples->len; i++)
        fit->n_judged += g_array_index(f.samples, Sample, i).judged;
    fit->n_fit = f.samples->len - fit->n_judged;
    ok = true;
out:
    g_ptr_array_unref(f.tests);
    g_ptr_array_unref(f.paths);
    g_array_unref(f.samples);
    g_free(f.sim_us);
    return ok;
}

void
judge_fit_clear(JudgeFit *fit)
{
    g_free(fit->base);
    for (int p = 0; p < JUDGE_FIT_N_PARAMS; p++)
        if (fit->sources[p] != NULL)
            g_string_free(fit->sources[p], TRUE);
    *fit = (JudgeFit){0};
}

/* A figure as a system file writes it: a share, or a time in ns. */
static char *
value_text(JudgeFitParam p, double v)
{
    if (*params[p].unit == '\0')
        return g_strdup_printf("%.4f", v);
    return g_strdup_printf("%.0fns", v * 1e3);
}

char *
judge_fit_system_text(const JudgeFit *fit, const char *name)
{
    GString *s = g_string_new(NULL);
    g_string_append_printf(
        s,
        "# A cluster's own system: %s with the figures its runs measured, fitted by\n"
        "# nvlsim calibrate cluster. Times of the calls, MAPE on the %u sizes fitted on:\n"
        "# %.2f%% (%.2f%% with %s's own figures); on the %u sizes held out: %.2f%% "
        "(%.2f%%).\n",
        fit->base, fit->n_fit, fit->fit_mape, fit->base_fit_mape, fit->base, fit->n_judged,
        fit->judged_mape, fit->base_judged_mape);
    g_string_append_printf(s, "[system]\nbase = %s\nname = %s\n", fit->base, name);
    static const char *const groups[] = {"nvlink", "host", "network"};
    for (size_t g = 0; g < G_N_ELEMENTS(groups); g++) {
        bool header = false;
        for (int p = 0; p < JUDGE_FIT_N_PARAMS; p++) {
            if (!fit->fitted[p] || strcmp(params[p].group, groups[g]) != 0)
                continue;
            if (!header)
                g_string_append_printf(s, "\n[%s]\n", groups[g]);
            header = true;
            g_autofree char *base_text = value_text((JudgeFitParam)p, fit->base_value[p]);
            g_autofree char *text = value_text((JudgeFitParam)p, fit->value[p]);
            g_string_append_printf(s, "# fitted (%s's: %s) on %s\n%s = %s\n", fit->base, base_text,
                                   fit->sources[p]->str, params[p].key, text);
        }
    }
    return g_string_free(s, FALSE);
}
