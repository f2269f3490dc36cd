/* SPDX-License-Identifier: Apache-2.0 */
/* nccl-tests' text output, a line at a time (judge-log-json.c reads its
 * JSON). Its formats are those of nccl-tests' src/util.cu and common.cu:
 *   # nccl-tests version 2.17.6 nccl-headers=22705 nccl-library=22705
 *   # Collective test starting: all_reduce_perf
 *   # nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) ... graph: 0
 *   # Blocking Enabled: wait and barrier after each inner iteration (-m)
 *   #  Rank  0 Group  0 Pid  1234 on host-1 device  0 [0x0f] NVIDIA H200
 *   NCCL version 2.27.5+cuda12.8                      (printed by NCCL itself)
 *   #       size  count  type  redop  root  time  algbw  busbw  #wrong  time ...
 *      1073741824  268435456  float  sum  -1  4396.8  244.21  457.90  0  4382.1 ...
 *   # Avg bus bandwidth    : 476.572
 *   # Collective test concluded: all_reduce_perf
 * Older versions have no Group, no root, "error" for "#wrong"; the launcher
 * may prefix each line ("0: " srun --label, "[1,0]<stdout>:" mpirun
 * --tag-output, "[0] "). A test is the header lines since the last test,
 * its table and its footer; lines of neither (NCCL INFO, the shell) are
 * passed over.
 */
#include "judge/judge-log.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "hw/hw-nccl-env.h"
#include "judge/judge-log-state.h"

bool
judge_log_collective(const char *name, CollOp *op)
{
    const char *base = strrchr(name, '/');
    g_autofree char *word = g_strdup(base != NULL ? base + 1 : name);
    if (g_str_has_suffix(word, "_mpi"))
        word[strlen(word) - strlen("_mpi")] = '\0';
    if (g_str_has_suffix(word, "_perf"))
        word[strlen(word) - strlen("_perf")] = '\0';
    return *word != '\0' && coll_op_parse(word, op);
}

/* The line without a launcher's prefix: "12: " (srun --label),
 * "[1,0]<stdout>:" (mpirun --tag-output), "[0] ". */
static const char *
strip_prefix(const char *line)
{
    const char *p = line;
    while (*p == ' ')
        p++;
    const char *q = p;
    while (g_ascii_isdigit(*q))
        q++;
    if (q > p && *q == ':' && (q[1] == ' ' || q[1] == '\0' || q[1] == '#'))
        return q[1] == ' ' ? q + 2 : q + 1;
    if (*p == '[') {
        q = p + 1;
        while (g_ascii_isdigit(*q) || *q == ',')
            q++;
        if (q > p + 1 && *q == ']') {
            q++;
            if (g_str_has_prefix(q, "<stdout>:") || g_str_has_prefix(q, "<stderr>:"))
                return q + strlen("<stdout>:");
            if (*q == ' ')
                return q + 1;
        }
    }
    return line;
}

/* The words of text (split at blanks); free with g_strfreev. */
static GStrv
words(const char *text)
{
    GPtrArray *w = g_ptr_array_new();
    const char *p = text;
    while (*p != '\0') {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *start = p;
        while (*p != '\0' && *p != ' ' && *p != '\t')
            p++;
        if (p > start)
            g_ptr_array_add(w, g_strndup(start, (gsize)(p - start)));
    }
    g_ptr_array_add(w, NULL);
    return (GStrv)g_ptr_array_free(w, FALSE);
}

static bool
parse_u64(const char *text, uint64_t *out)
{
    if (!g_ascii_isdigit(*text))
        return false;
    char *end;
    errno = 0;
    guint64 v = g_ascii_strtoull(text, &end, 10);
    if (*end != '\0' || errno != 0)
        return false;
    *out = v;
    return true;
}

static bool
parse_number(const char *text, double *out)
{
    char *end;
    double v = g_ascii_strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v) || v < 0)
        return false;
    *out = v;
    return true;
}

/* The value after key in a header's words ("nGpus 8", "graph: 1"). */
static bool
header_value(GStrv w, const char *key, uint64_t *out)
{
    for (guint i = 0; w[i] != NULL && w[i + 1] != NULL; i++)
        if (strcmp(w[i], key) == 0)
            return parse_u64(w[i + 1], out);
    return false;
}

G_DEFINE_QUARK(judge - log - error - quark, judge_log_error)

