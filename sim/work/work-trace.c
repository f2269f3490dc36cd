/* SPDX-License-Identifier: Apache-2.0 */
/* Reading traces (the format is in work-trace.h): the rows come from
 * core-csv, each is checked on its own (fields, numbers, task order, group
 * membership) so that errors name a line and a column, the stream is
 * built, and the rules of the whole stream (pairing, deadlock) are left to
 * work_stream_check. Times stay integer picoseconds: durations are parsed
 * as decimal text, never through a double.
 */
#include "work/work-trace.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/core-csv.h"
#include "core/core-time.h"

const char *const work_trace_columns[WORK_TRACE_N_COLUMNS] = {
    "rank",     "task",           "kind",  "category",    "group", "members",      "peer",
    "op",       "bytes",          "sms",   "duration_us", "flops", "memory_share", "deps",
    "replicas", "replica_stride", "label",
};

/* The columns a trace may leave out (written before they were added). */
static bool
optional_column(int c)
{
    return c == WORK_TRACE_SMS || c == WORK_TRACE_MEMORY_SHARE;
}

/* The SMs a coll row may name: more than any GPU has. */
#define TRACE_MAX_SMS 4096

/* The column names in order, comma-separated (for messages). */
static void
put_columns(GString *out)
{
    for (int c = 0; c < WORK_TRACE_N_COLUMNS; c++)
        g_string_append_printf(out, "%s%s", c > 0 ? "," : "", work_trace_columns[c]);
}

/* ---- Reading. ---- */

typedef struct Reader {
    const SimCsv *csv;
    int columns[WORK_TRACE_N_COLUMNS];
    guint row;
    WorkStream *stream;
    GHashTable *rank_tasks;  /* rank + 1 -> GArray of its task indices, in task order */
    GHashTable *group_index; /* name -> index + 1 */
    GPtrArray *group_names;  /* by group index: the name that made it */
    GArray *group_lines;     /* uint32_t by group index: the line that made it */
    GArray *list;            /* uint32_t: a parsed members or deps field */
    WorkReplicas replicas[WORK_REPLICA_AXES]; /* the first row's */
    uint32_t n_gpus;                          /* one more than the largest GPU named so far */
} Reader;

static uint32_t
row_line(const Reader *r)
{
    return g_array_index(r->csv->lines, uint32_t, r->row);
}

/* Sets error "PATH:LINE: COLUMN: message" (no column when col < 0). */
static bool G_GNUC_PRINTF(4, 5)
    row_fail(const Reader *r, GError **error, int col, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    g_autofree char *msg = g_strdup_vprintf(format, ap);
    va_end(ap);
    if (col >= 0)
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%u: %s: %s", r->csv->path,
                    row_line(r), work_trace_columns[col], msg);
    else
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:%u: %s", r->csv->path, row_line(r),
                    msg);
    return false;
}

/* The row's text in column col; "" for a column the trace leaves out
 * (only an optional one may be). */
static const char *
field(const Reader *r, WorkTraceColumn col)
{
    return r->columns[col] < 0 ? "" : sim_csv_field(r->csv, r->row, r->columns[col]);
}

static bool
is_empty(const Reader *r, WorkTraceColumn col)
{
    return field(r, col)[0] == '\0';
}

typedef enum Parsed { PARSED_OK, PARSED_BAD, PARSED_TOO_BIG } Parsed;

/* Decimal digits only (no sign, no blanks), at most max. */
static Parsed
parse_uint(const char *text, uint64_t max, uint64_t *value)
{
    if (*text == '\0')
        return PARSED_BAD;
    uint64_t v = 0;
    for (const char *p = text; *p != '\0'; p++) {
        if (!g_ascii_isdigit(*p))
            return PARSED_BAD;
        unsigned d = (unsigned)(*p - '0');
        if (d > max || v > (max - d) / 10)
            return PARSED_TOO_BIG;
        v = v * 10 + d;
    }
    *value = v;
    return PARSED_OK;
}

/* Microseconds as [digits][.digits][e[+-]digits] to picoseconds, exactly:
 * the significant digits m and the power p of ps = m x 10^p are kept as
 * text, and digits below the picosecond round half up. */
