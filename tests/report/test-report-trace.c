/* SPDX-License-Identifier: Apache-2.0 */
/* Traces: a hand-built stream (two detailed ranks, compute with deps, a
 * tensor-parallel all-reduce, a pipeline send/recv, a data-parallel group
 * with a replica member, two replicas four GPUs apart) written and read
 * back field by field; the header and a row's text exactly; durations to
 * the picosecond; malformed traces each fail naming the line and the
 * column or the reason. */
#include <glib/gstdio.h>
#include <string.h>

#include "report/report-trace.h"
#include "report-suites.h"
#include <check.h>
#include <stdlib.h>

/* The headers of traces written before the sms and the memory_share
 * columns (which the reader still takes), and the header the writer puts. */
#define HEADER                                                                                     \
    "rank,task,kind,category,group,members,peer,op,bytes,duration_us,flops,deps,replicas,"         \
    "replica_stride,label"
#define SMS_HEADER                                                                                 \
    "rank,task,kind,category,group,members,peer,op,bytes,sms,duration_us,flops,deps,replicas,"     \
    "replica_stride,label"
#define WRITTEN_HEADER                                                                             \
    "rank,task,kind,category,group,members,peer,op,bytes,sms,duration_us,flops,memory_share,"      \
    "deps,replicas,replica_stride,label"

/* A temporary folder and the files the test puts in it, removed by
 * tmp_clear. */
typedef struct Tmp {
    char *dir;
    char *path; /* dir/trace.csv */
} Tmp;

static Tmp
tmp_new(void)
{
    Tmp tmp = {.dir = g_dir_make_tmp("test-report-trace-XXXXXX", NULL)};
    ck_assert(tmp.dir != NULL);
    tmp.path = g_build_filename(tmp.dir, "trace.csv", NULL);
    return tmp;
}

static void
tmp_clear(Tmp *tmp)
{
    GDir *d = g_dir_open(tmp->dir, 0, NULL);
    for (const char *name; d != NULL && (name = g_dir_read_name(d)) != NULL;) {
        g_autofree char *file = g_build_filename(tmp->dir, name, NULL);
        g_unlink(file);
    }
    if (d != NULL)
        g_dir_close(d);
    g_rmdir(tmp->dir);
    g_free(tmp->dir);
    g_free(tmp->path);
}

static const char label_with_comma[] = "fwd mb0, \"attn\"";

/* Ranks 2 and 3 are detailed; rank 1 is a replica member of the dp group
 * {1, 3}; GPUs 6 and 7 are their replicas (2 + 4, 3 + 4): 8 GPUs. Groups
 * are made in the order the tasks first use them, as the reader makes
 * them. */
