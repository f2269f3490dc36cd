/* SPDX-License-Identifier: Apache-2.0 */
/* The generator against Megatron's counts, on the tiny model (h 64,
 * 4 layers, s 128) for an H100: four tensor-parallel collectives a block
 * a pass of b s h activations (all-reduces; with sequence parallelism
 * all-gathers and reduce-scatters, Korthikanti et al. 2022, 4.2.2), two
 * more a block with full recompute; pipeline sends and receives of
 * b s h / tp per microbatch and stage boundary; data-parallel gradients of
 * exactly the stage's parameters as work-memory counts them, final norm
 * and output head included, with or without overlap (all-reduce, or
 * reduce-scatter and all-gather with ZeRO 1 and 2, per-block gathers with
 * ZeRO 3); symmetric and fully detailed steps replay alike; the
 * schedules do the same work, GPipe and 1F1B in the same time within
 * their transfers and the interleaved one in less; uneven stages do the
 * same work as even ones, and a 1F1B step over them is its closed form,
 * the slowest stage setting the steady state, to the picosecond. */
#include <string.h>

#include "work/work-gen.h"
#include "work/work-memory.h"
#include "work/work-pipeline.h"
#include "work-suites.h"

static WorkLayout
layout_of(uint32_t tp, uint32_t pp, uint32_t dp, uint64_t microbatches)
{
    WorkLayout l = work_test_layout(tp, pp, dp, microbatches * dp, 128);
    l.flash_attention = true;
    return l;
}

/* The step of model under l for an H100, checked; options NULL: the
 * defaults with every rank detailed, so that counts are per rank. Every
 * step also checks work_gen_stream_bytes's estimate: at least the tasks
 * generated (it refuses steps before they are generated), and within 3
 * times them (an estimate that refuses what would fit is wrong too). */
static WorkStream *
gen(const WorkModel *model, const WorkLayout *l, const WorkGenOptions *options, const char *what)
{
    g_autoptr(GError) error = NULL;
    ck_assert_msg(work_layout_check(l, model, &error), "%s: layout: %s", what,
                  error ? error->message : "");
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    WorkGenOptions defaults;
    work_gen_options_init(&defaults, model);
    defaults.symmetric = false;
    const WorkGenOptions *o = options ? options : &defaults;
    WorkStream *s = work_gen_stream(model, l, f.system->gpu, o);
    uint64_t bound;
    uint64_t bytes = work_gen_stream_bytes(model, l, f.system->gpu, o, &bound);
    work_test_fabric_clear(&f);
    ck_assert_msg(work_stream_check(s, &error), "%s: check: %s", what, error ? error->message : "");
    ck_assert_uint_eq(s->n_gpus, work_layout_gpus(l));
    ck_assert_msg(bound >= s->tasks->len && bound <= 3 * (uint64_t)s->tasks->len + 64,
                  "%s: %u tasks, estimated up to %" G_GUINT64_FORMAT, what, s->tasks->len, bound);
    ck_assert_uint_ge(bytes, bound * sizeof(WorkTask));
    return s;
}

/* Tasks of rank matching kind, category and (COLL) op, and their bytes. */
typedef struct Count {
    uint32_t n;
    uint64_t bytes;
    uint64_t bytes_min, bytes_max;
} Count;

#define ANY_OP COLL_N_OPS
#define ANY_CATEGORY WORK_N_CATEGORIES
#define ANY_RANK WORK_NONE

static Count
count(const WorkStream *s, uint32_t rank, WorkTaskKind kind, WorkCategory category, CollOp op)
{
    Count c = {.bytes_min = UINT64_MAX};
    for (guint i = 0; i < s->tasks->len; i++) {
        const WorkTask *t = work_stream_task(s, i);
        if ((rank != ANY_RANK && t->rank != rank) || t->kind != kind ||
            (category != ANY_CATEGORY && t->category != category) ||
            (kind == WORK_TASK_COLL && op != ANY_OP && t->op != op))
            continue;
        c.n++;
        c.bytes += t->bytes;
        c.bytes_min = MIN(c.bytes_min, t->bytes);
        c.bytes_max = MAX(c.bytes_max, t->bytes);
    }
    return c;
}

/* ---- Tensor parallelism. ---- */

static const struct {
    bool sp;
    WorkRecompute recompute;
    uint64_t micro_batch, microbatches;
    uint32_t n_all_reduce, n_all_gather, n_reduce_scatter; /* per block and microbatch */
} tp_cases[] = {
    {false, WORK_RECOMPUTE_NONE, 1, 1, 4, 0, 0},      {true, WORK_RECOMPUTE_NONE, 1, 1, 0, 4, 4},
    {false, WORK_RECOMPUTE_FULL, 1, 1, 6, 0, 0},      {true, WORK_RECOMPUTE_FULL, 1, 1, 0, 6, 6},
    {false, WORK_RECOMPUTE_SELECTIVE, 1, 1, 4, 0, 0}, {false, WORK_RECOMPUTE_NONE, 2, 3, 4, 0, 0},
    {true, WORK_RECOMPUTE_NONE, 4, 2, 0, 4, 4},
};

/* tp 2, pp 1, dp 1: forward an all-reduce after the attention's output
 * projection and after the FFN, backward one after each of their input
 * gradients: 4 a block, each of b s h e bytes; sequence parallelism
 * turns each into an all-gather and a reduce-scatter of the same buffer
 * (nccl-tests' size: the gathered b s h e). Full recompute runs every
 * block's forward again, with its two collectives. Nothing else crosses
 * the tensor group; both ranks make the same calls. */
START_TEST(tp_collectives_per_block)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = layout_of(2, 1, 1, tp_cases[_i].microbatches);
    l.sp = tp_cases[_i].sp;
    l.recompute = tp_cases[_i].recompute;
    l.micro_batch = tp_cases[_i].micro_batch;
    l.global_batch = l.micro_batch * tp_cases[_i].microbatches;
    g_autofree char *what = g_strdup_printf("tp case %d", _i);
    g_autoptr(WorkStream) s = gen(m, &l, NULL, what);
    uint64_t act = l.micro_batch * l.seq_len * m->hidden_size * l.activation_bytes;
    uint64_t blocks = m->n_layers * tp_cases[_i].microbatches;
    static const CollOp ops[] = {COLL_OP_ALL_REDUCE, COLL_OP_ALL_GATHER, COLL_OP_REDUCE_SCATTER};
    uint32_t want[] = {tp_cases[_i].n_all_reduce, tp_cases[_i].n_all_gather,
                       tp_cases[_i].n_reduce_scatter};
    for (uint32_t rank = 0; rank < 2; rank++) {
        for (unsigned k = 0; k < G_N_ELEMENTS(ops); k++) {
            Count c = count(s, rank, WORK_TASK_COLL, WORK_CAT_TP, ops[k]);
            ck_assert_msg(c.n == want[k] * blocks, "%s, rank %u: %u %s, want %" G_GUINT64_FORMAT,
                          what, rank, c.n, coll_op_name(ops[k]), want[k] * blocks);
            ck_assert_msg(c.n == 0 || (c.bytes_min == act && c.bytes_max == act),
                          "%s, rank %u: %s of %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
                          " bytes, want %" G_GUINT64_FORMAT,
                          what, rank, coll_op_name(ops[k]), c.bytes_min, c.bytes_max, act);
        }
        Count all = count(s, rank, WORK_TASK_COLL, ANY_CATEGORY, ANY_OP);
        Count tp = count(s, rank, WORK_TASK_COLL, WORK_CAT_TP, ANY_OP);
        ck_assert_msg(all.n == tp.n, "%s: %u collectives besides tp", what, all.n - tp.n);
        ck_assert_uint_eq(count(s, rank, WORK_TASK_SEND, ANY_CATEGORY, ANY_OP).n, 0);
        ck_assert_uint_eq(count(s, rank, WORK_TASK_RECV, ANY_CATEGORY, ANY_OP).n, 0);
    }
    ck_assert_uint_eq(s->groups->len, 1);
}
END_TEST

/* ---- Pipeline parallelism. ---- */

