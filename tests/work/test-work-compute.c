/* SPDX-License-Identifier: Apache-2.0 */
/* The compute model: a block's forward GEMM FLOPs are Megatron's per-token
 * formula (work-model) times the tokens over tp, backward twice that, full
 * recomputation one forward more; GQA, SwiGLU and MoE shapes; hand-counted
 * bytes; the efficiency curve's bounds, shape and wave quantization; exact
 * memory-kernel times; and a GPT-3 175B block on A100 and H100 in range. */
#include <math.h>
#include <string.h>

#include "core/core-time.h"
#include "work/work-compute.h"
#include "work-suites.h"

static WorkModel *
load_model(const char *id)
{
    g_autofree char *models = work_test_models_dir();
    g_autoptr(GError) error = NULL;
    WorkModel *m = work_model_load_by_id(id, models, &error);
    ck_assert_msg(m != NULL, "%s: %s", id, error ? error->message : "");
    return m;
}

static HwGpu *
load_gpu(const char *id)
{
    g_autofree char *models = work_test_models_dir();
    g_autofree char *file = g_strconcat(id, ".ini", NULL);
    g_autofree char *path = g_build_filename(models, "gpu", file, NULL);
    g_autoptr(GError) error = NULL;
    HwGpu *gpu = hw_gpu_load(path, &error);
    ck_assert_msg(gpu != NULL, "%s: %s", id, error ? error->message : "");
    return gpu;
}

static WorkLayout
layout_of(uint32_t tp, bool sp, uint32_t ep, uint64_t micro_batch, uint64_t seq_len,
          WorkRecompute recompute)
{
    return (WorkLayout){
        .tp = tp,
        .cp = 1,
        .pp = 1,
        .dp = ep,
        .vp = 1,
        .ep = ep,
        .sp = sp,
        .flash_attention = true,
        .zero = WORK_ZERO_0,
        .recompute = recompute,
        .schedule = WORK_SCHEDULE_1F1B,
        .global_batch = micro_batch * ep,
        .micro_batch = micro_batch,
        .seq_len = seq_len,
        .param_bytes = 2,
        .grad_bytes = 4,
        .optimizer_bytes = 12,
        .activation_bytes = 2,
    };
}

static GArray *
block_ops(const WorkModel *m, const WorkLayout *layout, bool flash, WorkPass pass)
{
    WorkComputeConfig config;
    work_compute_config_init(&config, m);
    WorkLayout fused = *layout;
    fused.flash_attention = flash;
    GArray *ops = work_compute_ops_new();
    work_compute_block(ops, pass, m, &fused, &config);
    return ops;
}

static const WorkOp *
find_op(const GArray *ops, const char *name)
{
    for (guint i = 0; i < ops->len; i++)
        if (strcmp(g_array_index(ops, WorkOp, i).name, name) == 0)
            return &g_array_index(ops, WorkOp, i);
    ck_abort_msg("no op %s", name);
    return NULL;
}

/* Models and layouts; every one is checked with both attention kinds. */
static const struct {
    const char *id;
    uint32_t tp;
    bool sp;
    uint32_t ep;
    uint64_t micro_batch, seq_len;
} cases[] = {
    {"gpt3-175b", 8, false, 1, 1, 2048},    /* GPT: LayerNorm, GELU, learned positions */
    {"gpt3-175b", 8, true, 1, 1, 2048},     /* the same with sequence parallelism */
    {"gpt3-1.3b", 1, false, 1, 4, 2048},    /* no tensor parallelism, b 4 */
    {"megatron-1t", 8, true, 1, 1, 2048},   /* SC21's largest */
    {"llama2-7b", 2, false, 1, 2, 4096},    /* SwiGLU, rotary, no GQA */
    {"llama3-70b", 8, true, 1, 1, 8192},    /* GQA 64 / 8 */
    {"llama3.1-405b", 8, true, 1, 1, 8192}, /* GQA 128 / 8 */
    {"mixtral-8x7b", 2, true, 1, 1, 4096},  /* mixture, all 8 experts local */
    {"mixtral-8x7b", 4, true, 8, 2, 4096},  /* expert parallelism: one local expert */
};

#define N_CASE_LOOPS (2 * (int)G_N_ELEMENTS(cases))

typedef struct CaseRun {
    WorkModel *model;
    WorkLayout layout;
    bool flash;         /* fused attention */
    uint64_t per_block; /* work-model's block FLOPs of the microbatch on one GPU */
} CaseRun;

static CaseRun
case_run(int i, WorkRecompute recompute)
{
    CaseRun run = {0};
    int c = i / 2;
    run.model = load_model(cases[c].id);
    run.layout = layout_of(cases[c].tp, cases[c].sp, cases[c].ep, cases[c].micro_batch,
                           cases[c].seq_len, recompute);
    run.flash = i % 2 == 0;
    run.layout.flash_attention = run.flash;
    /* F = passes l block + 6 h V (work-model), so block = (F - 6 h V) / (passes l). */
    const WorkModel *m = run.model;
    bool rc = recompute == WORK_RECOMPUTE_FULL;
    uint64_t f = work_model_flops_per_token(m, cases[c].seq_len, rc);
    uint64_t block = (f - 6 * m->hidden_size * m->vocab_size) / ((rc ? 4 : 3) * m->n_layers);
    run.per_block = block * cases[c].micro_batch * cases[c].seq_len / cases[c].tp;
    return run;
}

START_TEST(forward_flops_are_the_model_formula)
{
    CaseRun run = case_run(_i, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) ops = block_ops(run.model, &run.layout, run.flash, WORK_PASS_FORWARD);
    ck_assert_msg(work_compute_ops_flops(ops) == run.per_block,
                  "%s (case %d): %" G_GUINT64_FORMAT " FLOPs, the model says %" G_GUINT64_FORMAT,
                  run.model->name, _i, work_compute_ops_flops(ops), run.per_block);
    work_model_free(run.model);
}
END_TEST

START_TEST(backward_is_twice_forward)
{
    CaseRun run = case_run(_i, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) fwd = block_ops(run.model, &run.layout, run.flash, WORK_PASS_FORWARD);
    g_autoptr(GArray) bwd = block_ops(run.model, &run.layout, run.flash, WORK_PASS_BACKWARD);
    ck_assert_msg(work_compute_ops_flops(bwd) == 2 * work_compute_ops_flops(fwd), "%s (case %d)",
                  run.model->name, _i);
    work_model_free(run.model);
}
END_TEST

/* Full recomputation replays the forward pass exactly, so forward +
 * backward + recompute is work-model's count with recompute. */