static Parsed
parse_us(const char *text, uint64_t *ps)
{
    g_autofree char *m = g_malloc(strlen(text) + 1);
    int64_t n_m = 0, n_frac = 0, exponent = 0;
    bool any = false;
    const char *p = text;
    for (bool frac = false;; p++) {
        if (*p == '.' && !frac) {
            frac = true;
            continue;
        }
        if (!g_ascii_isdigit(*p))
            break;
        any = true;
        n_frac += frac;
        if (n_m > 0 || *p != '0')
            m[n_m++] = *p;
    }
    if (!any)
        return PARSED_BAD;
    if (*p == 'e' || *p == 'E') {
        bool negative = *++p == '-';
        p += *p == '-' || *p == '+';
        if (!g_ascii_isdigit(*p))
            return PARSED_BAD;
        for (; g_ascii_isdigit(*p); p++)
            exponent = MIN(exponent * 10 + (*p - '0'), 1000000);
        exponent = negative ? -exponent : exponent;
    }
    if (*p != '\0')
        return PARSED_BAD;
    /* How many of m's digits are whole picoseconds (more: zeros follow). */
    int64_t n_whole = n_m + exponent - n_frac + 6;
    uint64_t v = 0;
    if (n_m > 0 && n_whole > 20)
        return PARSED_TOO_BIG;
    for (int64_t k = 0; n_m > 0 && k < n_whole; k++) {
        unsigned d = k < n_m ? (unsigned)(m[k] - '0') : 0;
        if (v > (UINT64_MAX - d) / 10)
            return PARSED_TOO_BIG;
        v = v * 10 + d;
    }
    if (n_whole >= 0 && n_whole < n_m && m[n_whole] >= '5') {
        if (v == UINT64_MAX)
            return PARSED_TOO_BIG;
        v++;
    }
    *ps = v;
    return PARSED_OK;
}

/* The integer in column col; empty is an error. */
static bool
field_uint(const Reader *r, WorkTraceColumn col, uint64_t max, uint64_t *value, GError **error)
{
    const char *text = field(r, col);
    switch (parse_uint(text, max, value)) {
    case PARSED_OK:
        return true;
    case PARSED_TOO_BIG:
        return row_fail(r, error, col, "%s is too large: at most %" PRIu64, text, max);
    default:
        if (*text == '\0')
            return row_fail(r, error, col, "required, got an empty field");
        return row_fail(r, error, col, "expected a non-negative integer, got \"%s\"", text);
    }
}

/* Numbers separated by blanks into r->list (emptied first), each at most max. */
static bool
field_list(const Reader *r, WorkTraceColumn col, uint64_t max, GError **error)
{
    g_array_set_size(r->list, 0);
    g_auto(GStrv) words = g_strsplit_set(field(r, col), " \t", -1);
    for (char **w = words; *w != NULL; w++) {
        if (**w == '\0')
            continue;
        uint64_t v;
        Parsed parsed = parse_uint(*w, max, &v);
        if (parsed == PARSED_TOO_BIG)
            return row_fail(r, error, col, "%s is too large: at most %" PRIu64, *w, max);
        if (parsed != PARSED_OK)
            return row_fail(r, error, col,
                            "expected non-negative integers separated by spaces, got \"%s\"",
                            field(r, col));
        uint32_t v32 = (uint32_t)v;
        g_array_append_val(r->list, v32);
    }
    return true;
}

static void
note_gpu(Reader *r, uint64_t gpu)
{
    if (gpu + 1 > r->n_gpus)
        r->n_gpus = (uint32_t)gpu + 1;
}

/* Fails on the first of cols that is not empty. */
static bool
must_be_empty(const Reader *r, WorkTaskKind kind, const WorkTraceColumn *cols, int n_cols,
              GError **error)
{
    for (int i = 0; i < n_cols; i++)
        if (!is_empty(r, cols[i]))
            return row_fail(r, error, cols[i], "must be empty for a %s row, got \"%s\"",
                            work_task_kind_name(kind), field(r, cols[i]));
    return true;
}