/* pp 4, m microbatches: stage 0 sends m activations and receives m
 * gradients, stages 1 and 2 twice that, stage 3 receives m activations and
 * sends m gradients; each of b s h e / tp bytes (Megatron's scatter-gather)
 * to the neighbour stage's GPU of the same tensor rank. Without sequence
 * parallelism a received tensor is all-gathered over the tensor group (b
 * s h e, counted as pipeline time). */
static const struct {
    uint32_t tp;
    bool sp;
    WorkSchedule schedule;
    uint64_t m;
} pp_cases[] = {
    {1, false, WORK_SCHEDULE_1F1B, 4},  {1, false, WORK_SCHEDULE_GPIPE, 3},
    {2, false, WORK_SCHEDULE_1F1B, 4},  {2, true, WORK_SCHEDULE_1F1B, 8},
    {2, false, WORK_SCHEDULE_GPIPE, 2}, {1, false, WORK_SCHEDULE_1F1B, 2},
};

START_TEST(pp_transfers_per_stage)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    uint32_t tp = pp_cases[_i].tp, pp = 4;
    uint64_t mb = pp_cases[_i].m;
    WorkLayout l = layout_of(tp, pp, 1, mb);
    l.sp = pp_cases[_i].sp;
    l.schedule = pp_cases[_i].schedule;
    g_autofree char *what = g_strdup_printf("pp case %d", _i);
    g_autoptr(WorkStream) s = gen(m, &l, NULL, what);
    uint64_t act = l.micro_batch * l.seq_len * m->hidden_size * l.activation_bytes;
    for (uint32_t p = 0; p < pp; p++)
        for (uint32_t t = 0; t < tp; t++) {
            uint32_t rank = t + tp * p;
            uint32_t sides = (p > 0) + (p + 1 < pp);
            Count send = count(s, rank, WORK_TASK_SEND, WORK_CAT_PP, ANY_OP);
            Count recv = count(s, rank, WORK_TASK_RECV, WORK_CAT_PP, ANY_OP);
            ck_assert_msg(send.n == sides * mb && recv.n == sides * mb,
                          "%s, stage %u: %u sends, %u receives, want %" G_GUINT64_FORMAT, what, p,
                          send.n, recv.n, sides * mb);
            ck_assert_uint_eq(send.bytes_min, act / tp);
            ck_assert_uint_eq(send.bytes_max, act / tp);
            ck_assert_uint_eq(recv.bytes_min, act / tp);
            ck_assert_uint_eq(recv.bytes_max, act / tp);
            Count gather = count(s, rank, WORK_TASK_COLL, WORK_CAT_PP, COLL_OP_ALL_GATHER);
            uint32_t want = tp > 1 && !l.sp ? recv.n : 0;
            ck_assert_msg(gather.n == want, "%s, stage %u: %u all-gathers after receives", what, p,
                          gather.n);
            ck_assert(gather.n == 0 || (gather.bytes_min == act && gather.bytes_max == act));
            /* Activations go up, gradients down, within the tensor rank. */
            for (guint i = 0; i < s->tasks->len; i++) {
                const WorkTask *x = work_stream_task(s, i);
                if (x->rank != rank || (x->kind != WORK_TASK_SEND && x->kind != WORK_TASK_RECV))
                    continue;
                ck_assert_uint_eq(x->peer % tp, t);
                uint32_t peer_stage = x->peer / tp;
                ck_assert(peer_stage + 1 == p || peer_stage == p + 1);
                const char *label = work_stream_label(s, x);
                bool fwd = strncmp(label, "fwd", 3) == 0;
                bool up = peer_stage == p + 1;
                ck_assert_msg(fwd == (up == (x->kind == WORK_TASK_SEND)),
                              "%s: task %u (%s) on stage %u goes the wrong way", what, i, label, p);
            }
        }
}
END_TEST

/* ---- Data parallelism. ---- */

/* The stage's parameters on one GPU, as work-memory counts them. */
static uint64_t
stage_params(const WorkLayout *l, const WorkModel *m, uint32_t stage)
{
    WorkMemory mem;
    work_memory_stage(l, m, stage, &mem);
    return mem.n_params;
}

/* The tiny model with 1,024 tokens, a multiple of Megatron's vocabulary
 * padding (128 tp) for tp 1 and 2: the embedding the generator reduces
 * (the padded table) and the one work-memory counts (ceil(V / tp)
 * rows) are the same. */
static WorkModel *
tiny_model_1024(void)
{
    WorkModel *m = work_test_tiny_model();
    m->vocab_size = 1024;
    return m;
}

/* Gradient bytes rank reduces over its data-parallel group(s), by op. */
static Count
dp_count(const WorkStream *s, uint32_t rank, CollOp op)
{
    return count(s, rank, WORK_TASK_COLL, WORK_CAT_DP, op);
}

static const struct {
    WorkZero zero;
    bool overlap;
    bool tied;
    uint32_t tp;
} dp_cases[] = {
    {WORK_ZERO_0, true, true, 1},   {WORK_ZERO_0, false, true, 1}, {WORK_ZERO_0, true, false, 1},
    {WORK_ZERO_0, false, false, 1}, {WORK_ZERO_0, true, true, 2},  {WORK_ZERO_0, false, true, 2},
    {WORK_ZERO_1, true, true, 1},   {WORK_ZERO_1, false, true, 1}, {WORK_ZERO_2, true, false, 2},
    {WORK_ZERO_2, false, false, 2},
};

/* dp 2, pp 1: the gradients reduced over the data-parallel group are
 * exactly the GPU's parameters (the tied embedding once, the final norm
 * included), at grad_bytes: by all-reduce (ZeRO 0), or by reduce-scatter
 * followed, after the optimizer, by an all-gather of the same parameters
 * at param_bytes (ZeRO 1, 2). With overlap or not; tied or not; tp 1
 * or 2. */
START_TEST(dp_gradients_are_the_stage_parameters)
{
    g_autoptr(WorkModel) m = tiny_model_1024();
    m->tied_embeddings = dp_cases[_i].tied;
    WorkLayout l = layout_of(dp_cases[_i].tp, 1, 2, 2);
    l.zero = dp_cases[_i].zero;
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    o.dp_overlap = dp_cases[_i].overlap;
    o.symmetric = false;
    g_autofree char *what = g_strdup_printf("dp case %d (zero %d, overlap %d, tied %d, tp %u)", _i,
                                            l.zero, o.dp_overlap, m->tied_embeddings, l.tp);
    g_autoptr(WorkStream) s = gen(m, &l, &o, what);
    uint64_t n_params = stage_params(&l, m, 0);
    for (uint32_t rank = 0; rank < l.tp; rank++) {
        Count ar = dp_count(s, rank, COLL_OP_ALL_REDUCE);
        Count rs = dp_count(s, rank, COLL_OP_REDUCE_SCATTER);
        Count ag = dp_count(s, rank, COLL_OP_ALL_GATHER);
        if (l.zero == WORK_ZERO_0) {
            ck_assert_msg(ar.bytes == n_params * l.grad_bytes,
                          "%s, rank %u: all-reduced %" G_GUINT64_FORMAT
                          " bytes of gradients, the GPU holds %" G_GUINT64_FORMAT
                          " parameters (%" G_GUINT64_FORMAT " bytes)",
                          what, rank, ar.bytes, n_params, n_params * l.grad_bytes);
            ck_assert_uint_eq(rs.n + ag.n, 0);
        } else {
            ck_assert_uint_eq(ar.n, 0);
            ck_assert_msg(rs.bytes == n_params * l.grad_bytes,
                          "%s, rank %u: reduce-scattered %" G_GUINT64_FORMAT
                          " bytes, want %" G_GUINT64_FORMAT,
                          what, rank, rs.bytes, n_params * l.grad_bytes);
            ck_assert_msg(ag.bytes == n_params * l.param_bytes,
                          "%s, rank %u: all-gathered %" G_GUINT64_FORMAT
                          " bytes, want %" G_GUINT64_FORMAT,
                          what, rank, ag.bytes, n_params * l.param_bytes);
            ck_assert_uint_eq(rs.n, ag.n);
        }
    }
}
END_TEST