START_TEST(full_recompute_adds_one_forward)
{
    CaseRun run = case_run(_i, WORK_RECOMPUTE_FULL);
    g_autoptr(GArray) fwd = block_ops(run.model, &run.layout, run.flash, WORK_PASS_FORWARD);
    g_autoptr(GArray) all = block_ops(run.model, &run.layout, run.flash, WORK_PASS_FORWARD);
    g_autoptr(GArray) re = block_ops(run.model, &run.layout, run.flash, WORK_PASS_RECOMPUTE);
    WorkComputeConfig config;
    work_compute_config_init(&config, run.model);
    work_compute_block(all, WORK_PASS_BACKWARD, run.model, &run.layout, &config);
    work_compute_block(all, WORK_PASS_RECOMPUTE, run.model, &run.layout, &config);
    ck_assert_msg(work_compute_ops_flops(all) == 4 * run.per_block, "%s (case %d)", run.model->name,
                  _i);
    ck_assert_uint_eq(re->len, fwd->len);
    for (guint i = 0; i < re->len; i++) {
        const WorkOp *a = &g_array_index(fwd, WorkOp, i), *b = &g_array_index(re, WorkOp, i);
        ck_assert_msg(strcmp(a->name, b->name) == 0 && a->flops == b->flops &&
                          a->bytes == b->bytes && b->pass == WORK_PASS_RECOMPUTE,
                      "%s (case %d): op %u", run.model->name, _i, i);
    }
    work_model_free(run.model);
}
END_TEST

/* Selective recomputation replays attention's core only: 4 b s^2 h / t
 * FLOPs; none replays nothing. */
START_TEST(selective_recompute_replays_the_core)
{
    CaseRun run = case_run(_i, WORK_RECOMPUTE_SELECTIVE);
    int c = _i / 2;
    g_autoptr(GArray) re = block_ops(run.model, &run.layout, run.flash, WORK_PASS_RECOMPUTE);
    uint64_t s = cases[c].seq_len;
    uint64_t core = 4 * cases[c].micro_batch * s * s * run.model->hidden_size / cases[c].tp;
    ck_assert_msg(work_compute_ops_flops(re) == core, "%s (case %d)", run.model->name, _i);
    static const char *const core_ops[] = {"attn.scores",  "attn.softmax", "attn.dropout",
                                           "attn.context", "attn.core",    NULL};
    for (guint i = 0; i < re->len; i++) {
        const char *name = g_array_index(re, WorkOp, i).name;
        ck_assert_msg(g_strv_contains(core_ops, name), "%s: %s is not attention's core",
                      run.model->name, name);
    }
    run.layout.recompute = WORK_RECOMPUTE_NONE;
    g_autoptr(GArray) none = block_ops(run.model, &run.layout, run.flash, WORK_PASS_RECOMPUTE);
    ck_assert_uint_eq(none->len, 0);
    work_model_free(run.model);
}
END_TEST

/* Every GEMM Y[m, n] = A[m, k] B[k, n] has backward products (m, k, n)
 * and (k, n, m) with its FLOPs. */
START_TEST(backward_products_are_transposed)
{
    CaseRun run = case_run(_i, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) fwd = block_ops(run.model, &run.layout, run.flash, WORK_PASS_FORWARD);
    g_autoptr(GArray) bwd = block_ops(run.model, &run.layout, run.flash, WORK_PASS_BACKWARD);
    guint n_gemms = 0, n_bwd_gemms = 0;
    for (guint i = 0; i < fwd->len; i++) {
        const WorkOp *op = &g_array_index(fwd, WorkOp, i);
        ck_assert_msg(op->flops > 0 || op->bytes > 0, "%s: %s is empty", run.model->name, op->name);
        if (op->kind != WORK_OP_GEMM)
            continue;
        n_gemms++;
        /* The backward list runs in reverse: find the two products right
         * after the last op whose name starts with this one's. */
        for (guint j = 0; j + 1 < bwd->len; j++) {
            const WorkOp *a = &g_array_index(bwd, WorkOp, j), *b = a + 1;
            if (a->kind != WORK_OP_GEMM || !g_str_has_prefix(a->name, op->name) ||
                a->name[strlen(op->name)] != '.')
                continue;
            ck_assert_msg(a->m == op->m && a->n == op->k && a->k == op->n, "%s", a->name);
            ck_assert_msg(b->m == op->k && b->n == op->n && b->k == op->m, "%s", b->name);
            ck_assert_msg(a->flops == op->flops && b->flops == op->flops, "%s", op->name);
            ck_assert_msg(a->n_batch == op->n_batch && b->n_batch == op->n_batch, "%s", op->name);
            n_bwd_gemms += 2;
            break;
        }
    }
    ck_assert_msg(n_bwd_gemms == 2 * n_gemms, "%s (case %d): %u products for %u GEMMs",
                  run.model->name, _i, n_bwd_gemms, n_gemms);
    work_model_free(run.model);
}
END_TEST

/* Llama 3 70B at tp 8: GQA's fused QKV is h + 2 g = 8192 + 2 x 1024 wide,
 * split by 8; SwiGLU's gate and up are one GEMM of 2 x 28672 / 8; 64 / 8
 * heads a sequence; rotary positions. GPT-3 175B: 3 h wide QKV, a GELU
 * up of 4 h / 8, no rotary kernel. */
START_TEST(gqa_and_swiglu_shapes)
{
    g_autoptr(WorkModel) llama = load_model("llama3-70b");
    WorkLayout layout = layout_of(8, true, 1, 2, 8192, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) ops = block_ops(llama, &layout, false, WORK_PASS_FORWARD);
    const WorkOp *qkv = find_op(ops, "attn.qkv");
    ck_assert_uint_eq(qkv->m, 2 * 8192);
    ck_assert_uint_eq(qkv->n, (8192 + 2 * 8 * 128) / 8);
    ck_assert_uint_eq(qkv->k, 8192);
    const WorkOp *gate_up = find_op(ops, "ffn.gate_up");
    ck_assert_uint_eq(gate_up->n, 2 * 28672 / 8);
    ck_assert_uint_eq(find_op(ops, "ffn.down")->k, 28672 / 8);
    const WorkOp *scores = find_op(ops, "attn.scores");
    ck_assert_uint_eq(scores->n_batch, 2 * 64 / 8);
    ck_assert_uint_eq(scores->m, 8192);
    ck_assert_uint_eq(scores->n, 8192);
    ck_assert_uint_eq(scores->k, 128);
    /* Rotary: q (h / t) and k (g / t) read and written. */
    ck_assert_uint_eq(find_op(ops, "attn.rope")->bytes, 2 * 2 * 8192 * (1024 + 128) * 2);
    /* At tp 16 each GPU keeps one of the 8 key/value heads (two GPUs a head). */
    layout = layout_of(16, true, 1, 2, 8192, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) wide = block_ops(llama, &layout, false, WORK_PASS_FORWARD);
    ck_assert_uint_eq(find_op(wide, "attn.qkv")->n, 8192 / 16 + 2 * 128);

    g_autoptr(WorkModel) gpt = load_model("gpt3-175b");
    layout = layout_of(8, false, 1, 1, 2048, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) gops = block_ops(gpt, &layout, false, WORK_PASS_FORWARD);
    ck_assert_uint_eq(find_op(gops, "attn.qkv")->n, 3 * 12288 / 8);
    ck_assert_uint_eq(find_op(gops, "ffn.up")->n, 49152 / 8);
    for (guint i = 0; i < gops->len; i++)
        ck_assert_str_ne(g_array_index(gops, WorkOp, i).name, "attn.rope");
}
END_TEST