/* memory_share: empty, or a decimal from 0 to 1, to WORK_SHARE_ONE parts. */
static bool
read_memory_share(const Reader *r, WorkTask *t, GError **error)
{
    const char *text = field(r, WORK_TRACE_MEMORY_SHARE);
    if (*text == '\0')
        return true;
    char *end = NULL;
    double share = g_ascii_strtod(text, &end);
    if (end == text || *end != '\0' || !(share >= 0 && share <= 1))
        return row_fail(r, error, WORK_TRACE_MEMORY_SHARE,
                        "expected a share from 0 to 1 (\"0.25\"), got \"%s\"", text);
    t->memory_share = (uint16_t)llround(share * WORK_SHARE_ONE);
    return true;
}

static bool
read_compute(const Reader *r, WorkTask *t, GError **error)
{
    static const WorkTraceColumn unused[] = {WORK_TRACE_GROUP, WORK_TRACE_MEMBERS, WORK_TRACE_PEER,
                                             WORK_TRACE_OP,    WORK_TRACE_BYTES,   WORK_TRACE_SMS};
    if (!must_be_empty(r, t->kind, unused, G_N_ELEMENTS(unused), error))
        return false;
    if (!is_empty(r, WORK_TRACE_FLOPS) &&
        !field_uint(r, WORK_TRACE_FLOPS, UINT64_MAX, &t->flops, error))
        return false;
    if (!read_memory_share(r, t, error))
        return false;
    const char *text = field(r, WORK_TRACE_DURATION);
    if (*text == '\0') {
        if (t->flops == 0)
            return row_fail(r, error, WORK_TRACE_DURATION,
                            "required for a compute row, unless flops (> 0) is given");
        return true;
    }
    switch (parse_us(text, &t->duration_ps)) {
    case PARSED_OK:
        return true;
    case PARSED_TOO_BIG:
        return row_fail(r, error, WORK_TRACE_DURATION, "%s us is too long: at most %" PRIu64 " ps",
                        text, UINT64_MAX);
    default:
        return row_fail(r, error, WORK_TRACE_DURATION,
                        "expected a non-negative number of microseconds, got \"%s\"", text);
    }
}

static int
cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The members of this row, sorted into r->list. */
static bool
read_members(Reader *r, uint32_t rank, GError **error)
{
    if (is_empty(r, WORK_TRACE_MEMBERS))
        return row_fail(r, error, WORK_TRACE_MEMBERS, "required for a coll row: the group's ranks");
    if (!field_list(r, WORK_TRACE_MEMBERS, WORK_TRACE_MAX_GPUS - 1, error))
        return false;
    uint32_t *ranks = (uint32_t *)(void *)r->list->data;
    qsort(ranks, r->list->len, sizeof(uint32_t), cmp_u32);
    bool found = false;
    for (uint32_t i = 0; i < r->list->len; i++) {
        if (i > 0 && ranks[i] == ranks[i - 1])
            return row_fail(r, error, WORK_TRACE_MEMBERS, "rank %u appears twice", ranks[i]);
        found = found || ranks[i] == rank;
        note_gpu(r, ranks[i]);
    }
    if (!found)
        return row_fail(r, error, WORK_TRACE_MEMBERS,
                        "the row's rank %u is not among them (\"%s\")", rank,
                        field(r, WORK_TRACE_MEMBERS));
    return true;
}

/* Finds or makes the group of a coll row: t->group. */
static bool
read_group(Reader *r, WorkTask *t, GError **error)
{
    const char *name = field(r, WORK_TRACE_GROUP);
    if (*name == '\0')
        return row_fail(r, error, WORK_TRACE_GROUP, "required for a coll row: the group's name");
    if (!read_members(r, t->rank, error))
        return false;
    const uint32_t *ranks = (const uint32_t *)(const void *)r->list->data;
    uint32_t n_ranks = r->list->len;
    uint32_t known = GPOINTER_TO_UINT(g_hash_table_lookup(r->group_index, name));
    if (known > 0) {
        t->group = known - 1;
        const WorkGroup *g = r->stream->groups->pdata[t->group];
        uint32_t line = g_array_index(r->group_lines, uint32_t, t->group);
        if (g->category != t->category)
            return row_fail(r, error, WORK_TRACE_CATEGORY, "group \"%s\" is %s on line %u, not %s",
                            name, work_category_name(g->category), line,
                            work_category_name(t->category));
        if (g->n_ranks != n_ranks || memcmp(g->ranks, ranks, n_ranks * sizeof(uint32_t)) != 0)
            return row_fail(r, error, WORK_TRACE_MEMBERS,
                            "group \"%s\" has other members on line %u than \"%s\"", name, line,
                            field(r, WORK_TRACE_MEMBERS));
        return true;
    }
    uint32_t n_before = r->stream->groups->len;
    t->group = work_stream_group(r->stream, t->category, ranks, n_ranks);
    if (t->group < n_before)
        return row_fail(r, error, WORK_TRACE_GROUP,
                        "\"%s\" has the members and category of group \"%s\" (line %u): a "
                        "stream has one communicator per set of ranks and category",
                        name, (const char *)r->group_names->pdata[t->group],
                        g_array_index(r->group_lines, uint32_t, t->group));
    char *copy = g_strdup(name);
    g_ptr_array_add(r->group_names, copy);
    g_hash_table_insert(r->group_index, copy, GUINT_TO_POINTER(t->group + 1));
    uint32_t line = row_line(r);
    g_array_append_val(r->group_lines, line);
    return true;
}

