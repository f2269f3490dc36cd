/* SPDX-License-Identifier: Apache-2.0 */
/* A test as the log gave it, resolved into rows nvlsim can replay:
 *   - the collective: the log's own name for it (its header, the command
 *     that ran it, its footer), else --collective;
 *   - ranks and hosts: the "#  Rank" lines (ranks up to the highest, hosts
 *     their distinct names), else --gpus and --nodes;
 *   - the GPU: the lines' device, one model in a test;
 *   - the system: --system, nvlsim coll's own header, else the GPU model's
 *     reference_system (a stated default).
 * A hint the log contradicts is an error; so are rows whose columns do not
 * add up: nccl-tests computes algbw = size / time and busbw = algbw x the
 * collective's factor, so both hold to the printed digits. Every field a
 * hint or a rule filled is stated with the test.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "hw/hw-models.h"
#include "hw/hw-system.h"
#include "judge/judge-log-state.h"

/* Rows agree with their own columns to this share beyond the printed
 * digits: nccl-tests prints time and bandwidths from one measured time. */
#define JUDGE_LOG_SLACK 0.01

void
judge_problem(JudgeParse *p, uint32_t line, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    g_autofree char *what = g_strdup_vprintf(format, ap);
    va_end(ap);
    g_ptr_array_add(p->log->problems, g_strdup_printf("%s:%u: %s", p->log->path, line, what));
}

JudgeRaw *
judge_raw_new(uint32_t line)
{
    JudgeRaw *raw = g_new0(JudgeRaw, 1);
    raw->first_line = line;
    raw->ranks = g_array_new(FALSE, FALSE, sizeof(JudgeRank));
    raw->rows = g_array_new(FALSE, FALSE, sizeof(JudgeLogRow));
    raw->env = g_ptr_array_new_with_free_func(g_free);
    return raw;
}

void
judge_raw_free(JudgeRaw *raw)
{
    if (raw == NULL)
        return;
    for (guint i = 0; i < raw->ranks->len; i++) {
        JudgeRank *r = &g_array_index(raw->ranks, JudgeRank, i);
        g_free(r->host);
        g_free(r->device);
    }
    g_array_unref(raw->ranks);
    g_array_unref(raw->rows);
    g_ptr_array_unref(raw->env);
    g_free(raw->op_from);
    g_free(raw->op_conflict);
    g_free(raw->system);
    g_free(raw->nccl_version);
    g_free(raw);
}

void
judge_raw_add_rank(JudgeRaw *raw, uint32_t rank, const char *host, const char *device,
                   uint32_t line)
{
    JudgeRank r = {.rank = rank, .line = line, .host = g_strdup(host), .device = g_strdup(device)};
    g_array_append_val(raw->ranks, r);
}

void
judge_raw_set_op(JudgeRaw *raw, CollOp op, const char *from, uint32_t line)
{
    if (raw->op_set) {
        if (op != raw->op && raw->op_conflict == NULL)
            raw->op_conflict =
                g_strdup_printf("%s (line %u) names %s", from, line, coll_op_name(op));
        return;
    }
    raw->op_set = true;
    raw->op = op;
    raw->op_from = g_strdup_printf("%s (line %u)", from, line);
}

void
judge_parse_clear(JudgeParse *p)
{
    if (p->gpus != NULL)
        g_ptr_array_unref(p->gpus);
    p->gpus = NULL;
}

/* The GPU model whose device_names (or nvlsim coll's "NVIDIA NAME") hold
 * device; NULL when none does. */
static const HwGpu *
gpu_named(JudgeParse *p, const char *device)
{
    if (p->gpus == NULL) {
        p->gpus = g_ptr_array_new_with_free_func((GDestroyNotify)hw_gpu_free);
        const char *dir = hw_models_dir();
        g_autoptr(GPtrArray) ids = hw_models_ids(dir, "gpu", NULL);
        for (guint i = 0; ids != NULL && i < ids->len; i++) {
            g_autofree char *path = hw_models_file(dir, "gpu", "GPU", ids->pdata[i], NULL);
            HwGpu *gpu = path != NULL ? hw_gpu_load(path, NULL) : NULL;
            if (gpu != NULL)
                g_ptr_array_add(p->gpus, gpu);
        }
    }
    for (guint i = 0; i < p->gpus->len; i++) {
        const HwGpu *gpu = p->gpus->pdata[i];
        g_autofree char *own = g_strconcat("NVIDIA ", gpu->name, NULL);
        if (hw_gpu_has_device_name(gpu, device) || strcmp(device, own) == 0)
            return gpu;
    }
    return NULL;
}