static WorkStream *
sample_stream(void)
{
    WorkStream *s = work_stream_new(8);
    s->replicas[0] = (WorkReplicas){.count = 2, .stride = 4};
    uint32_t tp_ranks[] = {3, 2}, dp_ranks[] = {3, 1};
    uint32_t tp = work_stream_group(s, WORK_CAT_TP, tp_ranks, 2);
    uint32_t dp = work_stream_group(s, WORK_CAT_DP, dp_ranks, 2);
    WorkTask c = {.kind = WORK_TASK_COMPUTE,
                  .category = WORK_CAT_COMPUTE,
                  .group = WORK_NONE,
                  .peer = WORK_NONE};
    WorkTask ar = {.kind = WORK_TASK_COLL,
                   .category = WORK_CAT_TP,
                   .group = tp,
                   .peer = WORK_NONE,
                   .op = COLL_OP_ALL_REDUCE,
                   .bytes = 1048576,
                   .sms = 16};
    WorkTask p2p = {.kind = WORK_TASK_SEND,
                    .category = WORK_CAT_PP,
                    .rank = 2,
                    .group = WORK_NONE,
                    .peer = 3,
                    .bytes = 4096};
    WorkTask rs = {.kind = WORK_TASK_COLL,
                   .category = WORK_CAT_DP,
                   .group = dp,
                   .peer = WORK_NONE,
                   .op = COLL_OP_REDUCE_SCATTER,
                   .bytes = 8388608};
    uint32_t t[9];
    c.rank = 2, c.duration_ps = 1234567, c.flops = 1000, c.memory_share = 2731;
    t[0] = work_stream_add(s, &c, NULL, 0, label_with_comma);
    c.rank = 3, c.duration_ps = 2000000, c.flops = 0, c.memory_share = 0;
    t[1] = work_stream_add(s, &c, NULL, 0, "fwd mb0 attn");
    ar.rank = 2;
    t[2] = work_stream_add(s, &ar, &t[0], 1, "tp all-reduce");
    ar.rank = 3;
    t[3] = work_stream_add(s, &ar, &t[1], 1, "tp all-reduce");
    t[4] = work_stream_add(s, &p2p, &t[2], 1, "send act");
    p2p.kind = WORK_TASK_RECV, p2p.rank = 3, p2p.peer = 2;
    t[5] = work_stream_add(s, &p2p, &t[3], 1, "recv act");
    /* Time left to the replayer: FLOPs only. */
    c.rank = 3, c.duration_ps = 0, c.flops = 5000000000;
    uint32_t deps6[] = {t[5], t[1]};
    t[6] = work_stream_add(s, &c, deps6, 2, "  bwd\nline two ");
    rs.rank = 3;
    t[7] = work_stream_add(s, &rs, &t[6], 1, "dp reduce-scatter");
    c.rank = 2, c.duration_ps = 0, c.flops = 0;
    uint32_t deps8[] = {t[2], t[4]};
    work_stream_add(s, &c, deps8, 2, NULL);
    return s;
}

static void
assert_same_stream(const WorkStream *a, const WorkStream *b)
{
    ck_assert_uint_eq(a->n_gpus, b->n_gpus);
    ck_assert(memcmp(a->replicas, b->replicas, sizeof a->replicas) == 0);
    ck_assert_uint_eq(a->tasks->len, b->tasks->len);
    ck_assert_uint_eq(a->groups->len, b->groups->len);
    for (uint32_t g = 0; g < a->groups->len; g++) {
        const WorkGroup *x = a->groups->pdata[g], *y = b->groups->pdata[g];
        ck_assert_int_eq(x->category, y->category);
        ck_assert_uint_eq(x->n_ranks, y->n_ranks);
        for (uint32_t r = 0; r < x->n_ranks; r++)
            ck_assert_uint_eq(x->ranks[r], y->ranks[r]);
    }
    for (uint32_t i = 0; i < a->tasks->len; i++) {
        const WorkTask *x = work_stream_task(a, i), *y = work_stream_task(b, i);
        ck_assert_msg(x->kind == y->kind && x->category == y->category && x->rank == y->rank &&
                          x->group == y->group && x->peer == y->peer && x->op == y->op,
                      "task %u: kind, category, rank, group, peer or op differ", i);
        ck_assert_uint_eq(x->bytes, y->bytes);
        ck_assert_uint_eq(x->duration_ps, y->duration_ps);
        ck_assert_uint_eq(x->flops, y->flops);
        ck_assert_uint_eq(x->sms, y->sms);
        ck_assert_uint_eq(x->memory_share, y->memory_share);
        ck_assert_uint_eq(x->n_deps, y->n_deps);
        for (uint32_t d = 0; d < x->n_deps; d++)
            ck_assert_uint_eq(g_array_index(a->deps, uint32_t, x->dep0 + d),
                              g_array_index(b->deps, uint32_t, y->dep0 + d));
        ck_assert_str_eq(work_stream_label(a, x), work_stream_label(b, y));
    }
}

