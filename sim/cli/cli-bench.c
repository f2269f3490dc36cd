/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim bench-core: the engine's per-event cost, measured with the hold
 * model for several queue sizes.
 *
 * Prints one row per queue size: events/s, ns/event, the pool's high-water
 * mark and how often it grew. Wall-clock figures vary from run to run;
 * the simulated end time and trace hash do not (same seed, same values).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/core-hold.h"
#include "core/core-time.h"
#include "core/core-units.h"

typedef struct BenchOptions {
    char *pending;
    char *events;
    char *mean_delay;
    char *delay;
    char *seed;
} BenchOptions;

typedef struct BenchPlan {
    GArray *pending; /* uint64_t queue sizes */
    SimHoldConfig base;
} BenchPlan;

#define OPT(field) CLI_OPTION_AT(BenchOptions, field)

static const GOptionEntry bench_entries[] = {
    {"pending", 'n', 0, G_OPTION_ARG_STRING, OPT(pending),
     "Queue sizes to measure, comma-separated (default 1e3,1e5,1e6)", "N,..."},
    {"events", 'e', 0, G_OPTION_ARG_STRING, OPT(events),
     "Events measured per queue size (default 1e7)", "N"},
    {"mean-delay", 0, 0, G_OPTION_ARG_STRING, OPT(mean_delay),
     "Mean delay between an event and its successor (default 1us)", "TIME"},
    {"delay", 0, 0, G_OPTION_ARG_STRING, OPT(delay),
     "Delay distribution: exponential (default) or uniform", "DIST"},
    {"seed", 0, 0, G_OPTION_ARG_STRING, OPT(seed), "Random seed (default 1)", "N"},
    G_OPTION_ENTRY_NULL,
};

const CliUsage cli_bench_core_usage = {
    .summary = "Measures the event engine with the hold model: N events wait in the queue;\n"
               "each schedules one successor at a random later time when it runs.",
    .description = "The measured part excludes filling the queue and a warm-up of N events.\n"
                   "make bench runs this command with its defaults.",
    .entries = bench_entries,
};

static bool
parse_count_option(const char *name, const char *text, uint64_t min, uint64_t *out, GError **error)
{
    if (!sim_units_parse_count(text, out, error)) {
        g_prefix_error(error, "--%s: ", name);
        return false;
    }
    if (*out < min) {
        g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_RANGE,
                    "--%s: '%s' is too small: expected at least %" G_GUINT64_FORMAT, name, text,
                    min);
        return false;
    }
    return true;
}

static bool
plan_from_options(const BenchOptions *o, BenchPlan *plan, GError **error)
{
    plan->base = (SimHoldConfig){.n_events = 10000000, .mean_delay_ps = 1000000, .seed = 1};
    g_auto(GStrv) sizes = g_strsplit(o->pending ? o->pending : "1e3,1e5,1e6", ",", -1);
    for (char **s = sizes; *s; s++) {
        uint64_t n;
        if (!parse_count_option("pending", *s, 1, &n, error))
            return false;
        if (n > UINT32_MAX / 2) {
            g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_RANGE,
                        "--pending: '%s' is too large: expected at most %u", *s, UINT32_MAX / 2);
            return false;
        }
        g_array_append_val(plan->pending, n);
    }
    if (o->events && !parse_count_option("events", o->events, 1, &plan->base.n_events, error))
        return false;
    if (o->seed && !parse_count_option("seed", o->seed, 0, &plan->base.seed, error))
        return false;
    if (o->mean_delay &&
        !sim_units_parse_time_ps(o->mean_delay, &plan->base.mean_delay_ps, error)) {
        g_prefix_error(error, "--mean-delay: ");
        return false;
    }
    /* 1e7 events of 1 s each stay far inside the clock's 213-day range. */
    if (plan->base.mean_delay_ps > SIM_PS_PER_S) {
        g_set_error(error, SIM_UNITS_ERROR, SIM_UNITS_ERROR_RANGE,
                    "--mean-delay: '%s' is too large: expected at most 1s", o->mean_delay);
        return false;
    }
    if (o->delay && strcmp(o->delay, "uniform") == 0) {
        plan->base.delay = SIM_HOLD_DELAY_UNIFORM;
    } else if (o->delay && strcmp(o->delay, "exponential") != 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--delay: unknown distribution '%s': expected exponential or uniform",
                    o->delay);
        return false;
    }
    return true;
}

static void
print_row(const SimHoldConfig *config, const SimHoldResult *r)
{
    double seconds = (double)r->elapsed_us / 1e6;
    double events_per_s = seconds > 0 ? (double)r->n_events / seconds : 0;
    double ns_per_event = (double)r->elapsed_us * 1e3 / (double)r->n_events;
    printf("%10" G_GUINT64_FORMAT " %11" G_GUINT64_FORMAT " %9.3f %10.2f %9.2f %16u %11u"
           "  %016" G_GINT64_MODIFIER "x\n",
           config->n_pending, r->n_events, seconds, events_per_s / 1e6, ns_per_event,
           r->pool_high_water, r->pool_n_grows, r->trace_hash);
}

int
cli_bench_core(int argc, char **argv)
{
    BenchOptions o = {0};
    g_autoptr(GOptionContext) context = cli_usage_context(&cli_bench_core_usage, &o);
    g_autoptr(GError) error = NULL;
    BenchPlan plan = {.pending = g_array_new(FALSE, FALSE, sizeof(uint64_t))};
    int status = CLI_EXIT_USAGE;
    if (!cli_parse_options(context, "bench-core", &argc, &argv))
        goto out;
    if (argc > 1) {
        fprintf(stderr, "nvlsim bench-core: unexpected argument '%s'\n", argv[1]);
        goto out;
    }
    if (!plan_from_options(&o, &plan, &error)) {
        cli_print_error("bench-core", error);
        goto out;
    }

    printf("# hold model: %s delays, mean %" G_GUINT64_FORMAT " ps, seed %" G_GUINT64_FORMAT
           ", warm-up = N events\n",
           plan.base.delay == SIM_HOLD_DELAY_UNIFORM ? "uniform" : "exponential",
           plan.base.mean_delay_ps, plan.base.seed);
    printf("#%9s %11s %9s %10s %9s %16s %11s  %16s\n", "pending", "events", "seconds", "Mevents/s",
           "ns/event", "pool_high_water", "pool_grows", "trace_hash");
    for (guint i = 0; i < plan.pending->len; i++) {
        SimHoldConfig config = plan.base;
        config.n_pending = g_array_index(plan.pending, uint64_t, i);
        config.n_warmup = config.n_pending;
        SimHoldResult result;
        sim_hold_run(&config, &result);
        print_row(&config, &result);
        fflush(stdout);
    }
    status = CLI_EXIT_OK;
out:
    g_array_free(plan.pending, TRUE);
    g_free(o.pending);
    g_free(o.events);
    g_free(o.mean_delay);
    g_free(o.delay);
    g_free(o.seed);
    return status;
}