static bool
read_coll(Reader *r, WorkTask *t, GError **error)
{
    static const WorkTraceColumn unused[] = {WORK_TRACE_PEER, WORK_TRACE_DURATION, WORK_TRACE_FLOPS,
                                             WORK_TRACE_MEMORY_SHARE};
    if (!must_be_empty(r, t->kind, unused, G_N_ELEMENTS(unused), error) || !read_group(r, t, error))
        return false;
    const char *op = field(r, WORK_TRACE_OP);
    if (*op == '\0')
        return row_fail(r, error, WORK_TRACE_OP, "required for a coll row");
    if (!coll_op_parse(op, &t->op))
        return row_fail(r, error, WORK_TRACE_OP,
                        "unknown collective \"%s\" (all_reduce, all_gather, reduce_scatter, "
                        "broadcast, reduce, alltoall, sendrecv)",
                        op);
    if (!field_uint(r, WORK_TRACE_BYTES, WORK_TRACE_MAX_BYTES, &t->bytes, error))
        return false;
    if (is_empty(r, WORK_TRACE_SMS))
        return true;
    uint64_t sms;
    if (!field_uint(r, WORK_TRACE_SMS, TRACE_MAX_SMS, &sms, error))
        return false;
    if (sms == 0)
        return row_fail(r, error, WORK_TRACE_SMS,
                        "0: expected 1 or more SMs, or empty for NCCL's channels");
    t->sms = (uint16_t)sms;
    return true;
}

static bool
read_transfer(Reader *r, WorkTask *t, GError **error)
{
    static const WorkTraceColumn unused[] = {
        WORK_TRACE_GROUP,    WORK_TRACE_MEMBERS, WORK_TRACE_OP,          WORK_TRACE_SMS,
        WORK_TRACE_DURATION, WORK_TRACE_FLOPS,   WORK_TRACE_MEMORY_SHARE};
    uint64_t peer;
    if (!must_be_empty(r, t->kind, unused, G_N_ELEMENTS(unused), error) ||
        !field_uint(r, WORK_TRACE_PEER, WORK_TRACE_MAX_GPUS - 1, &peer, error))
        return false;
    if (peer == t->rank)
        return row_fail(r, error, WORK_TRACE_PEER, "%" PRIu64 " is the row's own rank", peer);
    t->peer = (uint32_t)peer;
    note_gpu(r, peer);
    return field_uint(r, WORK_TRACE_BYTES, WORK_TRACE_MAX_BYTES, &t->bytes, error);
}

/* replicas and replica_stride: lists of the same length, one entry an
 * axis (at most WORK_REPLICA_AXES), valid, and the same as on the first
 * row. */