/* Half a unit of the last printed digit of text ("4396.8": 0.05). */
static double
half_unit(const char *text)
{
    const char *dot = strchr(text, '.');
    if (strpbrk(text, "eE") != NULL) {
        double v = g_ascii_strtod(text, NULL);
        return fabs(v) * 0.05; /* "1.2e+05": two digits */
    }
    if (dot == NULL)
        return 0.5;
    int decimals = (int)strlen(dot + 1);
    return 0.5 * pow(10.0, -decimals);
}

/* Whether [a_lo, a_hi] and [b_lo, b_hi] meet once widened by the slack. */
static bool
overlap(double a_lo, double a_hi, double b_lo, double b_hi)
{
    return a_lo * (1 - JUDGE_LOG_SLACK) <= b_hi * (1 + JUDGE_LOG_SLACK) &&
           b_lo * (1 - JUDGE_LOG_SLACK) <= a_hi * (1 + JUDGE_LOG_SLACK);
}

/* Whether a row's group adds up: algbw from size and time, busbw from
 * algbw and the factor; else a problem naming what does not. */
static bool
row_adds_up(JudgeParse *p, const JudgeLogRow *row, int k, double factor)
{
    if (row->bytes == 0)
        return true;
    double t = row->time_us[k], ht = half_unit(row->time_text[k]);
    double a = row->algbw[k], ha = half_unit(row->algbw_text[k]);
    double b = row->busbw[k], hb = half_unit(row->busbw_text[k]);
    double lo = (double)row->bytes / ((t + ht) * 1e3);
    double hi = t - ht > 0 ? (double)row->bytes / ((t - ht) * 1e3) : INFINITY;
    const char *group = k == 0 ? "out-of-place" : "in-place";
    if (t <= 0 || !overlap(lo, hi, a - ha, a + ha)) {
        judge_problem(p, row->line,
                      "%s algbw %s GB/s does not add up: size %" G_GUINT64_FORMAT
                      " B over time %s us is %.3g GB/s (a column out of place, or an edited "
                      "table?)",
                      group, row->algbw_text[k], row->bytes, row->time_text[k],
                      (double)row->bytes / (t * 1e3));
        return false;
    }
    double alg_lo = MAX(a - ha, lo), alg_hi = MIN(a + ha, hi);
    if (!overlap(alg_lo * factor, alg_hi * factor, b - hb, b + hb)) {
        judge_problem(p, row->line,
                      "%s busbw %s GB/s does not add up: algbw %s GB/s x the bus factor %.4g "
                      "is %.4g GB/s (another collective, or another rank count?)",
                      group, row->busbw_text[k], row->algbw_text[k], factor, a * factor);
        return false;
    }
    return true;
}

static void state(JudgeLogTest *t, const char *format, ...) G_GNUC_PRINTF(2, 3);

static void
state(JudgeLogTest *t, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    g_ptr_array_add(t->stated, g_strdup_vprintf(format, ap));
    va_end(ap);
}

/* Ranks, hosts and the GPU from the rank lines and the hints; false with a
 * problem on a contradiction. */