/* Overlapping the reduction with the backward changes when gradients
 * are reduced, not which: on the tiny model (1,000 tokens, padded to
 * 1,024 by Megatron) the bytes are the same with and without overlap. */
START_TEST(dp_overlap_reduces_the_same_gradients)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    uint32_t tp = _i + 1;
    WorkLayout l = layout_of(tp, 1, 2, 2);
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    g_autoptr(WorkStream) with = gen(m, &l, &o, "overlap");
    o.dp_overlap = false;
    g_autoptr(WorkStream) without = gen(m, &l, &o, "no overlap");
    uint64_t a = dp_count(with, 0, COLL_OP_ALL_REDUCE).bytes;
    uint64_t b = dp_count(without, 0, COLL_OP_ALL_REDUCE).bytes;
    ck_assert_msg(a == b,
                  "tp %u: all-reduces %" G_GUINT64_FORMAT " bytes with overlap, %" G_GUINT64_FORMAT
                  " without",
                  tp, a, b);
}
END_TEST

/* The stage-0 parameters at tp 1 by hand: 4 blocks of attention
 * 4 h^2 + 4 h = 16,640, FFN 2 h f + f + h = 33,088 and two LayerNorms
 * 4 h = 256 (49,984), the embedding 1,024 x 64 = 65,536, the positions
 * 128 x 64 = 8,192 and the final LayerNorm 128: 273,792. A bucket of
 * 40 M holds them all: ZeRO 0 makes one all-reduce of 4 bytes each, after
 * the last backward's embedding gradient. */
START_TEST(dp_one_bucket_by_hand)
{
    g_autoptr(WorkModel) m = tiny_model_1024();
    WorkLayout l = layout_of(1, 1, 2, 2);
    ck_assert_uint_eq(stage_params(&l, m, 0), 273792);
    g_autoptr(WorkStream) s = gen(m, &l, NULL, "one bucket");
    Count ar = dp_count(s, 0, COLL_OP_ALL_REDUCE);
    ck_assert_uint_eq(ar.n, 1);
    ck_assert_uint_eq(ar.bytes, 4 * 273792);
}
END_TEST

/* Small buckets split the same bytes: with bucket_params 60,000 the
 * blocks' gradients fill buckets as their backwards end. */
START_TEST(dp_buckets_split_the_same_bytes)
{
    g_autoptr(WorkModel) m = tiny_model_1024();
    WorkLayout l = layout_of(1, 1, 2, 2);
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    o.bucket_params = 60000;
    g_autoptr(WorkStream) s = gen(m, &l, &o, "small buckets");
    Count ar = dp_count(s, 0, COLL_OP_ALL_REDUCE);
    uint64_t n_params = stage_params(&l, m, 0);
    ck_assert_uint_gt(ar.n, 1);
    ck_assert_msg(ar.bytes == n_params * l.grad_bytes,
                  "all-reduced %" G_GUINT64_FORMAT " bytes in %u buckets, want %" G_GUINT64_FORMAT,
                  ar.bytes, ar.n, n_params * l.grad_bytes);
}
END_TEST

/* Whether task `dep` is among task i's dependencies. */
static bool
depends_on(const WorkStream *s, uint32_t i, uint32_t dep)
{
    const WorkTask *t = work_stream_task(s, i);
    for (uint32_t k = 0; k < t->n_deps; k++)
        if (g_array_index(s->deps, uint32_t, t->dep0 + k) == dep)
            return true;
    return false;
}

/* ZeRO 1 with dp_overlap (Megatron-Core's --overlap-param-gather): the
 * step starts with the parameter all-gathers, in forward order, one after
 * the other, and the first microbatch's forward waits for each before the
 * first block it holds. By hand, buckets of 60,000 parameters in forward
 * order: the embedding (1,024 x 64 + 128 x 64 = 73,728) with block 0
 * (49,984), 123,712; blocks 1 and 2, 99,968; block 3 with the final
 * LayerNorm (128), 50,112: 273,792 in all, 2 bytes each. Without
 * overlap the same bytes are gathered after the optimizer. */
START_TEST(dp_param_gathers_run_under_the_next_forward)
{
    g_autoptr(WorkModel) m = tiny_model_1024();
    WorkLayout l = layout_of(1, 1, 2, 2);
    l.zero = WORK_ZERO_1;
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    o.bucket_params = 60000;
    o.symmetric = false;
    static const uint64_t params[] = {123712, 99968, 50112};
    for (int overlap = 1; overlap >= 0; overlap--) {
        o.dp_overlap = overlap;
        g_autoptr(WorkStream) s = gen(m, &l, &o, overlap ? "early gathers" : "late gathers");
        uint32_t gathers[8], n = 0, first_compute = WORK_NONE, optimizer = WORK_NONE;
        for (guint i = 0; i < s->tasks->len; i++) {
            const WorkTask *t = work_stream_task(s, i);
            if (t->rank != 0)
                continue;
            if (t->kind == WORK_TASK_COLL && t->category == WORK_CAT_DP &&
                t->op == COLL_OP_ALL_GATHER) {
                ck_assert_uint_lt(n, G_N_ELEMENTS(gathers));
                gathers[n++] = i;
            } else if (t->kind == WORK_TASK_COMPUTE && first_compute == WORK_NONE) {
                first_compute = i;
            }
            if (strcmp(work_stream_label(s, t), "optimizer") == 0)
                optimizer = i;
        }
        ck_assert_uint_ne(optimizer, WORK_NONE);
        uint64_t total = 0;
        for (uint32_t k = 0; k < n; k++)
            total += work_stream_task(s, gathers[k])->bytes;
        ck_assert_uint_eq(total, 273792 * l.param_bytes);
        if (!overlap) {
            for (uint32_t k = 0; k < n; k++)
                ck_assert(depends_on(s, gathers[k], optimizer));
            continue;
        }
        ck_assert_uint_eq(n, G_N_ELEMENTS(params));
        for (uint32_t k = 0; k < n; k++) {
            const WorkTask *t = work_stream_task(s, gathers[k]);
            ck_assert_msg(t->bytes == params[k] * l.param_bytes,
                          "gather %u: %" G_GUINT64_FORMAT " bytes, want %" G_GUINT64_FORMAT, k,
                          t->bytes, params[k] * l.param_bytes);
            ck_assert_uint_eq(t->n_deps, k == 0 ? 0 : 1);
            ck_assert(k == 0 || depends_on(s, gathers[k], gathers[k - 1]));
            ck_assert_uint_lt(gathers[k], first_compute);
        }
        ck_assert_msg(depends_on(s, first_compute, gathers[0]),
                      "the embedding's forward does not wait for the first gather");
    }
}
END_TEST

/* Experts that one replica alone holds (ep = dp) have no gradient to
 * reduce and no parameters to gather: with two experts on ep 2 and dp 2,
 * the early gathers are the dense parameters' alone, over the whole
 * data-parallel group. */
START_TEST(dp_early_gathers_skip_unshared_experts)
{
    g_autoptr(WorkModel) m = tiny_model_1024();
    m->n_experts = 2;
    m->top_k = 1;
    m->moe_ffn_hidden_size = m->ffn_hidden_size;
    WorkLayout l = layout_of(1, 1, 2, 2);
    l.ep = 2;
    l.zero = WORK_ZERO_1;
    g_autoptr(WorkStream) s = gen(m, &l, NULL, "unshared experts");
    uint64_t dense, expert;
    work_memory_block_params(&l, m, &dense, &expert);
    ck_assert_uint_gt(expert, 0);
    uint64_t gathered = 0;
    for (guint i = 0; i < s->tasks->len; i++) {
        const WorkTask *t = work_stream_task(s, i);
        if (t->rank != 0 || t->kind != WORK_TASK_COLL || t->category != WORK_CAT_DP ||
            t->op != COLL_OP_ALL_GATHER)
            continue;
        const WorkGroup *g = s->groups->pdata[t->group];
        ck_assert_uint_eq(g->n_ranks, 2);
        gathered += t->bytes;
    }
    uint64_t n_params = stage_params(&l, m, 0), experts = m->n_layers * expert;
    ck_assert_uint_eq(gathered, (n_params - experts) * l.param_bytes);
}
END_TEST