/* Mixtral 8x7B at tp 4, ep 8, b 2, s 4096: one local expert receives all
 * T top_k = 16384 routed rows; the router runs on the T / 4 tokens of
 * sequence parallelism. */
START_TEST(moe_shapes)
{
    g_autoptr(WorkModel) m = load_model("mixtral-8x7b");
    WorkLayout layout = layout_of(4, true, 8, 2, 4096, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) ops = block_ops(m, &layout, true, WORK_PASS_FORWARD);
    const WorkOp *router = find_op(ops, "moe.router");
    ck_assert_uint_eq(router->m, 8192 / 4);
    ck_assert_uint_eq(router->n, 8);
    const WorkOp *up = find_op(ops, "moe.up");
    ck_assert_uint_eq(up->n_batch, 1);
    ck_assert_uint_eq(up->m, 2 * 8192);
    ck_assert_uint_eq(up->n, 2 * 14336 / 4);
    ck_assert_uint_eq(up->flops, 2ull * 16384 * (2 * 14336 / 4) * 4096);
    ck_assert_uint_eq(find_op(ops, "moe.permute")->bytes, 2ull * 16384 * 4096 * 2);
    /* ep 1: eight local experts of 2048 rows each, the same FLOPs. */
    layout = layout_of(4, true, 1, 2, 4096, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) ops1 = block_ops(m, &layout, true, WORK_PASS_FORWARD);
    const WorkOp *up1 = find_op(ops1, "moe.up");
    ck_assert_uint_eq(up1->n_batch, 8);
    ck_assert_uint_eq(up1->m, 2048);
    ck_assert_uint_eq(up1->flops, up->flops);
}
END_TEST

/* Routing imbalance: the simulated rank is the busiest, receiving
 * moe_load times the mean T top_k rows (16,384 for Mixtral at b 2, s 4096,
 * ep 8): at 1.25, 20,480 rows through each expert GEMM, their FLOPs 1.25
 * times, the unpermute reading them, while the router and the local
 * permutation stay on the GPU's own tokens. */
START_TEST(moe_load_by_hand)
{
    g_autoptr(WorkModel) m = load_model("mixtral-8x7b");
    WorkLayout layout = layout_of(4, true, 8, 2, 4096, WORK_RECOMPUTE_NONE);
    WorkComputeConfig config;
    work_compute_config_init(&config, m);
    g_autoptr(GArray) even = work_compute_ops_new();
    work_compute_block(even, WORK_PASS_FORWARD, m, &layout, &config);
    config.moe_load = 1.25;
    g_autoptr(GArray) busy = work_compute_ops_new();
    work_compute_block(busy, WORK_PASS_FORWARD, m, &layout, &config);
    const uint64_t f = 14336 / 4, h = 4096;
    ck_assert_uint_eq(find_op(busy, "moe.up")->m, 20480);
    ck_assert_uint_eq(find_op(busy, "moe.up")->flops, 2ull * 20480 * 2 * f * h);
    ck_assert_uint_eq(find_op(busy, "moe.down")->flops, 2ull * 20480 * h * f);
    ck_assert_uint_eq(4 * find_op(busy, "moe.up")->flops, 5 * find_op(even, "moe.up")->flops);
    ck_assert_uint_eq(find_op(busy, "moe.unpermute")->bytes, (20480ull + 8192) * h * 2);
    ck_assert_uint_eq(find_op(busy, "moe.permute")->bytes, find_op(even, "moe.permute")->bytes);
    ck_assert_uint_eq(find_op(busy, "moe.router")->flops, find_op(even, "moe.router")->flops);
}
END_TEST

/* GPT-3 175B, tp 8, b 1, s 2048, GEMM attention with dropout, by hand
 * (T = 2048, h = 12288, 12 local heads, f / t = 6144, 2-byte elements). */
START_TEST(bytes_by_hand)
{
    g_autoptr(WorkModel) m = load_model("gpt3-175b");
    WorkLayout layout = layout_of(8, false, 1, 1, 2048, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) fwd = block_ops(m, &layout, false, WORK_PASS_FORWARD);
    g_autoptr(GArray) bwd = block_ops(m, &layout, false, WORK_PASS_BACKWARD);
    const uint64_t th = 2048ull * 12288, probs = 12ull * 2048 * 2048;
    ck_assert_uint_eq(find_op(fwd, "attn.norm")->bytes, 2 * th * 2);
    ck_assert_uint_eq(find_op(bwd, "attn.norm.bwd")->bytes, 3 * th * 2);
    ck_assert_uint_eq(find_op(fwd, "attn.softmax")->bytes, 2 * probs * 2);
    ck_assert_uint_eq(find_op(bwd, "attn.softmax.bwd")->bytes, 3 * probs * 2);
    ck_assert_uint_eq(find_op(fwd, "attn.dropout")->bytes, probs * 5);
    ck_assert_uint_eq(find_op(fwd, "attn.residual")->bytes, th * 7);
    ck_assert_uint_eq(find_op(bwd, "attn.residual.bwd")->bytes, th * 11);
    ck_assert_uint_eq(find_op(fwd, "ffn.act")->bytes, 2 * 2048ull * 6144 * 2);
    ck_assert_uint_eq(find_op(bwd, "ffn.act.bwd")->bytes, 3 * 2048ull * 6144 * 2);
    /* A GEMM's bytes: operands and result once. */
    ck_assert_uint_eq(find_op(fwd, "ffn.up")->bytes,
                      (2048ull * 12288 + 12288ull * 6144 + 2048ull * 6144) * 2);
    /* FlashAttention: q, k, v in and out once, fp32 log-sum-exp. */
    g_autoptr(GArray) flash = block_ops(m, &layout, true, WORK_PASS_FORWARD);
    const WorkOp *core = find_op(flash, "attn.core");
    ck_assert_uint_eq(core->bytes, 4 * 2048ull * 1536 * 2 + 12ull * 2048 * 4);
    ck_assert_uint_eq(core->flops, 4ull * 12 * 2048 * 2048 * 128);
}
END_TEST

/* The casts of each precision recipe, by hand, for 4,096 bf16 elements:
 * delayed fp8 reads 2 bytes and writes the fp8 copy and its transpose,
 * 4 x 4,096; current scaling reads the tensor once more for its amax,
 * 6 x 4,096, each a byte less an element without the transpose (a GPU
 * whose fp8 GEMMs take any layout: Blackwell; work_compute_config_on sets
 * it from the GPU); MXFP8 writes both orientations with an E8M0 scale a block of
 * 32, 8,192 + 2 (4,096 + 128); NVFP4 reads twice (amax, cast) and writes
 * both orientations at half a byte with an E4M3 scale a block of 16,
 * 16,384 + 2 (2,048 + 256). Then a GPT-3 175B block's QKV under each: its
 * cast moves those bytes for the b s h input, its GEMM's operands are
 * fp8, or fp4 with their block scales, at the GPU's fp8 or fp4 peak. */