char *
judge_nccl_version_text(uint64_t code)
{
    if (code >= 20900)
        return g_strdup_printf("%u.%u.%u", (unsigned)(code / 10000), (unsigned)(code / 100 % 100),
                               (unsigned)(code % 100));
    return g_strdup_printf("%u.%u.%u", (unsigned)(code / 1000), (unsigned)(code / 100 % 10),
                           (unsigned)(code % 100));
}

/* The test being gathered, begun at line when there is none. */
static JudgeRaw *
current(JudgeParse *p, uint32_t line)
{
    if (p->raw == NULL)
        p->raw = judge_raw_new(line);
    return p->raw;
}

/* Ends the test being gathered: a table cut short is a problem; a test
 * with a table goes to be resolved. */
static void
finish(JudgeParse *p, uint32_t line)
{
    JudgeRaw *raw = p->raw;
    if (raw == NULL)
        return;
    p->raw = NULL;
    if (raw->in_table) {
        judge_problem(p, line,
                      "the test whose table starts on line %u ends without nccl-tests' footer "
                      "('# Avg bus bandwidth'): a truncated log? Its %u complete rows are read",
                      raw->table_line, raw->rows->len);
    }
    if (raw->table_line != 0)
        judge_resolve(p, raw);
    judge_raw_free(raw);
}

/* "#  Rank  0 Group  0 Pid  1234 on host device  0 [0x0f] NAME" (Group and
 * "on HOST" absent in some versions): the rank's host and GPU. */
static bool
rank_line(JudgeParse *p, const char *body, uint32_t line)
{
    g_auto(GStrv) w = words(body);
    if (w[0] == NULL || strcmp(w[0], "Rank") != 0 || w[1] == NULL)
        return false;
    uint64_t rank;
    if (!parse_u64(w[1], &rank))
        return false;
    const char *host = NULL;
    for (guint i = 2; w[i] != NULL && w[i + 1] != NULL; i++)
        if (strcmp(w[i], "on") == 0) {
            host = w[i + 1];
            break;
        }
    const char *bracket = strchr(body, ']');
    if (strstr(body, " device ") == NULL || bracket == NULL)
        return false;
    g_autofree char *device = g_strstrip(g_strdup(bracket + 1));
    JudgeRaw *raw = current(p, line);
    if (raw->table_line != 0) {
        finish(p, line);
        raw = current(p, line);
    }
    judge_raw_add_rank(raw, (uint32_t)rank, host != NULL ? host : "", device, line);
    return true;
}

/* The table's header "size count type redop root time algbw busbw #wrong
 * ..." (names as the version prints them): the columns each row has. */
static bool
table_header(JudgeParse *p, const char *body, uint32_t line)
{
    g_auto(GStrv) w = words(body);
    JudgeColumns c = {.size = -1, .type = -1, .redop = -1, .root = -1, .n_groups = 0};
    int count = -1;
    for (int i = 0; w[i] != NULL; i++) {
        const char *name = w[i];
        if (strcmp(name, "size") == 0)
            c.size = i;
        else if (strcmp(name, "count") == 0)
            count = i;
        else if (strcmp(name, "type") == 0)
            c.type = i;
        else if (strcmp(name, "redop") == 0)
            c.redop = i;
        else if (strcmp(name, "root") == 0)
            c.root = i;
        else if ((strcmp(name, "time") == 0 || strcmp(name, "cputime") == 0) && c.n_groups < 2 &&
                 w[i + 1] != NULL && strcmp(w[i + 1], "algbw") == 0 && w[i + 2] != NULL &&
                 strcmp(w[i + 2], "busbw") == 0) {
            c.time[c.n_groups++] = i;
            c.cputime = strcmp(name, "cputime") == 0;
        }
    }
    if (c.size != 0 || count != 1 || c.type < 0 || c.n_groups == 0)
        return false;
    /* A group's #wrong (or error) follows its busbw: a row needs every
     * field up to the last of them and of the columns named. */
    c.n_fields = MAX(MAX(c.time[c.n_groups - 1] + 4, c.type + 1), MAX(c.redop, c.root) + 1);
    JudgeRaw *raw = current(p, line);
    if (raw->table_line != 0) {
        finish(p, line);
        raw = current(p, line);
    }
    raw->columns = c;
    raw->table_line = line;
    raw->in_table = true;
    return true;
}

/* A row of the table; false when the line is not one (it does not start
 * with a number), a problem when it starts as one and is malformed. */