/* pp 2, dp 2, tied embeddings: each stage reduces its own parameters
 * over its data-parallel group (stage 1 the embedding's copy and the
 * final norm among them), and the first and last stages all-reduce the
 * embedding's gradient between them: V h / tp at grad_bytes, once. */
START_TEST(dp_pipeline_stages_and_tied_embedding)
{
    g_autoptr(WorkModel) m = tiny_model_1024();
    WorkLayout l = layout_of(1, 2, 2, 2);
    g_autoptr(WorkStream) s = gen(m, &l, NULL, "pp 2 dp 2");
    for (uint32_t p = 0; p < 2; p++) {
        uint32_t rank = p * 2; /* t 0, d 0 */
        uint64_t n_params = stage_params(&l, m, p);
        uint64_t dp_bytes = 0, embed_bytes = 0;
        uint32_t n_embed = 0;
        for (guint i = 0; i < s->tasks->len; i++) {
            const WorkTask *t = work_stream_task(s, i);
            if (t->rank != rank || t->kind != WORK_TASK_COLL || t->category != WORK_CAT_DP)
                continue;
            const WorkGroup *g = s->groups->pdata[t->group];
            ck_assert_uint_eq(g->n_ranks, 2);
            if (g->ranks[0] == 0 && g->ranks[1] == 2) {
                n_embed++;
                embed_bytes += t->bytes;
            } else {
                ck_assert_uint_eq(g->ranks[0], rank);
                ck_assert_uint_eq(g->ranks[1], rank + 1);
                dp_bytes += t->bytes;
            }
        }
        ck_assert_msg(dp_bytes == n_params * l.grad_bytes,
                      "stage %u: reduced %" G_GUINT64_FORMAT
                      " bytes over dp, the GPU holds %" G_GUINT64_FORMAT
                      " parameters (%" G_GUINT64_FORMAT " bytes)",
                      p, dp_bytes, n_params, n_params * l.grad_bytes);
        ck_assert_uint_eq(n_embed, 1);
        ck_assert_uint_eq(embed_bytes, m->vocab_size * m->hidden_size * l.grad_bytes);
    }
}
END_TEST

/* ZeRO 3, dp 2, m microbatches: each block's parameters are all-gathered
 * before its forward and its backward of every microbatch (2 l m
 * gathers of a block's parameters at param_bytes), and every gradient is
 * reduce-scattered once, the output head's and the final norm's too; no
 * all-reduce, no gather after the optimizer. Tied or untied, with
 * overlap or not. */
static const struct {
    bool tied, overlap;
} zero3_cases[] = {{true, true}, {false, true}, {true, false}, {false, false}};

START_TEST(dp_zero3_gathers_every_block_twice)
{
    g_autoptr(WorkModel) m = tiny_model_1024();
    m->tied_embeddings = zero3_cases[_i].tied;
    uint64_t mb = 3;
    WorkLayout l = layout_of(1, 1, 2, mb);
    l.zero = WORK_ZERO_3;
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    o.dp_overlap = zero3_cases[_i].overlap;
    g_autofree char *what = g_strdup_printf("zero 3 case %d (tied %d, overlap %d)", _i,
                                            m->tied_embeddings, o.dp_overlap);
    g_autoptr(WorkStream) s = gen(m, &l, &o, what);
    uint64_t dense, expert;
    work_memory_block_params(&l, m, &dense, &expert);
    ck_assert_uint_eq(dense, 49984);
    ck_assert_uint_eq(expert, 0);
    Count ag = dp_count(s, 0, COLL_OP_ALL_GATHER);
    ck_assert_uint_eq(ag.n, 2 * m->n_layers * mb);
    ck_assert_uint_eq(ag.bytes_min, dense * l.param_bytes);
    ck_assert_uint_eq(ag.bytes_max, dense * l.param_bytes);
    ck_assert_uint_eq(dp_count(s, 0, COLL_OP_ALL_REDUCE).n, 0);
    Count rs = dp_count(s, 0, COLL_OP_REDUCE_SCATTER);
    uint64_t n_params = stage_params(&l, m, 0);
    ck_assert_msg(rs.bytes == n_params * l.grad_bytes,
                  "%s: reduce-scattered %" G_GUINT64_FORMAT
                  " bytes in %u calls, the GPU holds %" G_GUINT64_FORMAT
                  " parameters (%" G_GUINT64_FORMAT " bytes)",
                  what, rs.bytes, rs.n, n_params, n_params * l.grad_bytes);
}
END_TEST

/* FSDP on the same model, dp 2 and 3 microbatches: every block's
 * parameters gathered before its forward and its backward in every
 * microbatch (2 x 4 x 3), and its gradients reduce-scattered after every
 * microbatch's backward (4 x 3 of the block's 49,984 parameters), where
 * ZeRO 3 reduces once: a call a block and microbatch at least (the last
 * backward's first may carry the head's gradients too), the rest of the
 * stage's gradients once. With or without overlap the same bytes. In the
 * backward the next block's gather is issued one block ahead. */
START_TEST(dp_fsdp_scatters_every_microbatch)
{
    g_autoptr(WorkModel) m = tiny_model_1024();
    uint64_t mb = 3;
    WorkLayout l = layout_of(1, 1, 2, mb);
    l.zero = WORK_ZERO_3;
    l.fsdp = true;
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    o.dp_overlap = _i == 0;
    o.symmetric = false;
    g_autoptr(WorkStream) s = gen(m, &l, &o, "fsdp");
    uint64_t dense, expert;
    work_memory_block_params(&l, m, &dense, &expert);
    Count ag = dp_count(s, 0, COLL_OP_ALL_GATHER);
    ck_assert_uint_eq(ag.n, 2 * m->n_layers * mb);
    ck_assert_uint_eq(ag.bytes, 2 * m->n_layers * mb * dense * l.param_bytes);
    Count rs = dp_count(s, 0, COLL_OP_REDUCE_SCATTER);
    uint64_t n_params = stage_params(&l, m, 0), rest = n_params - m->n_layers * dense;
    ck_assert_uint_eq(rs.bytes, (m->n_layers * mb * dense + rest) * l.grad_bytes);
    ck_assert_uint_ge(rs.n, m->n_layers * mb);
    /* Backward prefetch: the gather a block's backward waits for is issued
     * before the backward of the block before it starts (so ahead of that
     * block's reduce-scatter on the communicator). */
    uint32_t prev = WORK_NONE, n_checked = 0;
    for (guint i = 0; i < s->tasks->len; i++) {
        const WorkTask *t = work_stream_task(s, i);
        if (t->rank != 0 || t->kind != WORK_TASK_COMPUTE)
            continue;
        const char *label = work_stream_label(s, t);
        uint32_t gather = WORK_NONE;
        for (uint32_t k = 0; k < t->n_deps; k++) {
            const WorkTask *d = work_stream_task(s, g_array_index(s->deps, uint32_t, t->dep0 + k));
            if (d->kind == WORK_TASK_COLL && d->op == COLL_OP_ALL_GATHER)
                gather = g_array_index(s->deps, uint32_t, t->dep0 + k);
        }
        if (gather == WORK_NONE)
            continue;
        if (strncmp(label, "bwd", 3) == 0 && prev != WORK_NONE &&
            strcmp(work_stream_label(s, work_stream_task(s, prev)), label) == 0) {
            ck_assert_msg(gather < prev, "%s: task %u waits for gather %u, issued after %u", label,
                          i, gather, prev);
            n_checked++;
        }
        prev = i;
    }
    ck_assert_uint_eq(n_checked, (m->n_layers - 1) * mb);
}
END_TEST

/* ---- Replay of generated steps. ---- */