static bool
resolve_ranks(JudgeParse *p, const JudgeRaw *raw, JudgeLogTest *t)
{
    const JudgeLogHints *h = p->hints;
    uint32_t n_lines = raw->ranks->len, top = 0, first_line = 0;
    g_autoptr(GHashTable) hosts = g_hash_table_new(g_str_hash, g_str_equal);
    const JudgeRank *other = NULL, *first = NULL;
    for (guint i = 0; i < n_lines; i++) {
        const JudgeRank *r = &g_array_index(raw->ranks, JudgeRank, i);
        top = MAX(top, r->rank + 1);
        if (*r->host != '\0')
            g_hash_table_insert(
                hosts, r->host,
                GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(hosts, r->host)) + 1));
        if (first == NULL) {
            first = r;
            first_line = r->line;
        } else if (other == NULL && strcmp(r->device, first->device) != 0)
            other = r;
    }
    if (other != NULL) {
        judge_problem(p, other->line,
                      "two GPU models in one test: '%s' (line %u) and '%s': nvlsim replays a "
                      "test on one system",
                      first->device, first_line, other->device);
        return false;
    }
    bool complete = n_lines > 0 && n_lines == top;
    if (n_lines == 0 && h->n_gpus == 0) {
        judge_problem(p, raw->table_line,
                      "the test names no ranks (no '#  Rank' lines): give --gpus");
        return false;
    }
    if (n_lines > 0 && h->n_gpus != 0 && h->n_gpus != top) {
        judge_problem(p, first_line, "the log's '#  Rank' lines give %u ranks; --gpus says %u", top,
                      h->n_gpus);
        return false;
    }
    t->n_ranks = n_lines > 0 ? top : h->n_gpus;
    if (n_lines == 0)
        state(t, "%u ranks: from --gpus", t->n_ranks);
    else if (!complete)
        state(t, "%u ranks: the highest of %u '#  Rank' lines (the paste holds part of them)",
              t->n_ranks, n_lines);
    uint32_t n_hosts = complete ? g_hash_table_size(hosts) : 0;
    if (n_hosts > 0 && h->n_nodes != 0 && h->n_nodes != n_hosts) {
        judge_problem(p, first_line, "the log's '#  Rank' lines name %u hosts; --nodes says %u",
                      n_hosts, h->n_nodes);
        return false;
    }
    t->n_hosts = n_hosts > 0 ? n_hosts : h->n_nodes;
    if (n_hosts == 0 && h->n_nodes != 0)
        state(t, "%u hosts: from --nodes", t->n_hosts);
    if (n_hosts > 0) {
        GHashTableIter it;
        gpointer key, value;
        g_hash_table_iter_init(&it, hosts);
        uint32_t per = 0;
        bool even = true;
        while (g_hash_table_iter_next(&it, &key, &value)) {
            uint32_t n = GPOINTER_TO_UINT(value);
            even &= per == 0 || n == per;
            per = n;
        }
        t->ranks_per_host = even ? per : 0;
    }
    t->device = first != NULL ? g_strdup(first->device) : NULL;
    return true;
}

/* The system: --system, nvlsim coll's header, or the GPU's reference
 * system; its GPU checked against the log's. */
static bool
resolve_system(JudgeParse *p, const JudgeRaw *raw, JudgeLogTest *t)
{
    const JudgeLogHints *h = p->hints;
    const HwGpu *named = t->device != NULL ? gpu_named(p, t->device) : NULL;
    uint32_t line = raw->table_line;
    if (h->system != NULL && raw->system != NULL && strcmp(h->system, raw->system) != 0) {
        judge_problem(p, raw->system_line, "the log ran on %s; --system says %s", raw->system,
                      h->system);
        return false;
    }
    if (h->system != NULL)
        t->system = g_strdup(h->system);
    else if (raw->system != NULL)
        t->system = g_strdup(raw->system);
    else if (named != NULL && named->reference_system != NULL) {
        t->system = g_strdup(named->reference_system);
        state(t,
              "system %s: the reference system of the log's GPU '%s' (a stated default; "
              "--system names another)",
              t->system, t->device);
    } else {
        judge_problem(p, line, "%s%s%s: give --system (nvlsim list systems names them)",
                      t->device != NULL ? "no GPU model lists the log's GPU '" : "",
                      t->device != NULL ? t->device : "the test names no GPU",
                      t->device != NULL ? "' in its device_names" : "");
        return false;
    }
    if (t->device == NULL) {
        if (h->system == NULL)
            return true;
        state(t, "GPU: %s's (the log names none)", t->system);
        return true;
    }
    g_autoptr(GError) error = NULL;
    g_autoptr(HwSystem) system = hw_system_load_by_id(t->system, hw_models_dir(), &error);
    if (system == NULL) {
        judge_problem(p, line, "%s", error->message);
        return false;
    }
    const HwGpu *own = system->gpu;
    g_autofree char *own_name = g_strconcat("NVIDIA ", own->name, NULL);
    if (hw_gpu_has_device_name(own, t->device) || strcmp(t->device, own_name) == 0)
        return true;
    if (named != NULL && named->sm_version == own->sm_version) {
        state(t, "the log's '%s' replayed as %s's %s (the same SM %u.%u chip)", t->device,
              t->system, own->name, (unsigned)(own->sm_version / 10),
              (unsigned)(own->sm_version % 10));
        return true;
    }
    if (named == NULL) {
        state(t, "the log's GPU '%s' is in no model's device_names: replayed as %s's %s", t->device,
              t->system, own->name);
        return true;
    }
    judge_problem(p, line, "the log's GPUs are '%s' (%s); %s has %s", t->device, named->name,
                  t->system, own->name);
    return false;
}