START_TEST(round_trip_keeps_every_field)
{
    Tmp tmp = tmp_new();
    g_autoptr(WorkStream) s = sample_stream();
    g_autoptr(GError) error = NULL;
    ck_assert_msg(work_stream_check(s, &error), "%s", error ? error->message : "");
    ck_assert_msg(report_trace_write(s, tmp.path, &error), "%s", error ? error->message : "");
    g_autoptr(WorkStream) back = work_trace_read(tmp.path, &error);
    ck_assert_msg(back != NULL, "%s", error ? error->message : "");
    assert_same_stream(s, back);
    ck_assert_uint_eq(back->n_gpus, 8);
    ck_assert_uint_eq(work_stream_task(back, 0)->duration_ps, 1234567);
    ck_assert_str_eq(work_stream_label(back, work_stream_task(back, 0)), label_with_comma);
    /* Written again, the same bytes. */
    g_autofree char *again = g_build_filename(tmp.dir, "again.csv", NULL);
    ck_assert(report_trace_write(back, again, &error));
    g_autofree char *text1 = NULL, *text2 = NULL;
    ck_assert(g_file_get_contents(tmp.path, &text1, NULL, NULL));
    ck_assert(g_file_get_contents(again, &text2, NULL, NULL));
    ck_assert_str_eq(text1, text2);
    tmp_clear(&tmp);
}
END_TEST

/* The header and the rows as the format documents them. */
START_TEST(written_text_is_the_documented_format)
{
    Tmp tmp = tmp_new();
    g_autoptr(WorkStream) s = sample_stream();
    g_autoptr(GError) error = NULL;
    ck_assert(report_trace_write(s, tmp.path, &error));
    g_autofree char *text = NULL;
    ck_assert(g_file_get_contents(tmp.path, &text, NULL, NULL));
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    ck_assert_str_eq(lines[0], WRITTEN_HEADER);
    ck_assert_str_eq(lines[1], "2,0,compute,compute,,,,,,,1.234567,1000,0.2731,,2,4,"
                               "\"fwd mb0, \"\"attn\"\"\"");
    ck_assert_str_eq(lines[2], "3,0,compute,compute,,,,,,,2.000000,,,,2,4,fwd mb0 attn");
    ck_assert_str_eq(lines[3], "2,1,coll,tp,tp0,2 3,,all_reduce,1048576,16,,,,0,2,4,tp all-reduce");
    ck_assert_str_eq(lines[5], "2,2,send,pp,,,3,,4096,,,,,1,2,4,send act");
    ck_assert_str_eq(lines[7], "3,3,compute,compute,,,,,,,,5000000000,,2 0,2,4,\"  bwd");
    ck_assert_str_eq(lines[8], "line two \"");
    ck_assert_str_eq(lines[9], "3,4,coll,dp,dp1,1 3,,reduce_scatter,8388608,,,,,3,2,4,"
                               "dp reduce-scatter");
    ck_assert_str_eq(lines[10], "2,3,compute,compute,,,,,,,0.000000,,,1 2,2,4,");
    ck_assert_str_eq(lines[11], "");
    ck_assert_ptr_null(lines[12]);
    /* Nothing but the trace is left in the folder (no temporary). */
    GDir *d = g_dir_open(tmp.dir, 0, NULL);
    ck_assert_str_eq(g_dir_read_name(d), "trace.csv");
    ck_assert_ptr_null(g_dir_read_name(d));
    g_dir_close(d);
    tmp_clear(&tmp);
}
END_TEST

START_TEST(write_fails_on_a_missing_folder)
{
    g_autoptr(WorkStream) s = sample_stream();
    g_autoptr(GError) error = NULL;
    ck_assert(!report_trace_write(s, "/nonexistent/nvlsim/trace.csv", &error));
    ck_assert_msg(g_str_has_prefix(error->message, "/nonexistent/nvlsim/trace.csv: "), "%s",
                  error->message);
}
END_TEST