static void
table_row(JudgeParse *p, const char *body, uint32_t line)
{
    JudgeRaw *raw = p->raw;
    const JudgeColumns *c = &raw->columns;
    g_auto(GStrv) w = words(body);
    guint n = g_strv_length(w);
    if (n < (guint)c->n_fields) {
        judge_problem(
            p, line,
            "%u fields: expected %d, as the table header on line %u has (a truncated row?)", n,
            c->n_fields, raw->table_line);
        return;
    }
    JudgeLogRow row = {.line = line, .root = -1};
    if (!parse_u64(w[c->size], &row.bytes)) {
        judge_problem(p, line, "size '%s': expected a whole number of bytes", w[c->size]);
        return;
    }
    g_strlcpy(row.type, w[c->type], sizeof row.type);
    g_strlcpy(row.redop, c->redop >= 0 ? w[c->redop] : "", sizeof row.redop);
    if (c->root >= 0) {
        char *end;
        row.root = g_ascii_strtoll(w[c->root], &end, 10);
        if (*end != '\0') {
            judge_problem(p, line, "root '%s': expected a rank or -1", w[c->root]);
            return;
        }
    }
    static const char *const group_names[] = {"out-of-place", "in-place"};
    for (int g = 0; g < c->n_groups; g++) {
        /* One group alone is in-place (nccl-tests' trace replay). */
        int k = c->n_groups == 2 ? g : 1;
        int t = c->time[g];
        if (!parse_number(w[t], &row.time_us[k]) || !parse_number(w[t + 1], &row.algbw[k]) ||
            !parse_number(w[t + 2], &row.busbw[k])) {
            judge_problem(p, line, "%s time, algbw, busbw '%s %s %s': expected three numbers",
                          group_names[k], w[t], w[t + 1], w[t + 2]);
            return;
        }
        g_strlcpy(row.time_text[k], w[t], sizeof row.time_text[k]);
        g_strlcpy(row.algbw_text[k], w[t + 1], sizeof row.algbw_text[k]);
        g_strlcpy(row.busbw_text[k], w[t + 2], sizeof row.busbw_text[k]);
        row.has[k] = true;
    }
    g_array_append_val(raw->rows, row);
}

/* "NCCL version 2.27.5+cuda12.8" as NCCL prints it. */
static bool
nccl_version_line(JudgeParse *p, const char *body, uint32_t line)
{
    if (!g_str_has_prefix(body, "NCCL version "))
        return false;
    const char *v = body + strlen("NCCL version ");
    gsize n = strspn(v, "0123456789.");
    if (n == 0)
        return false;
    JudgeRaw *raw = current(p, line);
    g_free(raw->nccl_version);
    raw->nccl_version = g_strndup(v, n);
    return true;
}

/* "host:1:1 [0] NCCL INFO NCCL_BUFFSIZE set by environment to 16777216."
 * as NCCL_DEBUG=INFO prints it: a variable nvlsim models (hw-nccl-env.h)
 * goes to the test, once; the others are NCCL's business alone. */
static bool
nccl_env_line(JudgeParse *p, const char *body, uint32_t line)
{
    const char *info = strstr(body, "NCCL INFO NCCL_");
    const char *set = info != NULL ? strstr(info, " set by environment to ") : NULL;
    if (set == NULL)
        return false;
    const char *name = info + strlen("NCCL INFO ");
    const char *value = set + strlen(" set by environment to ");
    gsize n = strcspn(value, " \t\r");
    while (n > 0 && value[n - 1] == '.')
        n--;
    g_autofree char *var = g_strdup_printf("%.*s=%.*s", (int)(set - name), name, (int)n, value);
    HwNcclEnv scratch = {0};
    if (n == 0 || !hw_nccl_env_parse(var, &scratch, NULL))
        return true;
    JudgeRaw *raw = current(p, line);
    gsize name_len = (gsize)(set - name) + 1; /* with its '=' */
    for (guint i = 0; i < raw->env->len; i++)
        if (strncmp(raw->env->pdata[i], var, name_len) == 0)
            return true;
    g_ptr_array_add(raw->env, g_steal_pointer(&var));
    return true;
}

/* A line that is not a comment and names nccl-tests' binary
 * (".../all_reduce_perf -b 8 ..."): the command that ran the next test. */