static bool
resolve_op(JudgeParse *p, const JudgeRaw *raw, JudgeLogTest *t)
{
    const JudgeLogHints *h = p->hints;
    CollOp hinted = COLL_OP_ALL_REDUCE;
    if (h->collective != NULL && !judge_log_collective(h->collective, &hinted)) {
        judge_problem(p, raw->table_line, "--collective '%s' is not a collective", h->collective);
        return false;
    }
    if (raw->op_conflict != NULL) {
        judge_problem(p, raw->table_line, "the test is %s by %s, but %s", coll_op_name(raw->op),
                      raw->op_from, raw->op_conflict);
        return false;
    }
    if (raw->op_set && h->collective != NULL && hinted != raw->op) {
        judge_problem(p, raw->table_line, "the log's test is %s (%s); --collective says %s",
                      coll_op_name(raw->op), raw->op_from, coll_op_name(hinted));
        return false;
    }
    if (raw->op_set) {
        t->op = raw->op;
        return true;
    }
    if (h->collective == NULL) {
        judge_problem(p, raw->table_line,
                      "the test does not name its collective (no '# Collective test "
                      "starting' line or command): give --collective");
        return false;
    }
    t->op = hinted;
    state(t, "collective %s: from --collective", coll_op_name(t->op));
    return true;
}

/* The variables the log's NCCL printed as set by the environment, and
 * those of --nccl-env it does not print (one it prints otherwise is a
 * contradiction); each stated with where it came from. */
static bool
resolve_env(JudgeParse *p, JudgeRaw *raw, JudgeLogTest *t)
{
    GString *env = g_string_new(NULL);
    for (guint i = 0; i < raw->env->len; i++) {
        g_string_append_printf(env, "%s%s", env->len > 0 ? " " : "",
                               (const char *)raw->env->pdata[i]);
        state(t, "%s: NCCL printed it as set by the environment", (const char *)raw->env->pdata[i]);
    }
    g_auto(GStrv) hinted =
        g_strsplit_set(p->hints->nccl_env != NULL ? p->hints->nccl_env : "", " ,\t", -1);
    for (char **h = hinted; *h != NULL; h++) {
        const char *eq = strchr(*h, '=');
        if (**h == '\0' || eq == NULL)
            continue;
        gsize name_len = (gsize)(eq - *h) + 1;
        const char *logged = NULL;
        for (guint i = 0; i < raw->env->len && logged == NULL; i++)
            if (strncmp(raw->env->pdata[i], *h, name_len) == 0)
                logged = raw->env->pdata[i];
        if (logged != NULL && strcmp(logged, *h) != 0) {
            judge_problem(p, raw->first_line, "--nccl-env %s: the log's NCCL has %s", *h, logged);
            g_string_free(env, TRUE);
            return false;
        }
        if (logged != NULL)
            continue;
        g_string_append_printf(env, "%s%s", env->len > 0 ? " " : "", *h);
        state(t, "%s: from --nccl-env", *h);
    }
    t->nccl_env = g_string_free(env, FALSE);
    return true;
}