START_TEST(precision_recipes_by_hand)
{
    ck_assert_uint_eq(work_compute_cast_bytes(WORK_SCALING_NONE, true, 4096, 2), 0);
    ck_assert_uint_eq(work_compute_cast_bytes(WORK_SCALING_DELAYED, true, 4096, 2), 16384);
    ck_assert_uint_eq(work_compute_cast_bytes(WORK_SCALING_CURRENT, true, 4096, 2), 24576);
    ck_assert_uint_eq(work_compute_cast_bytes(WORK_SCALING_MXFP8, true, 4096, 2), 8192 + 2 * 4224);
    ck_assert_uint_eq(work_compute_cast_bytes(WORK_SCALING_NVFP4, true, 4096, 2), 16384 + 2 * 2304);
    /* Where fp8 GEMMs take any layout, per-tensor casts write one copy;
     * block-scaled ones write both orientations all the same. */
    ck_assert_uint_eq(work_compute_cast_bytes(WORK_SCALING_DELAYED, false, 4096, 2), 12288);
    ck_assert_uint_eq(work_compute_cast_bytes(WORK_SCALING_CURRENT, false, 4096, 2), 20480);
    ck_assert_uint_eq(work_compute_cast_bytes(WORK_SCALING_MXFP8, false, 4096, 2), 8192 + 2 * 4224);
    ck_assert_uint_eq(work_compute_cast_bytes(WORK_SCALING_NVFP4, false, 4096, 2),
                      16384 + 2 * 2304);
    g_autoptr(WorkModel) m = load_model("gpt3-175b");
    g_autoptr(HwGpu) gpu = load_gpu("gb200");
    g_autoptr(HwGpu) hopper = load_gpu("h100-sxm5");
    WorkComputeConfig on;
    work_compute_config_init(&on, m);
    ck_assert(on.fp8_transpose);
    work_compute_config_on(&on, gpu);
    ck_assert(!on.fp8_transpose);
    work_compute_config_on(&on, hopper);
    ck_assert(on.fp8_transpose);
    WorkLayout layout = layout_of(8, false, 1, 1, 2048, WORK_RECOMPUTE_NONE);
    const uint64_t th = 2048ull * 12288, qkv = 3 * 12288 / 8;
    static const struct {
        WorkMath math;
        WorkScaling scaling;
        uint64_t operand_bytes; /* of the QKV GEMM's two operands */
    } recipes[] = {
        {WORK_MATH_FP8, WORK_SCALING_DELAYED, 2048ull * 12288 + 12288ull * qkv},
        {WORK_MATH_FP8, WORK_SCALING_MXFP8, 2048ull * 12288 + 12288ull * qkv},
        {WORK_MATH_FP4, WORK_SCALING_NVFP4,
         (2048ull * 12288 + 12288ull * qkv) / 2 + (2048ull * 12288 + 12288ull * qkv) / 16},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(recipes); i++) {
        WorkComputeConfig config;
        work_compute_config_init(&config, m);
        config.linear_math = recipes[i].math;
        config.scaling = recipes[i].scaling;
        g_autoptr(GArray) ops = work_compute_ops_new();
        work_compute_block(ops, WORK_PASS_FORWARD, m, &layout, &config);
        ck_assert_uint_eq(find_op(ops, "attn.qkv.cast")->bytes,
                          work_compute_cast_bytes(recipes[i].scaling, true, th, 2));
        const WorkOp *gemm = find_op(ops, "attn.qkv");
        ck_assert_int_eq(gemm->math, recipes[i].math);
        ck_assert_uint_eq(gemm->bytes, recipes[i].operand_bytes + 2048ull * qkv * 2);
        /* Attention and the logits stay in bf16. */
        ck_assert_int_eq(find_op(ops, "attn.core")->math, WORK_MATH_FP16);
        double peak = recipes[i].math == WORK_MATH_FP4 ? (double)gpu->fp4_flops_per_s
                                                       : (double)gpu->fp8_flops_per_s;
        double seconds = (double)(work_compute_op_ps(gemm, gpu) - WORK_COMPUTE_LAUNCH_PS) / 1e12;
        ck_assert(gemm->flops / seconds <= peak * work_compute_gemm_ceiling(gpu, recipes[i].math));
        ck_assert(gemm->flops / seconds >
                  0.5 * peak * work_compute_gemm_ceiling(gpu, recipes[i].math));
    }
}
END_TEST

/* Sequence parallelism divides the norms', dropouts' and residual adds'
 * bytes by t and leaves every GEMM alone. */
START_TEST(sequence_parallelism_shards_the_norms)
{
    g_autoptr(WorkModel) m = load_model("gpt3-175b");
    WorkLayout plain = layout_of(8, false, 1, 1, 2048, WORK_RECOMPUTE_NONE);
    WorkLayout sp = layout_of(8, true, 1, 1, 2048, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) a = block_ops(m, &plain, false, WORK_PASS_FORWARD);
    g_autoptr(GArray) b = block_ops(m, &sp, false, WORK_PASS_FORWARD);
    ck_assert_uint_eq(a->len, b->len);
    for (guint i = 0; i < a->len; i++) {
        const WorkOp *x = &g_array_index(a, WorkOp, i), *y = &g_array_index(b, WorkOp, i);
        bool sharded = strstr(x->name, "norm") || strstr(x->name, "residual");
        ck_assert_msg(sharded ? y->bytes * 8 == x->bytes : y->bytes == x->bytes, "%s", x->name);
        ck_assert_uint_eq(x->flops, y->flops);
    }
}
END_TEST

/* Embedding and head: the padded vocabulary, the logits GEMM and its two
 * products, the loss fused and unfused, nothing to recompute. */