/* A collective whose category is not its group's would not read back. */
START_TEST(write_refuses_a_category_unlike_its_group)
{
    g_autoptr(WorkStream) s = work_stream_new(2);
    uint32_t ranks[] = {0, 1};
    WorkTask t = {.kind = WORK_TASK_COLL,
                  .category = WORK_CAT_DP,
                  .peer = WORK_NONE,
                  .group = work_stream_group(s, WORK_CAT_TP, ranks, 2),
                  .bytes = 8};
    work_stream_add(s, &t, NULL, 0, NULL);
    t.rank = 1;
    work_stream_add(s, &t, NULL, 0, NULL);
    g_autoptr(GError) error = NULL;
    ck_assert(!report_trace_write(s, "/nonexistent/trace.csv", &error));
    ck_assert_msg(strstr(error->message, "task 0: category dp but its group 0 is tp") != NULL, "%s",
                  error->message);
}
END_TEST

/* duration_us text and the picoseconds it reads as. */
static const struct {
    const char *text;
    uint64_t ps;
} durations[] = {
    {"1.234567", 1234567},
    {"12.5", 12500000},
    {"1.25e1", 12500000},
    {"125E-1", 12500000},
    {"3", 3000000},
    {"5.", 5000000},
    {".5", 500000},
    {"0", 0},
    {"0.000001", 1},
    {"1e-6", 1},
    {"0.0000005", 1}, /* half a picosecond rounds up */
    {"0.00000049", 0},
    {"0.0000014999", 1},
    {"007.0000010", 7000001},
    {"18446744073709.551615", UINT64_MAX},
    {"1e-400", 0},
};

START_TEST(durations_read_to_the_picosecond)
{
    Tmp tmp = tmp_new();
    g_autofree char *text =
        g_strdup_printf(HEADER "\n0,0,compute,compute,,,,,,%s,,,,,\n", durations[_i].text);
    ck_assert(g_file_set_contents(tmp.path, text, -1, NULL));
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkStream) s = work_trace_read(tmp.path, &error);
    ck_assert_msg(s != NULL, "%s: %s", durations[_i].text, error ? error->message : "");
    ck_assert_msg(work_stream_task(s, 0)->duration_ps == durations[_i].ps,
                  "%s: %" G_GUINT64_FORMAT " ps, expected %" G_GUINT64_FORMAT, durations[_i].text,
                  work_stream_task(s, 0)->duration_ps, durations[_i].ps);
    ck_assert_uint_eq(s->n_gpus, 1);
    ck_assert_uint_eq(work_stream_n_copies(s), 1);
    tmp_clear(&tmp);
}
END_TEST

/* Columns in another order read the same; rows of ranks interleave. */
START_TEST(columns_found_by_name)
{
    Tmp tmp = tmp_new();
    const char *text =
        "label,kind,rank,task,category,group,members,peer,op,bytes,duration_us,flops,deps,"
        "replicas,replica_stride\n"
        "a,compute,1,0,compute,,,,,,2,,,,\n"
        "b,coll,0,0,dp,g,1 0,,allreduce,64,,,,,\n"
        "c,coll,1,1,dp,g,0 1,,AllReduce,64,,,0,,\n";
    ck_assert(g_file_set_contents(tmp.path, text, -1, NULL));
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkStream) s = work_trace_read(tmp.path, &error);
    ck_assert_msg(s != NULL, "%s", error ? error->message : "");
    ck_assert_uint_eq(s->tasks->len, 3);
    ck_assert_uint_eq(s->groups->len, 1);
    ck_assert_uint_eq(s->n_gpus, 2);
    const WorkTask *t = work_stream_task(s, 2);
    ck_assert_uint_eq(t->rank, 1);
    ck_assert_uint_eq(t->n_deps, 1);
    ck_assert_uint_eq(g_array_index(s->deps, uint32_t, t->dep0), 0);
    ck_assert_int_eq(t->op, COLL_OP_ALL_REDUCE);
    ck_assert_str_eq(work_stream_label(s, t), "c");
    tmp_clear(&tmp);
}
END_TEST

/* Malformed traces: the text after the header (NULL: the whole file is
 * text) and two parts the message must hold. */