static void
command_line(JudgeParse *p, const char *body, uint32_t line)
{
    g_auto(GStrv) w = words(body);
    for (guint i = 0; w[i] != NULL; i++) {
        const char *base = strrchr(w[i], '/');
        base = base != NULL ? base + 1 : w[i];
        CollOp op;
        if ((g_str_has_suffix(base, "_perf") || g_str_has_suffix(base, "_perf_mpi")) &&
            judge_log_collective(base, &op)) {
            JudgeRaw *raw = current(p, line);
            if (raw->table_line != 0) {
                finish(p, line);
                raw = current(p, line);
            }
            judge_raw_set_op(raw, op, "the command line", line);
            return;
        }
    }
}

/* A comment line outside a table: one of the header's. */
static void
comment_line(JudgeParse *p, const char *body, uint32_t line)
{
    uint64_t v;
    if (g_str_has_prefix(body, "nccl-tests version")) {
        g_auto(GStrv) w = words(body);
        JudgeRaw *raw = p->raw != NULL && p->raw->table_line == 0 ? p->raw : NULL;
        if (raw == NULL) {
            finish(p, line);
            raw = current(p, line);
        }
        for (guint i = 0; w[i] != NULL; i++)
            if (g_str_has_prefix(w[i], "nccl-library=") &&
                parse_u64(w[i] + strlen("nccl-library="), &v)) {
                g_free(raw->nccl_version);
                raw->nccl_version = judge_nccl_version_text(v);
            }
        return;
    }
    if (g_str_has_prefix(body, "Collective test starting:")) {
        g_autofree char *name = g_strstrip(g_strdup(body + strlen("Collective test starting:")));
        if (p->raw != NULL && p->raw->table_line != 0)
            finish(p, line);
        CollOp op;
        if (judge_log_collective(name, &op))
            judge_raw_set_op(current(p, line), op, "'# Collective test starting'", line);
        else
            judge_problem(p, line, "'%s' is not a collective nvlsim models", name);
        return;
    }
    if (g_str_has_prefix(body, "nThread ")) {
        g_auto(GStrv) w = words(body);
        if (p->raw != NULL && p->raw->table_line != 0)
            finish(p, line);
        JudgeRaw *raw = current(p, line);
        if (header_value(w, "nThread", &v))
            raw->n_threads = (uint32_t)MIN(v, UINT32_MAX);
        if (header_value(w, "nGpus", &v))
            raw->n_gpus_per_thread = (uint32_t)MIN(v, UINT32_MAX);
        if (header_value(w, "graph:", &v))
            raw->cuda_graph = v > 0;
        raw->header_line = line;
        return;
    }
    if (g_str_has_prefix(body, "Blocking Enabled")) {
        current(p, line)->blocking = true;
        return;
    }
    if (g_str_has_prefix(body, "nvlsim coll: ")) {
        /* "nvlsim coll: OP on N GPUs of SYSTEM (...": nvlsim's own output. */
        g_auto(GStrv) w = words(body + strlen("nvlsim coll: "));
        JudgeRaw *raw = current(p, line);
        CollOp op;
        if (w[0] != NULL && judge_log_collective(w[0], &op))
            judge_raw_set_op(raw, op, "nvlsim coll's header", line);
        for (guint i = 0; w[i] != NULL && w[i + 1] != NULL; i++)
            if (strcmp(w[i], "of") == 0) {
                g_free(raw->system);
                raw->system = g_strdup(w[i + 1]);
                raw->system_line = line;
                break;
            }
        return;
    }
    if (!rank_line(p, body, line))
        table_header(p, body, line);
}

static void
read_line(JudgeParse *p, const char *text, uint32_t line)
{
    const char *body = strip_prefix(text);
    JudgeRaw *raw = p->raw;
    if (*body == '#') {
        body++;
        while (*body == ' ')
            body++;
        if (raw != NULL && raw->in_table) {
            if (g_str_has_prefix(body, "Avg bus bandwidth")) {
                raw->in_table = false;
                return;
            }
            if (g_str_has_prefix(body, "Out of bounds") || g_str_has_prefix(body, "(B)") ||
                *body == '\0')
                return;
        }
        if (raw != NULL && !raw->in_table && raw->table_line != 0 &&
            g_str_has_prefix(body, "Collective test concluded:")) {
            g_autofree char *name =
                g_strstrip(g_strdup(body + strlen("Collective test concluded:")));
            CollOp op;
            if (judge_log_collective(name, &op))
                judge_raw_set_op(raw, op, "'# Collective test concluded'", line);
            finish(p, line);
            return;
        }
        comment_line(p, body, line);
        return;
    }
    if (raw != NULL && raw->in_table && g_ascii_isdigit(*(body + strspn(body, " \t")))) {
        table_row(p, body, line);
        return;
    }
    if (nccl_version_line(p, body, line) || nccl_env_line(p, body, line))
        return;
    command_line(p, body, line);
}