static uint64_t
replay_step(const WorkStream *s, const char *what, uint64_t time_ps[WORK_N_TIMES])
{
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    WorkReplayResult res;
    work_test_replay(&f, s, what, &res);
    uint64_t step = res.step_ps;
    if (time_ps != NULL)
        memcpy(time_ps, res.time_ps, sizeof res.time_ps);
    work_replay_result_clear(&res);
    work_test_fabric_clear(&f);
    return step;
}

static const struct {
    uint32_t tp, pp, dp;
    WorkZero zero;
    uint32_t cp;
} sym_cases[] = {
    {1, 1, 2, WORK_ZERO_0, 1}, {2, 1, 2, WORK_ZERO_0, 1}, {1, 2, 2, WORK_ZERO_1, 1},
    {2, 2, 2, WORK_ZERO_0, 1}, {1, 1, 4, WORK_ZERO_3, 1}, {1, 1, 8, WORK_ZERO_2, 1},
    {1, 1, 2, WORK_ZERO_1, 2}, {2, 2, 1, WORK_ZERO_0, 2}, {1, 1, 2, WORK_ZERO_3, 4},
};

/* Detailing tensor rank 0 of data replica 0 only (the others its
 * replicas) or every rank gives the same step and breakdown on one DGX
 * H100, whose replicas' links are their own. */
START_TEST(symmetric_equals_full)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = layout_of(sym_cases[_i].tp, sym_cases[_i].pp, sym_cases[_i].dp, 2);
    l.zero = sym_cases[_i].zero;
    l.cp = sym_cases[_i].cp;
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    g_autofree char *what = g_strdup_printf("symmetric case %d", _i);
    g_autoptr(WorkStream) sym = gen(m, &l, &o, what);
    o.symmetric = false;
    g_autoptr(WorkStream) full = gen(m, &l, &o, what);
    ck_assert_uint_eq(sym->replicas[0].count, l.dp);
    ck_assert_uint_eq(sym->replicas[0].stride, l.dp > 1 ? l.tp * l.cp : 0);
    ck_assert_uint_eq(sym->replicas[1].count, l.tp);
    ck_assert_uint_eq(sym->replicas[1].stride, l.tp > 1 ? 1 : 0);
    ck_assert_uint_eq(work_stream_n_copies(full), 1);
    ck_assert_uint_eq(full->tasks->len, l.dp * l.tp * sym->tasks->len);
    uint64_t t_sym[WORK_N_TIMES], t_full[WORK_N_TIMES];
    uint64_t s1 = replay_step(sym, what, t_sym), s2 = replay_step(full, what, t_full);
    ck_assert_msg(s1 == s2, "%s: symmetric %" G_GUINT64_FORMAT " ps, full %" G_GUINT64_FORMAT, what,
                  s1, s2);
    for (int k = 0; k < WORK_N_TIMES; k++)
        ck_assert_msg(t_sym[k] == t_full[k], "%s: %s %" G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT,
                      what, work_time_name(k), t_sym[k], t_full[k]);
}
END_TEST

/* ---- Tensor-parallel overlap (userbuffers). ---- */

/* The task after task i on its rank that is compute, or WORK_NONE. */
static uint32_t
next_compute(const WorkStream *s, uint32_t i)
{
    uint32_t rank = work_stream_task(s, i)->rank;
    for (guint j = i + 1; j < s->tasks->len; j++) {
        const WorkTask *t = work_stream_task(s, j);
        if (t->rank == rank && t->kind == WORK_TASK_COMPUTE)
            return j;
    }
    return WORK_NONE;
}

static bool
waits_for(const WorkStream *s, uint32_t task, uint32_t dep)
{
    const WorkTask *t = work_stream_task(s, task);
    for (uint32_t d = 0; d < t->n_deps; d++)
        if (g_array_index(s->deps, uint32_t, t->dep0 + d) == dep)
            return true;
    return false;
}

/* tp 2 with sequence parallelism and tp_overlap, by hand (Transformer
 * Engine's userbuffers): each all-gather (2 a block a pass) holds 1 SM
 * and runs beside the one GEMM after it, the compute after that GEMM
 * waiting for it; the forward's reduce-scatters are each two, the first 3
 * splits' b s h e - b s h e / 4 bytes beside the GEMM and the last one's
 * b s h e / 4 after it, and the backward's one of b s h e beside the
 * weight gradient (the compute after next waiting for it), all on 16 SMs;
 * the bytes reduced are the same as without overlap. Replayed, less of
 * the tensor-parallel time is exposed. */
START_TEST(tp_overlap_beside_gemms)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = layout_of(2, 1, 1, 2);
    l.sp = true;
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    o.symmetric = false;
    g_autoptr(WorkStream) plain = gen(m, &l, &o, "tp 2 sp");
    o.tp_overlap = true;
    g_autoptr(WorkStream) s = gen(m, &l, &o, "tp 2 sp overlapped");
    uint64_t act = l.micro_batch * l.seq_len * m->hidden_size * l.activation_bytes;
    uint64_t blocks = m->n_layers * 2;
    for (uint32_t rank = 0; rank < 2; rank++) {
        Count ag = count(s, rank, WORK_TASK_COLL, WORK_CAT_TP, COLL_OP_ALL_GATHER);
        Count rs = count(s, rank, WORK_TASK_COLL, WORK_CAT_TP, COLL_OP_REDUCE_SCATTER);
        Count rs_plain = count(plain, rank, WORK_TASK_COLL, WORK_CAT_TP, COLL_OP_REDUCE_SCATTER);
        ck_assert_uint_eq(ag.n, 4 * blocks);
        ck_assert_uint_eq(rs.n, 6 * blocks);
        ck_assert_uint_eq(rs.bytes, rs_plain.bytes);
        ck_assert_uint_eq(rs.bytes, 4 * blocks * act);
    }
    uint32_t n_beside = 0, n_after = 0;
    for (guint i = 0; i < s->tasks->len; i++) {
        const WorkTask *t = work_stream_task(s, i);
        if (t->kind != WORK_TASK_COLL || t->category != WORK_CAT_TP)
            continue;
        uint32_t c1 = next_compute(s, i), c2 = next_compute(s, c1);
        ck_assert(c1 != WORK_NONE && c2 != WORK_NONE);
        if (t->op == COLL_OP_ALL_GATHER) {
            ck_assert_uint_eq(t->bytes, act);
            ck_assert_uint_eq(t->sms, 1);
        } else {
            ck_assert_uint_eq(t->sms, 16);
            ck_assert(t->bytes == act || t->bytes == act - act / 4 || t->bytes == act / 4);
        }
        if (t->bytes == act / 4) {
            ck_assert_msg(waits_for(s, c1, i), "task %u: the last split's compute waits", i);
            n_after++;
        } else {
            ck_assert_msg(!waits_for(s, c1, i) && waits_for(s, c2, i),
                          "task %u (%s of %" G_GUINT64_FORMAT " bytes): beside task %u, before %u",
                          i, coll_op_name(t->op), t->bytes, c1, c2);
            n_beside++;
        }
    }
    ck_assert_uint_eq(n_after, 2 * 2 * blocks);
    ck_assert_uint_eq(n_beside, 2 * 8 * blocks);
    uint64_t t_plain[WORK_N_TIMES], t_overlap[WORK_N_TIMES];
    replay_step(plain, "tp 2 sp", t_plain);
    replay_step(s, "tp 2 sp overlapped", t_overlap);
    ck_assert_msg(t_overlap[WORK_TIME_TP] < t_plain[WORK_TIME_TP],
                  "exposed TP %" G_GUINT64_FORMAT " ps overlapped, %" G_GUINT64_FORMAT " not",
                  t_overlap[WORK_TIME_TP], t_plain[WORK_TIME_TP]);
}
END_TEST

/* ---- Context parallelism. ---- */

static const struct {
    uint32_t cp, tp;
    WorkRecompute recompute;
} cp_cases[] = {
    {2, 1, WORK_RECOMPUTE_NONE},
    {4, 1, WORK_RECOMPUTE_NONE},
    {2, 2, WORK_RECOMPUTE_FULL},
    {4, 1, WORK_RECOMPUTE_SELECTIVE},
};