void
judge_resolve(JudgeParse *p, JudgeRaw *raw)
{
    JudgeLogTest *t = g_new0(JudgeLogTest, 1);
    t->line = raw->first_line;
    t->rows = g_array_new(FALSE, FALSE, sizeof(JudgeLogRow));
    t->stated = g_ptr_array_new_with_free_func(g_free);
    if (!resolve_op(p, raw, t) || !resolve_ranks(p, raw, t) || !resolve_system(p, raw, t) ||
        !resolve_env(p, raw, t)) {
        judge_test_free(t);
        return;
    }
    t->nccl_version = g_strdup(raw->nccl_version);
    t->n_threads = raw->n_threads;
    t->n_gpus_per_thread = raw->n_gpus_per_thread;
    t->cuda_graph = raw->cuda_graph;
    t->blocking = raw->blocking;
    if (raw->header_line == 0)
        state(t, "nccl-tests' defaults (-t 1 -g 1, no -G): the paste has no '# nThread' line");
    if (raw->columns.cputime)
        state(t, "times are CPU times (nccl-tests -C), compared as the GPU's");
    double factor = coll_busbw_factor(t->op, t->n_ranks);
    uint32_t empty = 0;
    for (guint i = 0; i < raw->rows->len; i++) {
        const JudgeLogRow *row = &g_array_index(raw->rows, JudgeLogRow, i);
        bool ok = true;
        for (int k = 0; k < 2 && ok; k++)
            ok = !row->has[k] || row_adds_up(p, row, k, factor);
        empty += row->bytes == 0;
        if (ok)
            g_array_append_val(t->rows, *row);
    }
    if (empty > 0)
        state(t, "%u rows of size 0 left out (an empty call has no bandwidth)", empty);
    g_ptr_array_add(p->log->tests, t);
}

/* The columns judge_log_table writes, in the suite's names. */
static const char *const table_columns[] = {
    "system",     "nvlsim_system", "gpu",        "num_gpus",     "nodes",      "gpus_per_node",
    "collective", "algorithm",     "protocol",   "dtype",        "bytes",      "time_us",
    "algbw_gbps", "busbw_gbps",    "in_place",   "nccl_version", "source_url", "source_note",
    "harness",    "launch_mode",   "cuda_graph", "nccl_env",
};

static void
put(GPtrArray *row, char *field)
{
    g_ptr_array_add(row, field);
}

SimCsv *
judge_log_table(const JudgeLog *log)
{
    SimCsv *csv = g_new0(SimCsv, 1);
    csv->path = g_strdup(log->path);
    csv->columns = g_ptr_array_new_with_free_func(g_free);
    for (guint c = 0; c < G_N_ELEMENTS(table_columns); c++)
        g_ptr_array_add(csv->columns, g_strdup(table_columns[c]));
    csv->rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    csv->lines = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (guint i = 0; i < log->tests->len; i++) {
        const JudgeLogTest *t = log->tests->pdata[i];
        bool threads = t->n_gpus_per_thread > 1;
        for (guint r = 0; r < t->rows->len; r++) {
            const JudgeLogRow *row = &g_array_index(t->rows, JudgeLogRow, r);
            for (int k = 0; k < 2; k++) {
                if (!row->has[k] || row->bytes == 0)
                    continue;
                GPtrArray *f = g_ptr_array_new_with_free_func(g_free);
                put(f, g_strdup(t->device != NULL ? t->device : t->system));
                put(f, g_strdup(t->system));
                put(f, g_strdup(t->device != NULL ? t->device : ""));
                put(f, g_strdup_printf("%u", t->n_ranks));
                put(f, t->n_hosts > 0 ? g_strdup_printf("%u", t->n_hosts) : g_strdup(""));
                put(f, t->ranks_per_host > 0 ? g_strdup_printf("%u", t->ranks_per_host)
                                             : g_strdup(""));
                put(f, g_strdup(coll_op_name(t->op)));
                put(f, g_strdup(""));
                put(f, g_strdup(""));
                put(f, g_strdup(row->type));
                put(f, g_strdup_printf("%" G_GUINT64_FORMAT, row->bytes));
                put(f, g_strdup(row->time_text[k]));
                put(f, g_strdup(row->algbw_text[k]));
                put(f, g_strdup(row->busbw_text[k]));
                put(f, g_strdup(k == 1 ? "1" : "0"));
                put(f, g_strdup(t->nccl_version != NULL ? t->nccl_version : ""));
                put(f, g_strdup(log->path));
                put(f, g_strdup_printf("nccl-tests log, test at line %u, %s", t->line,
                                       k == 1 ? "in-place" : "out-of-place"));
                put(f, g_strdup(t->blocking ? "blocking" : "nccl-tests"));
                put(f, g_strdup(threads ? "threads" : "mpi"));
                put(f, g_strdup(t->cuda_graph ? "1" : "0"));
                put(f, g_strdup(t->nccl_env));
                g_ptr_array_add(csv->rows, f);
                g_array_append_val(csv->lines, row->line);
            }
        }
    }
    return csv;
}