#define ROW(s) s "\n"
static const struct {
    const char *name;
    const char *header, *rows;
    const char *part1, *part2;
} bad[] = {
    {"unknown kind", HEADER, ROW("0,0,kernel,compute,,,,,,1,,,,,"),
     "trace.csv:2: kind: ", "unknown kind \"kernel\""},
    {"memory share above 1", WRITTEN_HEADER, ROW("0,0,compute,compute,,,,,,,1,,1.5,,,,"),
     "trace.csv:2: memory_share: ", "expected a share from 0 to 1 (\"0.25\"), got \"1.5\""},
    {"memory share not a number", WRITTEN_HEADER, ROW("0,0,compute,compute,,,,,,,1,,half,,,,"),
     "trace.csv:2: memory_share: ", "got \"half\""},
    {"coll with a memory share", WRITTEN_HEADER, ROW("0,0,coll,tp,t,0 1,,all_reduce,8,,,,0.5,,,,"),
     "trace.csv:2: memory_share: ", "must be empty for a coll row"},
    {"unknown category", HEADER, ROW("0,0,compute,xp,,,,,,1,,,,,"),
     "trace.csv:2: category: ", "unknown category \"xp\""},
    {"negative bytes", HEADER,
     ROW("0,0,coll,tp,t,0 1,,all_reduce,8,,,,,,") ROW("1,0,coll,tp,t,0 1,,all_reduce,-3,,,,,,"),
     "trace.csv:3: bytes: ", "expected a non-negative integer, got \"-3\""},
    {"bytes overflow", HEADER, ROW("0,0,send,pp,,,1,,18446744073709551616,,,,,,"),
     "trace.csv:2: bytes: ", "too large"},
    {"non-numeric rank", HEADER, ROW("x,0,compute,compute,,,,,,1,,,,,"),
     "trace.csv:2: rank: ", "got \"x\""},
    {"rank beyond the limit", HEADER, ROW("16777216,0,compute,compute,,,,,,1,,,,,"),
     "trace.csv:2: rank: ", "too large"},
    {"task out of order", HEADER,
     ROW("0,0,compute,compute,,,,,,1,,,,,") ROW("0,2,compute,compute,,,,,,1,,,,,"),
     "trace.csv:3: task: ", "expected 1, the next task number of rank 0, got 2"},
    {"dep not earlier", HEADER,
     ROW("0,0,compute,compute,,,,,,1,,,,,") ROW("0,1,compute,compute,,,,,,1,,1,,,"),
     "trace.csv:3: deps: ", "task 1 is not earlier"},
    {"dep not a number", HEADER,
     ROW("0,0,compute,compute,,,,,,1,,,,,") ROW("0,1,compute,compute,,,,,,1,,\"0;1\",,,"),
     "trace.csv:3: deps: ", "got \"0;1\""},
    {"nan duration", HEADER, ROW("0,0,compute,compute,,,,,,nan,,,,,"),
     "trace.csv:2: duration_us: ", "got \"nan\""},
    {"inf duration", HEADER, ROW("0,0,compute,compute,,,,,,inf,,,,,"),
     "trace.csv:2: duration_us: ", "got \"inf\""},
    {"negative duration", HEADER, ROW("0,0,compute,compute,,,,,,-1.5,,,,,"),
     "trace.csv:2: duration_us: ", "got \"-1.5\""},
    {"duration too long", HEADER, ROW("0,0,compute,compute,,,,,,1e20,,,,,"),
     "trace.csv:2: duration_us: ", "too long"},
    {"compute without time or flops", HEADER, ROW("0,0,compute,compute,,,,,,,,,,,"),
     "trace.csv:2: duration_us: ", "required for a compute row"},
    {"compute with a peer", HEADER, ROW("0,0,compute,compute,,,1,,,1,,,,,"),
     "trace.csv:2: peer: ", "must be empty for a compute row, got \"1\""},
    {"send with an op", HEADER, ROW("0,0,send,pp,,,1,all_reduce,8,,,,,,"),
     "trace.csv:2: op: ", "must be empty for a send row"},
    {"coll without group", HEADER, ROW("0,0,coll,tp,,0 1,,all_reduce,8,,,,,,"),
     "trace.csv:2: group: ", "required for a coll row"},
    {"coll without members", HEADER, ROW("0,0,coll,tp,t,,,all_reduce,8,,,,,,"),
     "trace.csv:2: members: ", "required for a coll row"},
    {"unknown op", HEADER, ROW("0,0,coll,tp,t,0 1,,all_reduce2,8,,,,,,"),
     "trace.csv:2: op: ", "unknown collective \"all_reduce2\""},
    {"members disagree", HEADER,
     ROW("0,0,coll,tp,t,0 1,,all_reduce,8,,,,,,") ROW("1,0,coll,tp,t,1 2,,all_reduce,8,,,,,,"),
     "trace.csv:3: members: ", "group \"t\" has other members on line 2"},
    {"category disagrees with the group", HEADER,
     ROW("0,0,coll,tp,t,0 1,,all_reduce,8,,,,,,") ROW("1,0,coll,dp,t,0 1,,all_reduce,8,,,,,,"),
     "trace.csv:3: category: ", "group \"t\" is tp on line 2, not dp"},
    {"two names for one communicator", HEADER,
     ROW("0,0,coll,tp,a,0 1,,all_reduce,8,,,,,,") ROW("1,0,coll,tp,b,0 1,,all_reduce,8,,,,,,"),
     "trace.csv:3: group: ", "\"b\" has the members and category of group \"a\" (line 2)"},
    {"rank not a member", HEADER, ROW("2,0,coll,tp,t,0 1,,all_reduce,8,,,,,,"),
     "trace.csv:2: members: ", "the row's rank 2 is not among them"},
    {"member twice", HEADER, ROW("0,0,coll,tp,t,0 1 0,,all_reduce,8,,,,,,"),
     "trace.csv:2: members: ", "rank 0 appears twice"},
    {"send to itself", HEADER, ROW("1,0,send,pp,,,1,,8,,,,,,"),
     "trace.csv:2: peer: ", "1 is the row's own rank"},
    {"replicas differ", HEADER,
     ROW("0,0,compute,compute,,,,,,1,,,2,4,") ROW("1,0,compute,compute,,,,,,1,,,2,2,"),
     "trace.csv:3: replicas: ", "must be the same on every row"},
    {"replicas without stride", HEADER, ROW("0,0,compute,compute,,,,,,1,,,2,,"),
     "trace.csv:2: replica_stride: ", "must be at least 1 with 2 replicas"},
    {"unknown column", HEADER ",comment", ROW("0,0,compute,compute,,,,,,1,,,,,,x"),
     "trace.csv:1: unknown column \"comment\"", "a trace has rank,task,"},
    {"missing column",
     "rank,task,kind,category,group,members,peer,op,bytes,duration_us,deps,"
     "replicas,replica_stride,label",
     ROW("0,0,compute,compute,,,,,,1,,,,"), "trace.csv:1: missing column flops", "label"},
    {"a row with too few fields", HEADER, ROW("0,0,compute"), "trace.csv:2: 3 fields",
     "expected 15"},
    {"empty file", "", "", "trace.csv: empty", "header"},
    {"header only", HEADER, "", "trace.csv: no tasks", "a row per task"},
    {"sms on a compute row", SMS_HEADER, ROW("0,0,compute,compute,,,,,,4,1,,,,,"),
     "trace.csv:2: sms: ", "must be empty for a compute row, got \"4\""},
    {"sms of 0", SMS_HEADER, ROW("0,0,coll,tp,t,0 1,,all_reduce,8,0,,,,,,"),
     "trace.csv:2: sms: ", "expected 1 or more SMs"},
    {"sms not a number", SMS_HEADER, ROW("0,0,coll,tp,t,0 1,,all_reduce,8,all,,,,,,"),
     "trace.csv:2: sms: ", "got \"all\""},
    {"sms beyond any GPU", SMS_HEADER, ROW("0,0,coll,tp,t,0 1,,all_reduce,8,5000,,,,,,"),
     "trace.csv:2: sms: ", "too large: at most 4096"},
    /* The rules of the whole stream, from work_stream_check. */
    {"members disagree on SMs", SMS_HEADER,
     ROW("0,0,coll,tp,t,0 1,,all_reduce,8,16,,,,,,") ROW("1,0,coll,tp,t,0 1,,all_reduce,8,1,,,,,,"),
     "trace.csv: group 0, call 0", "holds 16 SMs but"},
    {"send without recv", HEADER, ROW("0,0,send,pp,,,1,,8,,,,,,"), "trace.csv: task 0",
     "no matching receive on rank 1"},
    {"send and recv disagree on bytes", HEADER,
     ROW("0,0,send,pp,,,1,,8,,,,,,") ROW("1,0,recv,pp,,,0,,16,,,,,,"), "trace.csv: task 1",
     "receives 16 bytes but its task 0"},
    {"members disagree on a call", HEADER,
     ROW("0,0,coll,tp,t,0 1,,all_reduce,8,,,,,,") ROW("1,0,coll,tp,t,0 1,,all_gather,8,,,,,,"),
     "trace.csv: group 0, call 0", "all_reduce of 8 bytes but"},
    {"recv before send on both ranks", HEADER,
     ROW("0,0,recv,pp,,,1,,8,,,,,,") ROW("0,1,send,pp,,,1,,8,,,0,,,")
         ROW("1,0,recv,pp,,,0,,8,,,,,,") ROW("1,1,send,pp,,,0,,8,,,0,,,"),
     "trace.csv: the stream cannot finish", "waits forever"},
};