/* Ring attention's transfers, by hand (Transformer Engine's
 * AttnFuncWithCPAndKVP2P): forward, a block's keys and values pass cp - 1
 * times round the ring of context-parallel ranks; backward cp - 1 times
 * again, and the gradient of each block's keys and values cp times, back
 * to its owner; a recomputed forward (full, or selective's attention core)
 * passes them again. Every transfer carries one rank's keys and values,
 * b (s / cp) 2 (kv_heads / tp) d e bytes, to the next rank of the ring
 * (tp apart), and the receives match. */
START_TEST(cp_ring_exchanges_per_block)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    uint32_t cp = cp_cases[_i].cp, tp = cp_cases[_i].tp;
    WorkLayout l = layout_of(tp, 1, 1, 2);
    l.cp = cp;
    l.recompute = cp_cases[_i].recompute;
    g_autofree char *what = g_strdup_printf("cp case %d (cp %u, tp %u)", _i, cp, tp);
    g_autoptr(WorkStream) s = gen(m, &l, NULL, what);
    uint64_t per_pass = cp - 1, recomputed = l.recompute != WORK_RECOMPUTE_NONE ? per_pass : 0;
    uint64_t per_block = per_pass + recomputed + per_pass + cp;
    uint64_t want = m->n_layers * work_layout_microbatches(&l) * per_block;
    uint64_t head = m->hidden_size / m->n_heads;
    uint64_t bytes = l.micro_batch * (l.seq_len / cp) * 2 * (m->n_kv_heads / tp) * head * 2;
    for (uint32_t rank = 0; rank < tp * cp; rank++) {
        Count sends = count(s, rank, WORK_TASK_SEND, WORK_CAT_CP, ANY_OP);
        Count recvs = count(s, rank, WORK_TASK_RECV, WORK_CAT_CP, ANY_OP);
        ck_assert_msg(sends.n == want && recvs.n == want,
                      "%s, rank %u: %u sends, %u receives; want %" G_GUINT64_FORMAT, what, rank,
                      sends.n, recvs.n, want);
        ck_assert_uint_eq(sends.bytes_min, bytes);
        ck_assert_uint_eq(sends.bytes_max, bytes);
        ck_assert_uint_eq(recvs.bytes, sends.bytes);
    }
    for (guint i = 0; i < s->tasks->len; i++) {
        const WorkTask *t = work_stream_task(s, i);
        if (t->category != WORK_CAT_CP)
            continue;
        uint32_t c = t->rank / tp, next = (c + 1) % cp, prev = (c + cp - 1) % cp;
        uint32_t peer = t->rank % tp + tp * (t->kind == WORK_TASK_SEND ? next : prev);
        ck_assert_uint_eq(t->peer, peer);
    }
}
END_TEST

/* The context-parallel ranks hold the same weights: gradients are
 * reduced over dp x cp ranks (Megatron-Core's data-parallel group with
 * cp), the stage's parameters in all, even with dp 1; the distributed
 * optimizer gathers them back over the same ranks. */
START_TEST(cp_gradients_over_dp_and_cp)
{
    g_autoptr(WorkModel) m = tiny_model_1024();
    static const uint32_t dps[] = {1, 2};
    WorkLayout l = layout_of(1, 1, dps[_i], 2);
    l.cp = 2;
    l.zero = WORK_ZERO_1;
    g_autoptr(WorkStream) s = gen(m, &l, NULL, "cp 2 zero 1");
    uint64_t n_params = stage_params(&l, m, 0);
    for (uint32_t rank = 0; rank < work_layout_gpus(&l); rank++) {
        Count rs = dp_count(s, rank, COLL_OP_REDUCE_SCATTER);
        Count ag = dp_count(s, rank, COLL_OP_ALL_GATHER);
        ck_assert_uint_eq(rs.bytes, n_params * l.grad_bytes);
        ck_assert_uint_eq(ag.bytes, n_params * l.param_bytes);
    }
    for (guint i = 0; i < s->tasks->len; i++) {
        const WorkTask *t = work_stream_task(s, i);
        if (t->kind == WORK_TASK_COLL && t->category == WORK_CAT_DP) {
            const WorkGroup *g = s->groups->pdata[t->group];
            ck_assert_uint_eq(g->n_ranks, work_layout_grad_ranks(&l));
        }
    }
}
END_TEST

/* ---- Schedules. ---- */

/* A model whose blocks dominate: 8 wide layers, a small vocabulary. */
static WorkModel *
wide_model(void)
{
    WorkModel *m = work_test_tiny_model();
    m->n_layers = 8;
    m->hidden_size = 2048;
    m->ffn_hidden_size = 8192;
    m->n_heads = 16;
    m->n_kv_heads = 16;
    m->vocab_size = 1024;
    m->seq_len = 1024;
    return m;
}

typedef struct SchedRun {
    uint64_t step_ps;
    uint64_t time_ps[WORK_N_TIMES];
    uint32_t n_compute;
    uint64_t flops;
    uint32_t n_transfers;
} SchedRun;

static SchedRun
run_schedule(const WorkModel *m, WorkSchedule schedule, uint32_t vp, uint32_t pp, uint64_t mb)
{
    WorkLayout l = layout_of(1, pp, 1, mb);
    l.seq_len = m->seq_len;
    l.schedule = schedule;
    l.vp = vp;
    g_autofree char *what = g_strdup_printf("schedule %d vp %u", schedule, vp);
    g_autoptr(WorkStream) s = gen(m, &l, NULL, what);
    SchedRun run = {0};
    run.step_ps = replay_step(s, what, run.time_ps);
    for (guint i = 0; i < s->tasks->len; i++) {
        const WorkTask *t = work_stream_task(s, i);
        if (t->kind == WORK_TASK_COMPUTE) {
            run.n_compute++;
            run.flops += t->flops;
        }
        run.n_transfers += t->kind == WORK_TASK_SEND;
    }
    return run;
}

/* pp 4, m 8 microbatches of wide blocks. GPipe and 1F1B have the same
 * bubble, (p - 1) / (m + p - 1) of the step within 0.01: their steps
 * differ by no more than the transfers they expose. The interleaved
 * schedule (vp 2) would save (p - 1) / m (1 - 1 / vp) of the compute with
 * free transfers; it crosses twice the stage boundaries, so it saves more
 * than half of that and never more. Every schedule runs the same compute
 * tasks and FLOPs. */
START_TEST(schedules_same_work_bubbles_as_expected)
{
    g_autoptr(WorkModel) m = wide_model();
    uint32_t pp = 4;
    uint64_t mb = 8;
    SchedRun gp = run_schedule(m, WORK_SCHEDULE_GPIPE, 1, pp, mb);
    SchedRun ofob = run_schedule(m, WORK_SCHEDULE_1F1B, 1, pp, mb);
    SchedRun il = run_schedule(m, WORK_SCHEDULE_INTERLEAVED, 2, pp, mb);
    ck_assert_uint_eq(gp.n_compute, ofob.n_compute);
    ck_assert_uint_eq(gp.n_compute, il.n_compute);
    ck_assert_uint_eq(gp.flops, ofob.flops);
    ck_assert_uint_eq(gp.flops, il.flops);
    ck_assert_uint_eq(gp.n_transfers, ofob.n_transfers);
    /* Interleaving doubles the stage boundaries a microbatch crosses
     * (2 pp - 1 instead of pp - 1, each way). */
    ck_assert_uint_eq(gp.n_transfers, 2 * (pp - 1) * mb);
    ck_assert_uint_eq(il.n_transfers, 2 * (2 * pp - 1) * mb);
    /* The compute time per GPU is the same; the steps differ by the
     * bubble. */
    uint64_t compute = gp.time_ps[WORK_TIME_COMPUTE];
    ck_assert_uint_eq(ofob.time_ps[WORK_TIME_COMPUTE], compute);
    double ideal = (double)(pp - 1) / (double)(mb + pp - 1);
    double bubble_gp = 1.0 - (double)compute / (double)gp.step_ps;
    double bubble_1f1b = 1.0 - (double)compute / (double)ofob.step_ps;
    ck_assert_msg(
        G_APPROX_VALUE(bubble_gp, ideal, 0.01) && G_APPROX_VALUE(bubble_1f1b, ideal, 0.01),
        "bubbles: gpipe %.4f, 1f1b %.4f, closed form %.4f", bubble_gp, bubble_1f1b, ideal);
    uint64_t apart =
        gp.step_ps > ofob.step_ps ? gp.step_ps - ofob.step_ps : ofob.step_ps - gp.step_ps;
    ck_assert_msg(apart <= MAX(gp.time_ps[WORK_TIME_PP], ofob.time_ps[WORK_TIME_PP]),
                  "gpipe %" G_GUINT64_FORMAT " ps, 1f1b %" G_GUINT64_FORMAT
                  " ps: more apart than their exposed transfers",
                  gp.step_ps, ofob.step_ps);
    /* Interleaving saves compute (p - 1) / m (1 - 1 / vp) when transfers
     * are free; it pays twice the transfers, so it saves somewhat less. */
    ck_assert_uint_eq(il.time_ps[WORK_TIME_COMPUTE], compute);
    double ideal_saving = (double)compute * (pp - 1) / (double)mb * (1.0 - 1.0 / 2);
    double saving = (double)MIN(gp.step_ps, ofob.step_ps) - (double)il.step_ps;
    ck_assert_msg(saving > 0.5 * ideal_saving && saving <= ideal_saving,
                  "interleaved %" G_GUINT64_FORMAT " ps, gpipe %" G_GUINT64_FORMAT
                  ", 1f1b %" G_GUINT64_FORMAT ": saves %.0f ps of the ideal %.0f",
                  il.step_ps, gp.step_ps, ofob.step_ps, saving, ideal_saving);
}
END_TEST