static bool
read_replicas(Reader *r, uint32_t rank, GError **error)
{
    WorkReplicas axes[WORK_REPLICA_AXES];
    for (int a = 0; a < WORK_REPLICA_AXES; a++)
        axes[a] = (WorkReplicas){.count = 1};
    if (!field_list(r, WORK_TRACE_REPLICAS, UINT32_MAX, error))
        return false;
    guint n_axes = r->list->len;
    if (n_axes > WORK_REPLICA_AXES)
        return row_fail(r, error, WORK_TRACE_REPLICAS, "at most %d axes, got %u", WORK_REPLICA_AXES,
                        n_axes);
    for (guint a = 0; a < n_axes; a++)
        axes[a].count = g_array_index(r->list, uint32_t, a);
    if (!field_list(r, WORK_TRACE_STRIDE, UINT32_MAX, error))
        return false;
    if (r->list->len != n_axes && !(n_axes <= 1 && r->list->len == 0))
        return row_fail(r, error, WORK_TRACE_STRIDE, "%u strides for %u replica axes", r->list->len,
                        n_axes);
    for (guint a = 0; a < r->list->len; a++)
        axes[a].stride = g_array_index(r->list, uint32_t, a);
    uint64_t last = rank;
    for (int a = 0; a < WORK_REPLICA_AXES; a++) {
        if (axes[a].count == 0)
            return row_fail(r, error, WORK_TRACE_REPLICAS, "must be at least 1, got 0");
        if (axes[a].count > 1 && axes[a].stride == 0)
            return row_fail(r, error, WORK_TRACE_STRIDE, "must be at least 1 with %u replicas",
                            axes[a].count);
        last += (uint64_t)(axes[a].count - 1) * axes[a].stride;
    }
    if (r->row == 0) {
        memcpy(r->replicas, axes, sizeof axes);
    } else if (memcmp(axes, r->replicas, sizeof axes) != 0) {
        return row_fail(r, error, WORK_TRACE_REPLICAS,
                        "\"%s\" replicas \"%s\" apart, but not so on line %u: replicas and "
                        "replica_stride must be the same on every row",
                        field(r, WORK_TRACE_REPLICAS), field(r, WORK_TRACE_STRIDE),
                        g_array_index(r->csv->lines, uint32_t, 0));
    }
    if (last >= WORK_TRACE_MAX_GPUS)
        return row_fail(r, error, WORK_TRACE_REPLICAS,
                        "rank %u's last replica is GPU %" PRIu64 ", not below %u", rank, last,
                        WORK_TRACE_MAX_GPUS);
    note_gpu(r, last);
    return true;
}

/* deps, as task indices of the stream, into r->list. */
static bool
read_deps(Reader *r, uint32_t number, const GArray *mine, GError **error)
{
    if (!field_list(r, WORK_TRACE_DEPS, UINT32_MAX, error))
        return false;
    for (uint32_t d = 0; d < r->list->len; d++) {
        uint32_t *dep = &g_array_index(r->list, uint32_t, d);
        if (*dep >= number)
            return row_fail(r, error, WORK_TRACE_DEPS,
                            "task %u is not earlier than this task (%u): a task waits only for "
                            "earlier tasks of its rank",
                            *dep, number);
        *dep = g_array_index(mine, uint32_t, *dep);
    }
    return true;
}

/* The numbered task of its rank: the rank's task list. */
static GArray *
rank_tasks(Reader *r, uint32_t rank)
{
    GArray *mine = g_hash_table_lookup(r->rank_tasks, GUINT_TO_POINTER(rank + 1));
    if (mine == NULL) {
        mine = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_hash_table_insert(r->rank_tasks, GUINT_TO_POINTER(rank + 1), mine);
    }
    return mine;
}

static bool
read_row(Reader *r, GError **error)
{
    uint64_t rank, number;
    WorkTask t = {.group = WORK_NONE, .peer = WORK_NONE};
    if (!field_uint(r, WORK_TRACE_RANK, WORK_TRACE_MAX_GPUS - 1, &rank, error) ||
        !field_uint(r, WORK_TRACE_TASK, UINT32_MAX - 1, &number, error))
        return false;
    t.rank = (uint32_t)rank;
    note_gpu(r, rank);
    if (!work_task_kind_parse(field(r, WORK_TRACE_KIND), &t.kind))
        return row_fail(r, error, WORK_TRACE_KIND,
                        "unknown kind \"%s\" (compute, coll, send, recv)",
                        field(r, WORK_TRACE_KIND));
    if (!work_category_parse(field(r, WORK_TRACE_CATEGORY), &t.category))
        return row_fail(r, error, WORK_TRACE_CATEGORY,
                        "unknown category \"%s\" (compute, tp, pp, dp, ep)",
                        field(r, WORK_TRACE_CATEGORY));
    GArray *mine = rank_tasks(r, t.rank);
    if (number != mine->len)
        return row_fail(r, error, WORK_TRACE_TASK,
                        "expected %u, the next task number of rank %u, got %" PRIu64, mine->len,
                        t.rank, number);
    if (!read_replicas(r, t.rank, error))
        return false;
    bool ok = t.kind == WORK_TASK_COMPUTE ? read_compute(r, &t, error)
              : t.kind == WORK_TASK_COLL  ? read_coll(r, &t, error)
                                          : read_transfer(r, &t, error);
    if (!ok || !read_deps(r, (uint32_t)number, mine, error))
        return false;
    uint32_t index = work_stream_add(r->stream, &t, (const uint32_t *)(const void *)r->list->data,
                                     r->list->len, field(r, WORK_TRACE_LABEL));
    g_array_append_val(mine, index);
    return true;
}