START_TEST(malformed_traces_fail_with_line_and_column)
{
    Tmp tmp = tmp_new();
    g_autofree char *text =
        g_strconcat(bad[_i].header, *bad[_i].header ? "\n" : "", bad[_i].rows, NULL);
    ck_assert(g_file_set_contents(tmp.path, text, -1, NULL));
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkStream) s = work_trace_read(tmp.path, &error);
    ck_assert_msg(s == NULL, "%s: accepted", bad[_i].name);
    ck_assert_msg(error != NULL, "%s: no error", bad[_i].name);
    ck_assert_msg(g_str_has_prefix(error->message, tmp.dir) &&
                      strstr(error->message, bad[_i].part1) != NULL &&
                      strstr(error->message, bad[_i].part2) != NULL,
                  "%s: message '%s' lacks '%s' or '%s'", bad[_i].name, error->message,
                  bad[_i].part1, bad[_i].part2);
    tmp_clear(&tmp);
}
END_TEST

START_TEST(missing_file_is_named)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkStream) s = work_trace_read("/nonexistent/nvlsim/trace.csv", &error);
    ck_assert(s == NULL);
    ck_assert_msg(g_str_has_prefix(error->message, "/nonexistent/nvlsim/trace.csv: "), "%s",
                  error->message);
}
END_TEST

Suite *
report_trace_suite(void)
{
    Suite *s = suite_create("report-trace");
    TCase *write = tcase_create("write");
    tcase_add_test(write, round_trip_keeps_every_field);
    tcase_add_test(write, written_text_is_the_documented_format);
    tcase_add_test(write, write_fails_on_a_missing_folder);
    tcase_add_test(write, write_refuses_a_category_unlike_its_group);
    suite_add_tcase(s, write);
    TCase *read = tcase_create("read");
    tcase_add_loop_test(read, durations_read_to_the_picosecond, 0, G_N_ELEMENTS(durations));
    tcase_add_test(read, columns_found_by_name);
    tcase_add_loop_test(read, malformed_traces_fail_with_line_and_column, 0, G_N_ELEMENTS(bad));
    tcase_add_test(read, missing_file_is_named);
    suite_add_tcase(s, read);
    return s;
}