/* ---- Uneven stages. ---- */

typedef void (*OpsFn)(GArray *, WorkPass, const WorkModel *, const WorkLayout *,
                      const WorkComputeConfig *);

/* The time of one pass of fn's kernels on gpu, as the generator sums them
 * at efficiency 1. */
static uint64_t
pass_ps(OpsFn fn, WorkPass pass, const WorkModel *m, const WorkLayout *l,
        const WorkComputeConfig *config, const HwGpu *gpu)
{
    GArray *ops = work_compute_ops_new();
    fn(ops, pass, m, l, config);
    uint64_t ps = work_compute_ops_ps(ops, gpu);
    g_array_unref(ops);
    return ps;
}

/* The optimizer step of stage (no ZeRO: over all its parameters). */
static uint64_t
optimizer_ps(const WorkModel *m, const WorkLayout *l, uint32_t stage, const HwGpu *gpu)
{
    WorkMemory mem;
    work_memory_stage(l, m, stage, &mem);
    GArray *ops = work_compute_ops_new();
    work_compute_optimizer(ops, l, mem.n_params, mem.n_params);
    uint64_t ps = work_compute_ops_ps(ops, gpu);
    g_array_unref(ops);
    return ps;
}

/* One transfer of bytes from GPU a to b alone, as the replayer runs it. */
static uint64_t
transfer_alone_ps(const WorkTestFabric *f, uint32_t a, uint32_t b, uint64_t bytes)
{
    g_autoptr(WorkStream) s = work_stream_new(8);
    WorkTask t = {.kind = WORK_TASK_SEND,
                  .category = WORK_CAT_PP,
                  .rank = a,
                  .group = WORK_NONE,
                  .peer = b,
                  .bytes = bytes};
    work_stream_add(s, &t, NULL, 0, NULL);
    t = (WorkTask){.kind = WORK_TASK_RECV,
                   .category = WORK_CAT_PP,
                   .rank = b,
                   .group = WORK_NONE,
                   .peer = a,
                   .bytes = bytes};
    work_stream_add(s, &t, NULL, 0, NULL);
    WorkReplayResult res;
    work_test_replay(f, s, "one transfer", &res);
    uint64_t ps = res.step_ps;
    work_replay_result_clear(&res);
    return ps;
}

/* The wide model's 8 layers split unevenly, tp 1 and dp 1 (no tensor- or
 * data-parallel collectives; untied embeddings, so no embedding
 * all-reduce either), m = 4 microbatches of 1F1B at efficiency 1. Stage
 * p's forward F_p and backward B_p are its blocks' passes, n_p f and n_p b,
 * plus the embedding's on the first stage and the output layer's on the
 * last; O_p is its optimizer step and T one transfer of b s h e between
 * neighbours alone. When the last stage is the slowest (F_0 + B_0 + 2 T <=
 * F_1 + B_1), it runs without a gap once its first input has come
 * (F_0 + T after the start, more stages adding their forwards and T each)
 * and sets the steady state: the step is the other stages' passes, the
 * transfers and m (F_k + B_k) of the slowest stage k, then the optimizer
 * that ends last; with pp 2:
 *   F_0 + T + m (F_1 + B_1) + max(T + B_0 + O_0, O_1),
 * and with pp 3 (stages of 1, 2, 5 layers):
 *   F_0 + F_1 + 2 T + m (F_2 + B_2) + max(2 T + B_1 + B_0 + O_0, T + B_1 + O_1, O_2).
 * When the first stage is the slowest (F_0 >= F_1 + B_1 + 2 T), it never
 * waits: m (F_0 + B_0) + O_0, unless the last stage ends later, its last
 * backward starting T after stage 0's last forward, 2 B_0 before stage 0's
 * end. The even split (4, 4) is the textbook (m + pp - 1)(F + B) and is
 * not tested here. */
static const struct {
    uint32_t pp, first, last;
} uneven_cases[] = {{2, 2, 6}, {3, 1, 5}, {2, 7, 1}};

START_TEST(uneven_1f1b_step_is_the_closed_form)
{
    uint32_t pp = uneven_cases[_i].pp, m = 4;
    g_autoptr(WorkModel) model = wide_model();
    model->tied_embeddings = false;
    WorkLayout l = layout_of(1, pp, 1, m);
    l.seq_len = model->seq_len;
    l.first_stage_layers = uneven_cases[_i].first;
    l.last_stage_layers = uneven_cases[_i].last;
    g_autofree char *what = g_strdup_printf("uneven case %d (pp %u: %u, ..., %u)", _i, pp,
                                            l.first_stage_layers, l.last_stage_layers);
    WorkTestFabric f;
    work_test_fabric_load(&f, "dgx-h100", 1);
    WorkGenOptions o;
    work_gen_options_init(&o, model);
    o.symmetric = false;
    o.compute_efficiency = 1.0;
    g_autoptr(WorkStream) s = gen(model, &l, &o, what);
    const HwGpu *gpu = f.system->gpu;
    const WorkComputeConfig *cc = &o.compute;
    uint64_t fb = pass_ps(work_compute_block, WORK_PASS_FORWARD, model, &l, cc, gpu);
    uint64_t bb = pass_ps(work_compute_block, WORK_PASS_BACKWARD, model, &l, cc, gpu);
    uint64_t F[3], B[3], O[3];
    for (uint32_t p = 0; p < pp; p++) {
        uint64_t n = work_pipeline_stage_layers(&l, model, p);
        F[p] = n * fb;
        B[p] = n * bb;
        O[p] = optimizer_ps(model, &l, p, gpu);
    }
    F[0] += pass_ps(work_compute_embedding, WORK_PASS_FORWARD, model, &l, cc, gpu);
    B[0] += pass_ps(work_compute_embedding, WORK_PASS_BACKWARD, model, &l, cc, gpu);
    F[pp - 1] += pass_ps(work_compute_head, WORK_PASS_FORWARD, model, &l, cc, gpu);
    B[pp - 1] += pass_ps(work_compute_head, WORK_PASS_BACKWARD, model, &l, cc, gpu);
    uint64_t act = l.micro_batch * l.seq_len * model->hidden_size * l.activation_bytes;
    uint64_t T = transfer_alone_ps(&f, 0, 1, act);
    for (uint32_t p = 0; p + 1 < pp; p++) {
        ck_assert_uint_eq(transfer_alone_ps(&f, p, p + 1, act), T);
        ck_assert_uint_eq(transfer_alone_ps(&f, p + 1, p, act), T);
    }
    uint64_t expect;
    if (pp == 2 && l.first_stage_layers < l.last_stage_layers) {
        ck_assert_uint_le(F[0] + B[0] + 2 * T, F[1] + B[1]);
        expect = F[0] + T + m * (F[1] + B[1]) + MAX(T + B[0] + O[0], O[1]);
    } else if (pp == 3) {
        ck_assert_uint_le(F[1] + B[1] + 2 * T, F[2] + B[2]);
        expect = F[0] + F[1] + 2 * T + m * (F[2] + B[2]) +
                 MAX(MAX(2 * T + B[1] + B[0] + O[0], T + B[1] + O[1]), O[2]);
    } else {
        ck_assert_uint_ge(F[0], F[1] + B[1] + 2 * T);
        uint64_t end0 = m * (F[0] + B[0]);
        expect = MAX(end0 + O[0], end0 - 2 * B[0] + T + F[1] + B[1] + O[1]);
    }
    WorkReplayResult res;
    work_test_replay(&f, s, what, &res);
    ck_assert_msg(res.step_ps == expect,
                  "%s: step %" G_GUINT64_FORMAT " ps, closed form %" G_GUINT64_FORMAT
                  " ps (T %" G_GUINT64_FORMAT ")",
                  what, res.step_ps, expect, T);
    /* Every rank computes its own m (F_p + B_p) and its optimizer step. */
    uint64_t compute = 0;
    for (uint32_t p = 0; p < pp; p++)
        compute += m * (F[p] + B[p]) + O[p];
    ck_assert_uint_eq(res.time_ps[WORK_TIME_COMPUTE], compute / pp);
    work_replay_result_clear(&res);
    work_test_fabric_clear(&f);
}
END_TEST