/* Every column known and none missing but the optional ones; r->columns
 * set (-1 for a column left out). */
static bool
find_columns(Reader *r, GError **error)
{
    const GPtrArray *header = r->csv->columns;
    for (int c = 0; c < WORK_TRACE_N_COLUMNS; c++)
        r->columns[c] = -1;
    g_autoptr(GString) unknown = g_string_new(NULL);
    for (guint i = 0; i < header->len; i++) {
        const char *name = header->pdata[i];
        int c = 0;
        while (c < WORK_TRACE_N_COLUMNS && strcmp(name, work_trace_columns[c]) != 0)
            c++;
        if (c < WORK_TRACE_N_COLUMNS)
            r->columns[c] = (int)i;
        else
            g_string_append_printf(unknown, "%s\"%s\"", unknown->len ? ", " : "", name);
    }
    g_autoptr(GString) missing = g_string_new(NULL);
    for (int c = 0; c < WORK_TRACE_N_COLUMNS; c++)
        if (!optional_column(c) && r->columns[c] < 0)
            g_string_append_printf(missing, "%s%s", missing->len ? ", " : "",
                                   work_trace_columns[c]);
    if (unknown->len == 0 && missing->len == 0)
        return true;
    g_autoptr(GString) all = g_string_new(NULL);
    put_columns(all);
    g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s:1: %s column %s: a trace has %s",
                r->csv->path, unknown->len > 0 ? "unknown" : "missing",
                unknown->len > 0 ? unknown->str : missing->str, all->str);
    return false;
}

/* The trace whose rows csv holds (read from path). */
static WorkStream *
trace_read(SimCsv *csv, const char *path, GError **error)
{
    g_autoptr(WorkStream) stream = work_stream_new(0);
    Reader r = {
        .csv = csv,
        .stream = stream,
        .rank_tasks = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL,
                                            (GDestroyNotify)g_array_unref),
        .group_index = g_hash_table_new(g_str_hash, g_str_equal),
        .group_names = g_ptr_array_new_with_free_func(g_free),
        .group_lines = g_array_new(FALSE, FALSE, sizeof(uint32_t)),
        .list = g_array_new(FALSE, FALSE, sizeof(uint32_t)),
    };
    bool ok = find_columns(&r, error);
    if (ok && csv->rows->len == 0) {
        g_set_error(error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                    "%s: no tasks: expected a row per task after the header", path);
        ok = false;
    }
    for (r.row = 0; ok && r.row < csv->rows->len; r.row++)
        ok = read_row(&r, error);
    g_hash_table_unref(r.rank_tasks);
    g_hash_table_unref(r.group_index);
    g_ptr_array_unref(r.group_names);
    g_array_unref(r.group_lines);
    g_array_unref(r.list);
    if (!ok)
        return NULL;
    stream->n_gpus = r.n_gpus;
    memcpy(stream->replicas, r.replicas, sizeof r.replicas);
    if (!work_stream_check(stream, error)) {
        g_prefix_error(error, "%s: ", path);
        return NULL;
    }
    return g_steal_pointer(&stream);
}

WorkStream *
work_trace_read(const char *path, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_autoptr(SimCsv) csv = sim_csv_read(path, error);
    return csv != NULL ? trace_read(csv, path, error) : NULL;
}

WorkStream *
work_trace_read_data(const char *data, size_t length, const char *path, GError **error)
{
    g_return_val_if_fail(data != NULL && path != NULL, NULL);
    g_autoptr(SimCsv) csv = sim_csv_read_data(data, length, path, error);
    return csv != NULL ? trace_read(csv, path, error) : NULL;
}