START_TEST(embedding_and_head)
{
    g_autoptr(WorkModel) m = load_model("gpt3-175b");
    ck_assert_uint_eq(work_compute_vocab_padded(m, 8), 51200);
    ck_assert_uint_eq(work_compute_vocab_padded(m, 1), 50304);
    WorkLayout layout = layout_of(8, true, 1, 1, 2048, WORK_RECOMPUTE_FULL);
    WorkComputeConfig config;
    work_compute_config_init(&config, m);
    g_autoptr(GArray) fwd = work_compute_ops_new();
    g_autoptr(GArray) bwd = work_compute_ops_new();
    g_autoptr(GArray) re = work_compute_ops_new();
    work_compute_head(fwd, WORK_PASS_FORWARD, m, &layout, &config);
    work_compute_head(bwd, WORK_PASS_BACKWARD, m, &layout, &config);
    work_compute_head(re, WORK_PASS_RECOMPUTE, m, &layout, &config);
    work_compute_embedding(re, WORK_PASS_RECOMPUTE, m, &layout, &config);
    const WorkOp *logits = find_op(fwd, "head.logits");
    ck_assert_uint_eq(logits->m, 2048);
    ck_assert_uint_eq(logits->n, 51200 / 8);
    ck_assert_uint_eq(logits->k, 12288);
    ck_assert_uint_eq(work_compute_ops_flops(fwd), 2ull * 2048 * 12288 * 6400);
    ck_assert_uint_eq(work_compute_ops_flops(bwd), 2 * work_compute_ops_flops(fwd));
    ck_assert_uint_eq(find_op(fwd, "head.loss")->bytes, 2048ull * 6400 * 6);
    ck_assert_uint_eq(find_op(bwd, "head.loss.bwd")->bytes, 2048ull * 6400 * 6);
    ck_assert_uint_eq(re->len, 0);
    /* Megatron's unfused cross entropy, pass by pass over the 2048 x 6400
     * logits: forward the cast to fp32 (2 read, 4 written), the max (4),
     * the subtraction (4 + 4), exp (4 + 4), the sum (4) and the division
     * (4 + 4): 38 bytes; backward the product (4 + 4) and the cast back
     * (4 + 2): 14. */
    config.fused_cross_entropy = false;
    g_autoptr(GArray) unfused_fwd = work_compute_ops_new();
    g_autoptr(GArray) unfused_bwd = work_compute_ops_new();
    work_compute_head(unfused_fwd, WORK_PASS_FORWARD, m, &layout, &config);
    work_compute_head(unfused_bwd, WORK_PASS_BACKWARD, m, &layout, &config);
    ck_assert_uint_eq(find_op(unfused_fwd, "head.loss")->bytes, 2048ull * 6400 * 38);
    ck_assert_uint_eq(find_op(unfused_bwd, "head.loss.bwd")->bytes, 2048ull * 6400 * 14);
    config.fused_cross_entropy = true;
    g_autoptr(GArray) embed = work_compute_ops_new();
    work_compute_embedding(embed, WORK_PASS_FORWARD, m, &layout, &config);
    ck_assert_uint_eq(find_op(embed, "embed.lookup")->bytes, 2 * 2048ull * 12288 * 2);
    ck_assert_uint_eq(find_op(embed, "embed.dropout")->bytes, 2048ull / 8 * 12288 * 5);
    ck_assert_uint_eq(work_compute_ops_flops(embed), 0);
}
END_TEST

/* Adam over 1e9 parameters with fp32 gradients, 12 B of state and bf16
 * weights: zero 4 B, norm 4 B, update 4 + 24 + 2 B a parameter. */
START_TEST(optimizer_bytes)
{
    WorkLayout layout = layout_of(1, false, 1, 1, 2048, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) ops = work_compute_ops_new();
    work_compute_optimizer(ops, &layout, 2000000000, 1000000000);
    ck_assert_uint_eq(ops->len, 3);
    ck_assert_uint_eq(find_op(ops, "optimizer.zero_grad")->bytes, 8000000000);
    ck_assert_uint_eq(find_op(ops, "optimizer.grad_norm")->bytes, 4000000000);
    ck_assert_uint_eq(find_op(ops, "optimizer.adam")->bytes, 30000000000);
    for (guint i = 0; i < ops->len; i++)
        ck_assert(g_array_index(ops, WorkOp, i).pass == WORK_PASS_OPTIMIZER);
}
END_TEST

static const char *const gpu_ids[] = {
    "p100-sxm2", "v100-sxm2", "a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5", "h200",
    "h800",      "b200",      "gb200",          "b300",           "gb300",
};

/* MFU counts the FLOPs a causal model needs (work_model_causal_flops_per_
 * token) against the peak of the fastest math the step runs (work-run.c);
 * no block's kernels, forward and backward, run them faster, at any
 * sequence length up to the longest a model may take, in any precision
 * recipe the GPU has: MFU never exceeds 100%. */
START_TEST(causal_flops_never_beat_the_peak)
{
    static const struct {
        WorkMath math;
        WorkScaling scaling;
    } recipes[] = {{WORK_MATH_FP16, WORK_SCALING_NONE},
                   {WORK_MATH_FP8, WORK_SCALING_DELAYED},
                   {WORK_MATH_FP8, WORK_SCALING_MXFP8},
                   {WORK_MATH_FP4, WORK_SCALING_NVFP4}};
    g_autoptr(WorkModel) m = load_model("llama3-70b");
    HwGpu *gpu = load_gpu(gpu_ids[_i]);
    const uint64_t seq_lens[] = {2048, 131072, 1 << 20, WORK_MODEL_MAX_SEQ_LEN};
    for (size_t r = 0; r < G_N_ELEMENTS(recipes); r++) {
        if ((recipes[r].math == WORK_MATH_FP8 && gpu->fp8_flops_per_s == 0) ||
            (recipes[r].math == WORK_MATH_FP4 && gpu->fp4_flops_per_s == 0))
            continue;
        WorkComputeConfig config;
        work_compute_config_init(&config, m);
        config.linear_math = recipes[r].math;
        config.scaling = recipes[r].scaling;
        double peak =
            MAX(work_compute_peak(gpu, WORK_MATH_FP16), work_compute_peak(gpu, recipes[r].math));
        for (size_t i = 0; i < G_N_ELEMENTS(seq_lens); i++) {
            uint64_t s = seq_lens[i];
            WorkLayout layout = layout_of(8, true, 1, 1, s, WORK_RECOMPUTE_NONE);
            double seconds = 0;
            WorkPass passes[] = {WORK_PASS_FORWARD, WORK_PASS_BACKWARD};
            for (size_t p = 0; p < G_N_ELEMENTS(passes); p++) {
                g_autoptr(GArray) ops = work_compute_ops_new();
                work_compute_block(ops, passes[p], m, &layout, &config);
                for (guint k = 0; k < ops->len; k++)
                    seconds += (double)work_compute_op_ps(&g_array_index(ops, WorkOp, k), gpu) /
                               (double)SIM_PS_PER_S;
            }
            /* A block's share of a token's causal FLOPs, times its tokens
             * on one GPU of the tensor-parallel group. */
            double block = (work_model_causal_flops_per_token(m, s) -
                            6.0 * (double)m->hidden_size * (double)m->vocab_size) /
                           (3.0 * (double)m->n_layers);
            double mfu = block * (double)s / 8 / seconds / peak;
            ck_assert_msg(mfu > 0 && mfu <= 1.0,
                          "%s, recipe %zu, s = %" G_GUINT64_FORMAT ": MFU %.3f", gpu_ids[_i], r, s,
                          mfu);
        }
    }
    hw_gpu_free(gpu);
}
END_TEST

/* In (0, 1] and never above the generation's ceiling, over a grid of
 * shapes from one tile to the largest GEMMs of a 1T model. */
START_TEST(efficiency_is_a_fraction)
{
    g_autoptr(HwGpu) gpu = load_gpu(gpu_ids[_i]);
    static const uint64_t sizes[] = {1, 7, 128, 1000, 4096, 12288, 65536};
    for (WorkMath math = WORK_MATH_FP16; math <= WORK_MATH_FP32; math++) {
        double ceiling = work_compute_gemm_ceiling(gpu, math);
        ck_assert_msg(ceiling > 0.5 && ceiling <= 1, "%s: ceiling %g", gpu_ids[_i], ceiling);
        for (size_t a = 0; a < G_N_ELEMENTS(sizes); a++)
            for (size_t b = 0; b < G_N_ELEMENTS(sizes); b++)
                for (size_t c = 0; c < G_N_ELEMENTS(sizes); c++) {
                    double e =
                        work_compute_gemm_efficiency(gpu, math, 1, sizes[a], sizes[b], sizes[c]);
                    ck_assert_msg(e > 0 && e <= ceiling + 1e-12, "%s: %g", gpu_ids[_i], e);
                }
    }
}
END_TEST