/* However the 6 layers of a tiny model split (pp 1; 1 + 5; 1, 1, 4; pp 4
 * vp 2 with the embedding and loss counted, whose first and last chunks
 * hold no block), the ranks together run the same compute: each rank
 * its own blocks, m times forward and backward, and the embedding and the
 * output layer once a microbatch. */
static const struct {
    uint32_t pp, vp, first, last;
    bool accounted;
} same_work[] = {{2, 1, 1, 5, false}, {3, 1, 0, 4, false}, {4, 2, 0, 0, true}};

static uint64_t
stream_flops(const WorkStream *s, uint32_t rank)
{
    uint64_t flops = 0;
    for (guint i = 0; i < s->tasks->len; i++) {
        const WorkTask *t = work_stream_task(s, i);
        if (t->kind == WORK_TASK_COMPUTE && (rank == ANY_RANK || t->rank == rank) &&
            strcmp(work_stream_label(s, t), "optimizer") != 0)
            flops += t->flops;
    }
    return flops;
}

START_TEST(uneven_splits_do_the_same_work)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    m->n_layers = 6;
    WorkLayout one = layout_of(1, 1, 1, 4);
    g_autoptr(WorkStream) whole = gen(m, &one, NULL, "pp 1");
    GArray *ops = work_compute_ops_new();
    WorkGenOptions o;
    work_gen_options_init(&o, m);
    work_compute_block(ops, WORK_PASS_FORWARD, m, &one, &o.compute);
    work_compute_block(ops, WORK_PASS_BACKWARD, m, &one, &o.compute);
    uint64_t block = work_compute_ops_flops(ops);
    g_array_unref(ops);
    WorkLayout l = layout_of(1, same_work[_i].pp, 1, 4);
    l.vp = same_work[_i].vp;
    l.schedule = l.vp > 1 ? WORK_SCHEDULE_INTERLEAVED : WORK_SCHEDULE_1F1B;
    l.first_stage_layers = same_work[_i].first;
    l.last_stage_layers = same_work[_i].last;
    l.account_for_embedding = l.account_for_loss = same_work[_i].accounted;
    g_autofree char *what = g_strdup_printf("same work case %d", _i);
    g_autoptr(WorkStream) s = gen(m, &l, NULL, what);
    ck_assert_msg(stream_flops(s, ANY_RANK) == stream_flops(whole, ANY_RANK), "%s: flops", what);
    /* A middle stage computes its blocks alone. */
    for (uint32_t p = 1; p + 1 < l.pp; p++)
        ck_assert_msg(stream_flops(s, p) == 4 * work_pipeline_stage_layers(&l, m, p) * block,
                      "%s: stage %u", what, p);
}
END_TEST

/* The same stream twice: the same tasks, field by field. */
START_TEST(generation_is_deterministic)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = layout_of(2, 2, 2, 4);
    l.sp = true;
    l.zero = WORK_ZERO_1;
    g_autoptr(WorkStream) a = gen(m, &l, NULL, "first");
    g_autoptr(WorkStream) b = gen(m, &l, NULL, "second");
    ck_assert_uint_eq(a->tasks->len, b->tasks->len);
    for (guint i = 0; i < a->tasks->len; i++) {
        const WorkTask *x = work_stream_task(a, i), *y = work_stream_task(b, i);
        ck_assert_msg(x->kind == y->kind && x->category == y->category && x->rank == y->rank &&
                          x->group == y->group && x->peer == y->peer && x->op == y->op &&
                          x->bytes == y->bytes && x->duration_ps == y->duration_ps &&
                          x->flops == y->flops && x->dep0 == y->dep0 && x->n_deps == y->n_deps &&
                          strcmp(work_stream_label(a, x), work_stream_label(b, y)) == 0,
                      "task %u differs", i);
    }
    ck_assert_uint_eq(a->deps->len, b->deps->len);
    ck_assert_int_eq(memcmp(a->deps->data, b->deps->data, a->deps->len * sizeof(uint32_t)), 0);
}
END_TEST

Suite *
work_gen_suite(void)
{
    Suite *s = suite_create("work-gen");
    TCase *tc = tcase_create("tp");
    tcase_add_test(tc, tp_overlap_beside_gemms);
    tcase_add_loop_test(tc, tp_collectives_per_block, 0, G_N_ELEMENTS(tp_cases));
    suite_add_tcase(s, tc);
    tc = tcase_create("pp");
    tcase_add_loop_test(tc, pp_transfers_per_stage, 0, G_N_ELEMENTS(pp_cases));
    suite_add_tcase(s, tc);
    tc = tcase_create("dp");
    tcase_add_loop_test(tc, dp_gradients_are_the_stage_parameters, 0, G_N_ELEMENTS(dp_cases));
    tcase_add_loop_test(tc, dp_overlap_reduces_the_same_gradients, 0, 2);
    tcase_add_test(tc, dp_one_bucket_by_hand);
    tcase_add_test(tc, dp_buckets_split_the_same_bytes);
    tcase_add_test(tc, dp_param_gathers_run_under_the_next_forward);
    tcase_add_test(tc, dp_early_gathers_skip_unshared_experts);
    tcase_add_test(tc, dp_pipeline_stages_and_tied_embedding);
    tcase_add_loop_test(tc, dp_zero3_gathers_every_block_twice, 0, G_N_ELEMENTS(zero3_cases));
    tcase_add_loop_test(tc, dp_fsdp_scatters_every_microbatch, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("cp");
    tcase_add_loop_test(tc, cp_ring_exchanges_per_block, 0, G_N_ELEMENTS(cp_cases));
    tcase_add_loop_test(tc, cp_gradients_over_dp_and_cp, 0, 2);
    suite_add_tcase(s, tc);
    tc = tcase_create("replay");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, symmetric_equals_full, 0, G_N_ELEMENTS(sym_cases));
    tcase_add_test(tc, schedules_same_work_bubbles_as_expected);
    tcase_add_loop_test(tc, uneven_1f1b_step_is_the_closed_form, 0, G_N_ELEMENTS(uneven_cases));
    tcase_add_loop_test(tc, uneven_splits_do_the_same_work, 0, G_N_ELEMENTS(same_work));
    tcase_add_test(tc, generation_is_deterministic);
    suite_add_tcase(s, tc);
    return s;
}