bool
judge_log_detect(const char *data, size_t length)
{
    gsize skip = 0;
    while (skip < length && g_ascii_isspace(data[skip]))
        skip++;
    if (skip < length && data[skip] == '{')
        return g_strstr_len(data, (gssize)length, "\"results\"") != NULL;
    const char *at = data;
    const char *end = data + length;
    while (at < end) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        const char *stop = nl != NULL ? nl : end;
        g_autofree char *line = g_strndup(at, (gsize)(stop - at));
        const char *body = strip_prefix(line);
        if (*body == '#') {
            g_auto(GStrv) w = words(body + 1);
            if (w[0] != NULL && strcmp(w[0], "size") == 0 && w[1] != NULL &&
                strcmp(w[1], "count") == 0 && strstr(body, "algbw") != NULL &&
                strstr(body, "busbw") != NULL)
                return true;
        }
        at = stop + 1;
    }
    return false;
}

JudgeLog *
judge_log_read(const char *path, const char *data, size_t length, const JudgeLogHints *hints,
               GError **error)
{
    JudgeLogHints none = {0};
    JudgeParse p = {.hints = hints != NULL ? hints : &none};
    p.log = g_new0(JudgeLog, 1);
    p.log->path = g_strdup(path);
    p.log->tests = g_ptr_array_new_with_free_func(judge_test_free);
    p.log->problems = g_ptr_array_new_with_free_func(g_free);
    gsize skip = 0;
    while (skip < length && g_ascii_isspace(data[skip]))
        skip++;
    if (skip < length && data[skip] == '{') {
        bool ok = judge_log_read_json(&p, data, length, error);
        judge_parse_clear(&p);
        if (!ok) {
            judge_log_free(p.log);
            return NULL;
        }
        return p.log;
    }
    const char *at = data;
    const char *end = data + length;
    uint32_t line = 0;
    bool any_table = false;
    while (at < end) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        const char *stop = nl != NULL ? nl : end;
        line++;
        g_autofree char *text = g_strndup(at, (gsize)(stop - at));
        gsize n = strlen(text);
        if (n > 0 && text[n - 1] == '\r')
            text[n - 1] = '\0';
        read_line(&p, text, line);
        any_table |= p.raw != NULL && p.raw->table_line != 0;
        at = stop + 1;
    }
    finish(&p, line);
    judge_parse_clear(&p);
    if (!any_table && p.log->tests->len == 0) {
        g_set_error(error, JUDGE_LOG_ERROR, JUDGE_LOG_ERROR_MALFORMED,
                    "%s: no nccl-tests table in it: expected its header line '#  size  count  "
                    "type ... time  algbw  busbw' and rows",
                    path);
        judge_log_free(p.log);
        return NULL;
    }
    return p.log;
}

JudgeLog *
judge_log_open(const char *path, const JudgeLogHints *hints, GError **error)
{
    GStatBuf st;
    if (g_stat(path, &st) == 0 &&
        (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > JUDGE_LOG_MAX_BYTES)) {
        g_set_error(error, JUDGE_LOG_ERROR, JUDGE_LOG_ERROR_NOT_A_FILE,
                    "%s: expected a regular file of at most 1 GiB holding nccl-tests' output",
                    path);
        return NULL;
    }
    g_autofree char *data = NULL;
    gsize length = 0;
    if (!g_file_get_contents(path, &data, &length, error))
        return NULL;
    if (!judge_log_detect(data, length)) {
        g_set_error(error, JUDGE_LOG_ERROR, JUDGE_LOG_ERROR_NOT_A_LOG,
                    "%s: not nccl-tests' output (no table header '#  size  count  type ... "
                    "algbw  busbw', no JSON \"results\")",
                    path);
        return NULL;
    }
    return judge_log_read(path, data, length, hints, error);
}

void
judge_test_free(gpointer data)
{
    JudgeLogTest *t = data;
    if (t == NULL)
        return;
    g_free(t->system);
    g_free(t->device);
    g_free(t->nccl_version);
    g_free(t->nccl_env);
    g_array_unref(t->rows);
    g_ptr_array_unref(t->stated);
    g_free(t);
}

void
judge_log_free(JudgeLog *log)
{
    if (log == NULL)
        return;
    g_free(log->path);
    g_ptr_array_unref(log->tests);
    g_ptr_array_unref(log->problems);
    g_free(log);
}