/* Square GEMMs of 128 ... 32768 (powers of two, whose tiles fill whole
 * waves ever better) never lose efficiency as they grow, and the largest
 * reach 90% of the ceiling; between powers of two the curve saw-tooths,
 * as wave quantization does on real GPUs. */
START_TEST(efficiency_grows_with_square_size)
{
    g_autoptr(HwGpu) gpu = load_gpu(gpu_ids[_i]);
    double last = 0;
    for (uint64_t n = 128; n <= 32768; n *= 2) {
        double e = work_compute_gemm_efficiency(gpu, WORK_MATH_FP16, 1, n, n, n);
        ck_assert_msg(e >= last, "%s: %" G_GUINT64_FORMAT ": %g < %g", gpu_ids[_i], n, e, last);
        last = e;
    }
    ck_assert_msg(last >= 0.9 * work_compute_gemm_ceiling(gpu, WORK_MATH_FP16), "%s: %g",
                  gpu_ids[_i], last);
    ck_assert(work_compute_gemm_efficiency(gpu, WORK_MATH_FP16, 1, 256, 256, 256) < 0.5 * last);
}
END_TEST

/* Skinny GEMMs do worse than the square GEMM of the same large sides: an m
 * or n of 16 fills an eighth of each 128-wide tile; a K of 16 is memory
 * bound (the model has only the roofline for small K, so P100, whose ridge
 * is 29 FLOP/B, loses least: 69% of its square's efficiency). */
START_TEST(skinny_gemms_are_slower)
{
    g_autoptr(HwGpu) gpu = load_gpu(gpu_ids[_i]);
    double square = work_compute_gemm_efficiency(gpu, WORK_MATH_FP16, 1, 8192, 8192, 8192);
    ck_assert(work_compute_gemm_efficiency(gpu, WORK_MATH_FP16, 1, 16, 8192, 8192) < square / 4);
    ck_assert(work_compute_gemm_efficiency(gpu, WORK_MATH_FP16, 1, 8192, 16, 8192) < square / 4);
    ck_assert(work_compute_gemm_efficiency(gpu, WORK_MATH_FP16, 1, 8192, 8192, 16) < 0.75 * square);
}
END_TEST

/* A100 (108 SMs): 1152 x 3072 is 9 x 12 = 108 tiles of 128 x 256, one full
 * wave at the ceiling; one more column needs a second, almost empty wave. */
START_TEST(wave_quantization_closed_form)
{
    g_autoptr(HwGpu) gpu = load_gpu("a100-sxm4-80gb");
    double ceiling = work_compute_gemm_ceiling(gpu, WORK_MATH_FP16);
    ck_assert_double_eq_tol(ceiling, 0.869, 1e-12);
    double full = work_compute_gemm_efficiency(gpu, WORK_MATH_FP16, 1, 1152, 3072, 8192);
    ck_assert_double_eq_tol(full, ceiling, 1e-12);
    double spill = work_compute_gemm_efficiency(gpu, WORK_MATH_FP16, 1, 1152, 3073, 8192);
    ck_assert_double_eq_tol(spill, ceiling * 1152.0 * 3073 / (2 * 108 * 128 * 256), 1e-12);
    /* Batched: 27 products of 512 x 256 (4 tiles each) fill the same wave. */
    double batched = work_compute_gemm_efficiency(gpu, WORK_MATH_FP16, 27, 512, 256, 8192);
    ck_assert_double_eq_tol(batched, ceiling, 1e-12);
    /* K = 64 is below the roofline's ridge (312e12 / (0.867 x 2039e9) = 176
     * FLOP/B): the HBM traffic at a streaming kernel's share sets the time. */
    double thin = work_compute_gemm_efficiency(gpu, WORK_MATH_FP16, 1, 8192, 8192, 64);
    double intensity = 2.0 * 8192 * 8192 * 64 / ((2.0 * 8192 * 64 * 2) + 8192.0 * 8192 * 2);
    ck_assert_double_eq_tol(thin, intensity * llround(0.867 * 2039e9) / 312e12, 1e-12);
}
END_TEST

/* Which kernels HBM sets the pace of (they keep their SMs beside a
 * collective, work-replay.c): memory kernels; a GEMM below the roofline's
 * ridge (A100: K = 64 of 8192 x 8192), not above it; the optimizer's
 * kernels, all memory-bound, whose memory part is their whole time. */
START_TEST(memory_bound_kernels_by_roofline)
{
    g_autoptr(HwGpu) gpu = load_gpu("a100-sxm4-80gb");
    WorkOp mem = {.name = "norm", .kind = WORK_OP_MEMORY, .bytes = 1 << 20};
    ck_assert(work_compute_op_memory_bound(&mem, gpu));
    WorkOp square = {.name = "mlp",
                     .kind = WORK_OP_GEMM,
                     .math = WORK_MATH_FP16,
                     .n_batch = 1,
                     .m = 8192,
                     .n = 8192,
                     .k = 8192,
                     .flops = 2ull * 8192 * 8192 * 8192};
    ck_assert(!work_compute_op_memory_bound(&square, gpu));
    WorkOp thin = square;
    thin.k = 64;
    thin.flops = 2ull * 8192 * 8192 * 64;
    ck_assert(work_compute_op_memory_bound(&thin, gpu));
    g_autoptr(GArray) ops = work_compute_ops_new();
    g_array_append_val(ops, square);
    ck_assert_uint_eq(work_compute_ops_memory_ps(ops, gpu), 0);
    g_array_append_val(ops, thin);
    g_array_append_val(ops, mem);
    ck_assert_uint_eq(work_compute_ops_memory_ps(ops, gpu),
                      work_compute_op_ps(&thin, gpu) + work_compute_op_ps(&mem, gpu));
    WorkLayout l = {.grad_bytes = 4, .optimizer_bytes = 4, .param_bytes = 2};
    g_autoptr(GArray) opt = work_compute_ops_new();
    work_compute_optimizer(opt, &l, 1000000, 125000);
    ck_assert_uint_eq(work_compute_ops_memory_ps(opt, gpu), work_compute_ops_ps(opt, gpu));
}
END_TEST

/* A memory-bound kernel takes bytes / (HBM bandwidth x the streaming
 * share) exactly, plus the launch: 1,767,813,000 B at 0.867 x 2039 GB/s
 * (1,767,813,000,000 B/s) is 1 ms. */
START_TEST(memory_kernel_time_is_exact)
{
    g_autoptr(HwGpu) gpu = load_gpu(gpu_ids[_i]);
    ck_assert_double_eq(gpu->hbm_efficiency, HW_GPU_HBM_EFFICIENCY);
    uint64_t stream = (uint64_t)llround((double)gpu->hbm_bytes_per_s * HW_GPU_HBM_EFFICIENCY);
    static const uint64_t sizes[] = {1, 4096, 100663296, 2039000000, 123456789012};
    for (size_t i = 0; i < G_N_ELEMENTS(sizes); i++) {
        WorkOp op = {.name = "test", .kind = WORK_OP_MEMORY, .bytes = sizes[i]};
        ck_assert_uint_eq(work_compute_op_ps(&op, gpu) - WORK_COMPUTE_LAUNCH_PS,
                          sim_serialization_ps(sizes[i], stream));
    }
    if (strcmp(gpu_ids[_i], "a100-sxm4-80gb") == 0) {
        ck_assert_uint_eq(stream, 1767813000000);
        WorkOp op = {.name = "test", .kind = WORK_OP_MEMORY, .bytes = 1767813000};
        ck_assert_uint_eq(work_compute_op_ps(&op, gpu), SIM_PS_PER_MS + WORK_COMPUTE_LAUNCH_PS);
    }
}
END_TEST

/* A GPT-3 175B block at tp 8, b 1, s 2048 (fused attention, dropout),
 * forward and backward. Its FLOPs at peak bound the time from below; such
 * GEMM-dominated work should run at 55-90% of peak on A100 and 50-85% on
 * H100 (cuBLAS's ceilings are 87% and 80%, less wave quantization and the
 * memory-bound kernels; SC21's end-to-end MFU on A100, communication and
 * bubble included, is 44-52%). The model gives A100 12.2 ms (75% of peak)
 * and H100 4.3 ms (66%). */
static const struct {
    const char *gpu;
    double low_fraction, high_fraction;
} block_ranges[] = {
    {"a100-sxm4-80gb", 0.55, 0.90},
    {"h100-sxm5", 0.50, 0.85},
};

START_TEST(gpt3_block_time_is_plausible)
{
    g_autoptr(HwGpu) gpu = load_gpu(block_ranges[_i].gpu);
    g_autoptr(WorkModel) m = load_model("gpt3-175b");
    WorkLayout layout = layout_of(8, false, 1, 1, 2048, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) ops = block_ops(m, &layout, true, WORK_PASS_FORWARD);
    WorkComputeConfig config;
    work_compute_config_init(&config, m);
    work_compute_block(ops, WORK_PASS_BACKWARD, m, &layout, &config);
    double seconds = (double)work_compute_ops_ps(ops, gpu) / SIM_PS_PER_S;
    double at_peak = (double)work_compute_ops_flops(ops) / (double)gpu->fp16_flops_per_s;
    ck_assert_msg(seconds >= at_peak / block_ranges[_i].high_fraction &&
                      seconds <= at_peak / block_ranges[_i].low_fraction,
                  "%s: %.3f ms, %.1f%% of peak", block_ranges[_i].gpu, seconds * 1e3,
                  100 * at_peak / seconds);
}
END_TEST

/* FlashAttention pays off where the s x s traffic is large: a Llama 3 70B
 * block at s 8192 on H100 is faster fused, and its fused kernel runs at
 * most at FlashAttention's published fraction of peak. */
START_TEST(flash_beats_gemm_attention_at_long_sequences)
{
    g_autoptr(HwGpu) gpu = load_gpu("h100-sxm5");
    g_autoptr(WorkModel) m = load_model("llama3-70b");
    WorkLayout layout = layout_of(4, true, 1, 1, 8192, WORK_RECOMPUTE_NONE);
    g_autoptr(GArray) flash = block_ops(m, &layout, true, WORK_PASS_FORWARD);
    g_autoptr(GArray) gemm = block_ops(m, &layout, false, WORK_PASS_FORWARD);
    ck_assert(work_compute_ops_ps(flash, gpu) < work_compute_ops_ps(gemm, gpu));
    const WorkOp *core = find_op(flash, "attn.core");
    double seconds = (double)(work_compute_op_ps(core, gpu) - WORK_COMPUTE_LAUNCH_PS) / 1e12;
    double executed = core->flops * (64.0 + 1) / (2 * 64); /* causal: 64 query blocks */
    ck_assert(executed / seconds <= 0.75 * gpu->fp16_flops_per_s * (1 + 1e-9));
}
END_TEST

/* Context parallelism (ring attention) on a Llama 3 70B block at s 8192,
 * tp 8: every GEMM and memory kernel works on s / cp tokens, so the
 * block's non-attention FLOPs are 1 / cp of the cp = 1 block's; attention
 * runs cp kernels a pass, whose convention FLOPs add up to the cp = 1
 * kernel's / cp (forward and backward), the first under the causal mask
 * and the others, by hand, 4 heads d (s / cp) (s / 2 cp) products at the
 * forward flash ceiling over their waves of 128-query blocks (H100:
 * FlashAttention-3's 65.5% at head size 128), and backward 5 / 2 of them
 * at the backward ceiling (56.7%). */
START_TEST(context_parallel_attention_by_hand)
{
    static const uint32_t cps[] = {2, 4, 8};
    g_autoptr(HwGpu) gpu = load_gpu("h100-sxm5");
    g_autoptr(WorkModel) m = load_model("llama3-70b");
    uint32_t cp = cps[_i];
    WorkLayout whole = layout_of(8, true, 1, 1, 8192, WORK_RECOMPUTE_NONE);
    WorkLayout split = whole;
    split.cp = cp;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(work_layout_check(&split, m, &error), "%s", error ? error->message : "");
    for (WorkPass pass = WORK_PASS_FORWARD; pass <= WORK_PASS_BACKWARD; pass++) {
        g_autoptr(GArray) a = block_ops(m, &whole, true, pass);
        g_autoptr(GArray) b = block_ops(m, &split, true, pass);
        uint64_t attn_a = 0, attn_b = 0, rest_a = 0, rest_b = 0, n_attn = 0;
        for (guint i = 0; i < a->len; i++) {
            const WorkOp *op = &g_array_index(a, WorkOp, i);
            *(op->kind == WORK_OP_ATTENTION ? &attn_a : &rest_a) += op->flops;
        }
        for (guint i = 0; i < b->len; i++) {
            const WorkOp *op = &g_array_index(b, WorkOp, i);
            *(op->kind == WORK_OP_ATTENTION ? &attn_b : &rest_b) += op->flops;
            n_attn += op->kind == WORK_OP_ATTENTION;
        }
        ck_assert_uint_eq(n_attn, cp);
        ck_assert_uint_eq(b->len, a->len + cp - 1);
        ck_assert_uint_eq(attn_b * cp, attn_a);
        ck_assert_uint_eq(rest_b * cp, rest_a);
    }
    g_autoptr(GArray) fwd = block_ops(m, &split, true, WORK_PASS_FORWARD);
    const WorkOp *local = find_op(fwd, "attn.core"), *ring = find_op(fwd, "attn.core.ring");
    uint64_t s = 8192 / cp, heads = 64 / 8, d = 128;
    ck_assert(local->causal && !ring->causal);
    ck_assert_uint_eq(local->m, s);
    ck_assert_uint_eq(ring->m, s);
    ck_assert_uint_eq(ring->n, s / 2);
    ck_assert_uint_eq(ring->flops, 4 * heads * s * s * d);
    uint64_t blocks = s / 128, waves = (heads * blocks + gpu->n_sms - 1) / gpu->n_sms;
    double share = (double)(heads * blocks) / (double)(waves * gpu->n_sms);
    double executed = 4.0 * heads * s * (s / 2) * d;
    /* H100 at head size 128: FlashAttention-3's 648 and 561 TFLOP/s of 989. */
    double seconds = executed / ((double)gpu->fp16_flops_per_s * (648.0 / 989.0) * share);
    double got = (double)(work_compute_op_ps(ring, gpu) - WORK_COMPUTE_LAUNCH_PS) / 1e12;
    ck_assert_msg(fabs(got - seconds) <= 1e-12, "ring kernel %.9f s, by hand %.9f s", got, seconds);
    g_autoptr(GArray) bwd = block_ops(m, &split, true, WORK_PASS_BACKWARD);
    const WorkOp *ring_bwd = find_op(bwd, "attn.core.ring.bwd");
    seconds = 2.5 * executed / ((double)gpu->fp16_flops_per_s * (561.0 / 989.0) * share);
    got = (double)(work_compute_op_ps(ring_bwd, gpu) - WORK_COMPUTE_LAUNCH_PS) / 1e12;
    ck_assert_msg(fabs(got - seconds) <= 1e-12, "ring backward %.9f s, by hand %.9f s", got,
                  seconds);
}
END_TEST

/* FlashAttention's ceiling by hand (work-compute-time.c): 1 / ceiling =
 * 1 / eta + kappa r, the line through A100's 73% at r = 1/4 and H100's
 * 648 / 989 at r = 1/2, r = tensor FLOPs / (exponentials x 4 d) an SM a
 * clock; backward 561 / 648 of forward. One non-causal kernel that fills
 * whole waves, so its time is its FLOPs over peak x ceiling. */
static const struct {
    const char *gpu;
    uint64_t d;
    double r, scale; /* scale: the GPU's own GEMM ceiling over its generation's */
} flash_cases[] = {
    {"a100-sxm4-80gb", 128, 0.25, 1}, {"h100-sxm5", 128, 0.5, 1}, {"h100-sxm5", 256, 0.25, 1},
    {"h100-sxm5", 64, 1, 1},          {"b200", 128, 1, 1},        {"gb200", 128, 1, 0.729 / 0.776},
    {"gb300", 128, 0.5, 1},
};

START_TEST(flash_ceiling_by_hand)
{
    g_autoptr(HwGpu) gpu = load_gpu(flash_cases[_i].gpu);
    double kappa = (989.0 / 648.0 - 1 / 0.73) / 0.25;
    double inv_eta = 1 / 0.73 - kappa * 0.25;
    double ceiling = flash_cases[_i].scale / (inv_eta + kappa * flash_cases[_i].r);
    const uint64_t s = 4096, d = flash_cases[_i].d;
    WorkOp op = {.name = "attn.core",
                 .kind = WORK_OP_ATTENTION,
                 .pass = WORK_PASS_FORWARD,
                 .math = WORK_MATH_FP16,
                 .n_batch = gpu->n_sms,
                 .m = s,
                 .n = s,
                 .k = d,
                 .bytes = 1};
    double executed = 4.0 * (double)gpu->n_sms * s * s * d;
    for (int backward = 0; backward < 2; backward++) {
        op.pass = backward ? WORK_PASS_BACKWARD : WORK_PASS_FORWARD;
        double want = (backward ? 2.5 * executed : executed) /
                      ((double)gpu->fp16_flops_per_s * ceiling * (backward ? 561.0 / 648.0 : 1));
        double got = (double)(work_compute_op_ps(&op, gpu) - WORK_COMPUTE_LAUNCH_PS) / 1e12;
        ck_assert_msg(fabs(got - want) <= 1e-12,
                      "%s d %" G_GUINT64_FORMAT " %s: %.12f s, by hand %.12f s",
                      flash_cases[_i].gpu, d, backward ? "backward" : "forward", got, want);
    }
    if (strcmp(flash_cases[_i].gpu, "a100-sxm4-80gb") == 0)
        ck_assert_double_eq_tol(ceiling, 0.73, 1e-12);
    if (flash_cases[_i].r == 0.5)
        ck_assert_double_eq_tol(ceiling, 648.0 / 989.0, 1e-12);
}
END_TEST

Suite *
work_compute_suite(void)
{
    Suite *s = suite_create("work-compute");
    TCase *tc = tcase_create("flops");
    tcase_add_loop_test(tc, forward_flops_are_the_model_formula, 0, N_CASE_LOOPS);
    tcase_add_loop_test(tc, backward_is_twice_forward, 0, N_CASE_LOOPS);
    tcase_add_loop_test(tc, full_recompute_adds_one_forward, 0, N_CASE_LOOPS);
    tcase_add_loop_test(tc, selective_recompute_replays_the_core, 0, N_CASE_LOOPS);
    tcase_add_loop_test(tc, backward_products_are_transposed, 0, N_CASE_LOOPS);
    suite_add_tcase(s, tc);
    tc = tcase_create("shapes");
    tcase_add_test(tc, gqa_and_swiglu_shapes);
    tcase_add_test(tc, moe_shapes);
    tcase_add_test(tc, moe_load_by_hand);
    tcase_add_test(tc, bytes_by_hand);
    tcase_add_test(tc, precision_recipes_by_hand);
    tcase_add_test(tc, sequence_parallelism_shards_the_norms);
    tcase_add_test(tc, embedding_and_head);
    tcase_add_test(tc, optimizer_bytes);
    suite_add_tcase(s, tc);
    tc = tcase_create("time");
    tcase_add_loop_test(tc, efficiency_is_a_fraction, 0, G_N_ELEMENTS(gpu_ids));
    tcase_add_loop_test(tc, causal_flops_never_beat_the_peak, 0, G_N_ELEMENTS(gpu_ids));
    tcase_add_loop_test(tc, efficiency_grows_with_square_size, 0, G_N_ELEMENTS(gpu_ids));
    tcase_add_loop_test(tc, skinny_gemms_are_slower, 0, G_N_ELEMENTS(gpu_ids));
    tcase_add_test(tc, wave_quantization_closed_form);
    tcase_add_test(tc, memory_bound_kernels_by_roofline);
    tcase_add_loop_test(tc, memory_kernel_time_is_exact, 0, G_N_ELEMENTS(gpu_ids));
    tcase_add_loop_test(tc, gpt3_block_time_is_plausible, 0, G_N_ELEMENTS(block_ranges));
    tcase_add_test(tc, flash_beats_gemm_attention_at_long_sequences);
    tcase_add_loop_test(tc, context_parallel_attention_by_hand, 0, 3);
    tcase_add_loop_test(tc, flash_ceiling_by_hand, 0, G_N_ELEMENTS(flash_cases));
    suite_add_tcase(s, tc);
    return s;
}
