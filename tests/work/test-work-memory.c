/* SPDX-License-Identifier: Apache-2.0 */
/* WorkMemory: weights, gradients and optimizer states by ZeRO stage worked
 * by hand on a tiny model; Korthikanti et al. 2022's per-layer activations
 * (Table 2) and first-stage totals (Figure 1) for GPT-3 175B, exactly;
 * what each pipeline schedule keeps in flight; uneven stages, each with
 * its own layers, the busiest deciding the fit; GQA, SwiGLU and experts;
 * a layout that does not fit is a result. */
#include <string.h>

#include "work/work-layout.h"
#include "work/work-compute.h"
#include "work/work-memory.h"
#include "work-suites.h"

#define GIB (UINT64_C(1) << 30)

static WorkLayout
layout(uint32_t tp, uint32_t pp, uint32_t dp, uint64_t global_batch, uint64_t seq_len)
{
    return work_test_layout(tp, pp, dp, global_batch, seq_len);
}

static void
assert_valid(const WorkLayout *l, const WorkModel *m)
{
    g_autoptr(GError) error = NULL;
    ck_assert_msg(work_layout_check(l, m, &error), "%s: %s", m->name, error ? error->message : "");
}

/* The tiny model (h 64, f 256, 4 layers, V 1000, 128 learned positions)
 * on tp 2, pp 2, dp 4. A block is attention 2 h^2 + 2 h^2 + 4 h = 16,640
 * and FFN 2 h f + f + h = 33,088, both split over tp (8,320 + 16,544),
 * and two LayerNorms 4 h = 256 whole: 25,120 a GPU. Stage 0: 2 blocks
 * (50,240), the embedding (V padded to a multiple of 128 x tp, 1024,
 * over tp) 512 x 64 = 32,768 and the positions 128 x 64 = 8,192: 91,200.
 * Stage 1: 2 blocks, the final norm 128 and the tied embedding's copy
 * 32,768: 83,136. ZeRO shards over dp = 4: 22,800 and 20,784. Bytes: 2 a weight, 4 a gradient, 12
 * of Adam. ZeRO 3 also holds two blocks' parameters whole, the one running
 * and the one gathered ahead: 2 x 25,120 x 2 bytes more. */
static const struct {
    WorkZero zero;
    uint32_t stage;
    uint64_t weights_bytes, gradients_bytes, optimizer_bytes;
} tiny_zero[] = {
    {WORK_ZERO_0, 0, 2 * 91200, 4 * 91200, 12 * 91200},
    {WORK_ZERO_1, 0, 2 * 91200, 4 * 91200, 12 * 22800},
    {WORK_ZERO_2, 0, 2 * 91200, 4 * 22800, 12 * 22800},
    {WORK_ZERO_3, 0, 2 * 22800 + 4 * 25120, 4 * 22800, 12 * 22800},
    {WORK_ZERO_0, 1, 2 * 83136, 4 * 83136, 12 * 83136},
    {WORK_ZERO_1, 1, 2 * 83136, 4 * 83136, 12 * 20784},
    {WORK_ZERO_2, 1, 2 * 83136, 4 * 20784, 12 * 20784},
    {WORK_ZERO_3, 1, 2 * 20784 + 4 * 25120, 4 * 20784, 12 * 20784},
};

START_TEST(zero_stages_by_hand)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = layout(2, 2, 4, 16, 128);
    l.zero = tiny_zero[_i].zero;
    assert_valid(&l, m);
    WorkMemory mem;
    work_memory_stage(&l, m, tiny_zero[_i].stage, &mem);
    ck_assert_uint_eq(mem.n_params, tiny_zero[_i].stage == 0 ? 91200 : 83136);
    ck_assert_uint_eq(mem.n_layers, 2);
    ck_assert_msg(mem.weights_bytes == tiny_zero[_i].weights_bytes, "case %d: weights", _i);
    ck_assert_msg(mem.gradients_bytes == tiny_zero[_i].gradients_bytes, "case %d: gradients", _i);
    ck_assert_msg(mem.optimizer_bytes == tiny_zero[_i].optimizer_bytes, "case %d: optimizer", _i);
}
END_TEST

/* The tiny model's activations on the same layout (1F1B, m = 16 / 4 = 4
 * microbatches). A block keeps s b h (10 + 24/t + 5 a s / (h t)) =
 * 8,192 x 42 = 344,064 bytes a microbatch. Stage 0 holds 2 microbatches
 * of 2 blocks and, for each, the token ids 8 s and the embedding's dropout
 * mask s h: 2 x 9,216. Stage 1 holds 1 microbatch of 2 blocks and the
 * output layer's inputs 2 x 2 s h = 32,768 and fp32 logits 4 s V / t =
 * 256,000. */
START_TEST(tiny_activations_by_hand)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = layout(2, 2, 4, 16, 128);
    ck_assert_uint_eq(work_memory_layer_activation_bytes(&l, m), 344064);
    WorkMemory first, last;
    work_memory_stage(&l, m, 0, &first);
    work_memory_stage(&l, m, 1, &last);
    ck_assert_uint_eq(first.n_chunks_in_flight, 2);
    ck_assert_uint_eq(first.activations_bytes, 4 * 344064);
    ck_assert_uint_eq(first.embedding_activations_bytes, 2 * 9216);
    ck_assert_uint_eq(first.output_activations_bytes, 0);
    ck_assert_uint_eq(last.n_chunks_in_flight, 1);
    ck_assert_uint_eq(last.activations_bytes, 2 * 344064);
    ck_assert_uint_eq(last.embedding_activations_bytes, 0);
    ck_assert_uint_eq(last.output_activations_bytes, 32768 + 256000);
    ck_assert_uint_eq(first.total_bytes, 18 * 91200 + 4 * 344064 + 2 * 9216);
    ck_assert_uint_eq(last.total_bytes, 18 * 83136 + 2 * 344064 + 32768 + 256000);
}
END_TEST

/* FSDP, by hand, on the same layout: ZeRO 3's states and gathered blocks,
 * and one block's whole gradients, 25,120 x 4 bytes, until their
 * reduce-scatter. */
START_TEST(fsdp_by_hand)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = layout(2, 2, 4, 16, 128);
    l.zero = WORK_ZERO_3;
    l.fsdp = true;
    assert_valid(&l, m);
    WorkMemory mem;
    work_memory_stage(&l, m, 0, &mem);
    ck_assert_uint_eq(mem.weights_bytes, 2 * 22800 + 4 * 25120);
    ck_assert_uint_eq(mem.gradients_bytes, 4 * 22800 + 4 * 25120);
    ck_assert_uint_eq(mem.optimizer_bytes, 12 * 22800);
    l.zero = WORK_ZERO_1;
    g_autoptr(GError) error = NULL;
    ck_assert(!work_layout_check(&l, m, &error));
    ck_assert(g_str_has_prefix(error->message, "fsdp: "));
}
END_TEST

/* Context parallelism, by hand: the tiny model on tp 2, cp 2, pp 2, dp 2
 * (16 GPUs; m = 8 / 2 = 4 microbatches), fused attention, ZeRO 1. Each
 * GPU keeps its 64 of the 128 tokens: a block per token (4 e + 2) h = 640
 * outside the tensor region, e (2 heads d + 2 kv d + 2 f) = 2 (2 x 2 x 16
 * + 2 x 2 x 16 + 2 x 128) = 768 inside (heads and f over tp; GELU's input
 * and output) and the fp32 log-sum-exp 4 x 2 heads = 8: 1,416 bytes,
 * 90,624 a microbatch, half the cp 1 block's. The weights are whole on every context-parallel rank
 * and the optimizer states shard over dp x cp = 4 (stage 0: 91,200 parameters, 22,800 a GPU). Stage
 * 0 holds 2 microbatches of 2 blocks and their token ids and dropout masks, 64 x 8 + 64 x 64 =
 * 4,608 each. */
START_TEST(context_parallel_by_hand)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = layout(2, 2, 2, 8, 128);
    l.flash_attention = true;
    l.zero = WORK_ZERO_1;
    WorkLayout whole = l;
    l.cp = 2;
    assert_valid(&l, m);
    ck_assert_uint_eq(work_memory_layer_activation_bytes(&l, m), 90624);
    ck_assert_uint_eq(2 * work_memory_layer_activation_bytes(&l, m),
                      work_memory_layer_activation_bytes(&whole, m));
    WorkMemory first;
    work_memory_stage(&l, m, 0, &first);
    ck_assert_uint_eq(first.weights_bytes, 2 * 91200);
    ck_assert_uint_eq(first.gradients_bytes, 4 * 91200);
    ck_assert_uint_eq(first.optimizer_bytes, 12 * 22800);
    ck_assert_uint_eq(first.activations_bytes, 4 * 90624);
    ck_assert_uint_eq(first.embedding_activations_bytes, 2 * 4608);
    ck_assert_uint_eq(first.total_bytes, 6 * 91200 + 12 * 22800 + 4 * 90624 + 2 * 4608);
}
END_TEST

/* Uneven stages, the tiny model's 4 layers on pp 3 as 1, 2, 1
 * (first_stage_layers 1, last_stage_layers 1), tp 2, dp 4, 1F1B with m = 4
 * and no ZeRO: 18 bytes a parameter, 344,064 bytes a block and microbatch
 * (tiny_activations_by_hand). Stage 0: 1 block (25,120), the embedding
 * 32,768 and positions 8,192, 66,080 parameters; min(3, 4) = 3 microbatches
 * of 1 block and their token ids and dropout masks, 3 x 9,216. Stage 2: 1
 * block, the final norm 128 and the embedding's copy 32,768, 58,016; one
 * microbatch of 1 block and the output layer's 32,768 + 256,000. Stage 1:
 * 2 blocks, 50,240; 2 microbatches of 2 blocks: the busiest, which decides
 * whether the layout fits. */
START_TEST(uneven_stages_by_hand)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = layout(2, 3, 4, 16, 128);
    l.first_stage_layers = 1;
    l.last_stage_layers = 1;
    assert_valid(&l, m);
    WorkMemory first, middle, last;
    work_memory_stage(&l, m, 0, &first);
    work_memory_stage(&l, m, 1, &middle);
    work_memory_stage(&l, m, 2, &last);
    ck_assert_uint_eq(first.n_layers, 1);
    ck_assert_uint_eq(first.n_params, 66080);
    ck_assert_uint_eq(first.n_layers_in_flight, 3);
    ck_assert_uint_eq(first.activations_bytes, 3 * 344064);
    ck_assert_uint_eq(first.embedding_activations_bytes, 3 * 9216);
    ck_assert_uint_eq(first.total_bytes, 18 * 66080 + 3 * 344064 + 3 * 9216);
    ck_assert_uint_eq(last.n_layers, 1);
    ck_assert_uint_eq(last.n_params, 58016);
    ck_assert_uint_eq(last.activations_bytes, 344064);
    ck_assert_uint_eq(last.output_activations_bytes, 32768 + 256000);
    ck_assert_uint_eq(last.total_bytes, 18 * 58016 + 344064 + 32768 + 256000);
    ck_assert_uint_eq(middle.n_layers, 2);
    ck_assert_uint_eq(middle.n_params, 50240);
    uint64_t busiest = 18 * 50240 + 2 * 2 * 344064;
    ck_assert_uint_eq(middle.total_bytes, busiest);
    WorkMemory peak;
    ck_assert(work_memory_fits(&l, m, busiest, &peak));
    ck_assert_uint_eq(peak.stage, 1);
    ck_assert(!work_memory_fits(&l, m, busiest - 1, &peak));
    ck_assert_uint_eq(peak.total_bytes, busiest);
}
END_TEST

/* The loss counted as a layer, 7 layers on pp 2 vp 2 (m = 4): the last
 * stage holds chunks of 2 and 1 layers, 3 in all, and keeps 6 blocks of
 * activations at its peak (test-work-pipeline walks its schedule by hand);
 * the first holds 4 and keeps 5 chunks of 2. */
START_TEST(accounted_loss_stage_by_hand)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    m->n_layers = 7;
    WorkLayout l = layout(1, 2, 1, 4, 128);
    l.vp = 2;
    l.schedule = WORK_SCHEDULE_INTERLEAVED;
    l.account_for_loss = true;
    assert_valid(&l, m);
    uint64_t block = work_memory_layer_activation_bytes(&l, m);
    WorkMemory first, last;
    work_memory_stage(&l, m, 0, &first);
    work_memory_stage(&l, m, 1, &last);
    ck_assert_uint_eq(first.n_layers, 4);
    ck_assert_uint_eq(first.n_layers_in_flight, 10);
    ck_assert_uint_eq(first.activations_bytes, 10 * block);
    ck_assert_uint_eq(last.n_layers, 3);
    ck_assert_uint_eq(last.n_chunks_in_flight, 3);
    ck_assert_uint_eq(last.n_layers_in_flight, 6);
    ck_assert_uint_eq(last.activations_bytes, 6 * block);
}
END_TEST

/* On one GPU the parameters are the model's, every shipped shape, plus the
 * rows Megatron pads the vocabulary with. */
static const char *const one_gpu_models[] = {"gpt3-175b",     "llama2-7b",    "llama3-70b",
                                             "llama3.1-405b", "mixtral-8x7b", "megatron-1t"};

START_TEST(one_gpu_holds_the_whole_model)
{
    g_autoptr(WorkModel) m = work_test_load_model(one_gpu_models[_i]);
    WorkLayout l = layout(1, 1, 1, 1, m->seq_len);
    assert_valid(&l, m);
    WorkMemory mem;
    work_memory_stage(&l, m, 0, &mem);
    uint64_t padding = (work_compute_vocab_padded(m, 1) - m->vocab_size) * m->hidden_size *
                       (m->tied_embeddings ? 1 : 2);
    ck_assert_msg(mem.n_params == work_model_params(m) + padding,
                  "%s: %" G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT,
                  m->name, mem.n_params, work_model_params(m), padding);
    ck_assert_uint_eq(mem.weights_bytes, 2 * mem.n_params);
}
END_TEST

/* Over pp stages, tp 1: the model once, plus the tied embedding's copy
 * that Megatron keeps on the last stage (GPT-3), none when untied, and
 * the padded vocabulary's rows. */
START_TEST(stages_add_up_to_the_model)
{
    const struct {
        const char *id;
        uint32_t pp;
    } cases[] = {{"gpt3-175b", 8}, {"llama3-70b", 4}, {"mixtral-8x7b", 4}};
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(WorkModel) m = work_test_load_model(cases[i].id);
        WorkLayout l = layout(1, cases[i].pp, 1, 8, 2048);
        assert_valid(&l, m);
        uint64_t sum = 0;
        for (uint32_t stage = 0; stage < l.pp; stage++) {
            WorkMemory mem;
            work_memory_stage(&l, m, stage, &mem);
            sum += mem.n_params;
        }
        uint64_t padded = work_compute_vocab_padded(m, 1);
        uint64_t copy = m->tied_embeddings ? padded * m->hidden_size : 0;
        uint64_t padding = (padded - m->vocab_size) * m->hidden_size * (m->tied_embeddings ? 1 : 2);
        ck_assert_msg(sum == work_model_params(m) + padding + copy, "%s", m->name);
    }
}
END_TEST

/* Korthikanti et al. 2022, Table 2, for GPT-3 175B (s 2048, b 1, h 12288,
 * a 96, so 5 a s / h = 80) at t = 8, and without tensor parallelism. */
static const struct {
    uint32_t tp;
    bool sp;
    WorkRecompute recompute;
    uint64_t bytes;
    const char *row;
} table2[] = {
    /* s b h (34 + 5 a s / h) = 25,165,824 x 114 */
    {1, false, WORK_RECOMPUTE_NONE, 2868903936, "no parallelism"},
    /* s b h (10 + 24/t + 5 a s / (h t)) = 25,165,824 x 23 */
    {8, false, WORK_RECOMPUTE_NONE, 578813952, "tensor parallel"},
    /* s b h (34/t + 5 a s / (h t)) = 25,165,824 x 14.25 */
    {8, true, WORK_RECOMPUTE_NONE, 358612992, "tensor + sequence parallel"},
    /* s b h (10 + 24/t) = 25,165,824 x 13 */
    {8, false, WORK_RECOMPUTE_SELECTIVE, 327155712, "tensor parallel + selective"},
    /* s b h 34/t = 25,165,824 x 4.25 */
    {8, true, WORK_RECOMPUTE_SELECTIVE, 106954752, "tensor + sequence + selective"},
    /* s b h 2 */
    {8, false, WORK_RECOMPUTE_FULL, 50331648, "full recompute"},
    /* the block's input as Megatron stores it with sp: s / t tokens */
    {8, true, WORK_RECOMPUTE_FULL, 6291456, "full recompute, sequence parallel"},
};

START_TEST(table2_per_layer_gpt3_175b)
{
    g_autoptr(WorkModel) m = work_test_load_model("gpt3-175b");
    WorkLayout l = layout(table2[_i].tp, 8, 1, 64, 2048);
    l.sp = table2[_i].sp;
    l.recompute = table2[_i].recompute;
    assert_valid(&l, m);
    uint64_t bytes = work_memory_layer_activation_bytes(&l, m);
    ck_assert_msg(bytes == table2[_i].bytes, "%s: %" G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT,
                  table2[_i].row, bytes, table2[_i].bytes);
}
END_TEST

/* Korthikanti et al. 2022, Figure 1 (as transcribed in Calculon's
 * calculon/llm/validation.py with its layout, validation/seqsel/fig1):
 * GPT-3 175B on tp 8, pp 8, interleaved with 3 virtual stages, microbatch
 * 1, 64 microbatches. The first stage's activations: 66.84375 GiB with
 * tensor parallelism alone, 12.3515625 GiB with sequence parallelism and
 * selective recompute. Both are Table 2 x 96 layers x (1 + 7/24), the
 * interleaving factor of Section 4.2.3: 31 chunks of 4 layers in flight. */
START_TEST(figure1_first_stage_gpt3_175b)
{
    g_autoptr(WorkModel) m = work_test_load_model("gpt3-175b");
    WorkLayout l = layout(8, 8, 1, 64, 2048);
    l.schedule = WORK_SCHEDULE_INTERLEAVED;
    l.vp = 3;
    assert_valid(&l, m);
    WorkMemory mem;
    work_memory_stage(&l, m, 0, &mem);
    ck_assert_uint_eq(mem.n_chunks_in_flight, 31);
    ck_assert_uint_eq(mem.n_microbatches_in_flight, 11);
    ck_assert_uint_eq(mem.activations_bytes, 66 * GIB + 27 * GIB / 32); /* 66.84375 GiB */
    l.sp = true;
    l.recompute = WORK_RECOMPUTE_SELECTIVE;
    work_memory_stage(&l, m, 0, &mem);
    ck_assert_uint_eq(mem.activations_bytes, 12 * GIB + 45 * GIB / 128); /* 12.3515625 GiB */
}
END_TEST

/* Figure 1's "parameters and optimizer state" for GPT-3 175B: 45.5625
 * GiB, 12 l h^2 / (p t) x 18 bytes (matrices only). A middle stage, with no
 * embedding, holds that plus biases and norms: within 0.05%. */
START_TEST(figure1_parameters_and_optimizer)
{
    g_autoptr(WorkModel) m = work_test_load_model("gpt3-175b");
    WorkLayout l = layout(8, 8, 1, 64, 2048);
    WorkMemory mem;
    work_memory_stage(&l, m, 3, &mem);
    double states = (double)(mem.weights_bytes + mem.gradients_bytes + mem.optimizer_bytes);
    double paper = 45.5625 * (double)GIB;
    ck_assert_msg(states >= paper && states <= paper * 1.0005, "%.4f GiB", states / (double)GIB);
}
END_TEST

/* Chunks in flight by schedule, stage and microbatch count: GPipe keeps
 * all m; 1F1B pp - stage, or m when fewer; interleaved 2 (pp - stage - 1)
 * + (vp - 1) pp + 1, or all m vp when fewer. */
static const struct {
    WorkSchedule schedule;
    uint32_t pp, vp;
    uint64_t microbatches;
    uint32_t stage;
    uint64_t chunks;
} in_flight[] = {
    {WORK_SCHEDULE_GPIPE, 4, 1, 8, 0, 8},         {WORK_SCHEDULE_GPIPE, 4, 1, 8, 3, 8},
    {WORK_SCHEDULE_1F1B, 4, 1, 8, 0, 4},          {WORK_SCHEDULE_1F1B, 4, 1, 8, 1, 3},
    {WORK_SCHEDULE_1F1B, 4, 1, 8, 3, 1},          {WORK_SCHEDULE_1F1B, 4, 1, 2, 0, 2},
    {WORK_SCHEDULE_1F1B, 4, 1, 2, 2, 2},          {WORK_SCHEDULE_1F1B, 4, 1, 2, 3, 1},
    {WORK_SCHEDULE_1F1B, 1, 1, 8, 0, 1},          {WORK_SCHEDULE_INTERLEAVED, 4, 2, 8, 0, 11},
    {WORK_SCHEDULE_INTERLEAVED, 4, 2, 8, 3, 5},   {WORK_SCHEDULE_INTERLEAVED, 4, 2, 4, 0, 8},
    {WORK_SCHEDULE_INTERLEAVED, 8, 3, 64, 0, 31}, {WORK_SCHEDULE_INTERLEAVED, 8, 3, 64, 7, 17},
};

START_TEST(chunks_in_flight_by_schedule)
{
    WorkLayout l = layout(1, in_flight[_i].pp, 1, in_flight[_i].microbatches, 2048);
    l.schedule = in_flight[_i].schedule;
    l.vp = in_flight[_i].vp;
    uint64_t chunks = work_memory_chunks_in_flight(&l, in_flight[_i].stage);
    ck_assert_msg(chunks == in_flight[_i].chunks,
                  "case %d: %" G_GUINT64_FORMAT " chunks, expected %" G_GUINT64_FORMAT, _i, chunks,
                  in_flight[_i].chunks);
}
END_TEST

/* The same layout under GPipe holds m / pp times 1F1B's activations on the
 * first stage (m = 96, pp = 8: 12 times), and its last stage keeps the
 * logits of all m microbatches, not one. */
START_TEST(gpipe_holds_m_over_pp_times_1f1b)
{
    g_autoptr(WorkModel) m = work_test_load_model("gpt3-175b");
    WorkLayout l = layout(8, 8, 16, 1536, 2048);
    assert_valid(&l, m);
    WorkMemory f1b_first, f1b_last, gpipe_first, gpipe_last;
    work_memory_stage(&l, m, 0, &f1b_first);
    work_memory_stage(&l, m, 7, &f1b_last);
    l.schedule = WORK_SCHEDULE_GPIPE;
    work_memory_stage(&l, m, 0, &gpipe_first);
    work_memory_stage(&l, m, 7, &gpipe_last);
    ck_assert_uint_eq(f1b_first.n_microbatches_in_flight, 8);
    ck_assert_uint_eq(gpipe_first.n_microbatches_in_flight, 96);
    ck_assert_uint_eq(gpipe_first.activations_bytes, 12 * f1b_first.activations_bytes);
    ck_assert_uint_eq(gpipe_last.activations_bytes, 96 * f1b_last.activations_bytes);
    ck_assert_uint_eq(gpipe_last.output_activations_bytes, 96 * f1b_last.output_activations_bytes);
    ck_assert_uint_eq(gpipe_first.weights_bytes, f1b_first.weights_bytes);
}
END_TEST

/* Llama 3 70B (GQA 64/8, SwiGLU f 28672, head 128), s 8192, sequence
 * parallel with selective recompute, per token: outside 10 h over t ranks'
 * tokens; inside 2 x (Q and attention output 2 x 64/t x 128, K and V
 * 2 x max(8/t, 1) x 128, SwiGLU 3 x 28672 / t).
 *   t = 8:  1,024 x 81,920 + 8,192 x 2 x 13,056 = 297,795,584;
 *   t = 16 (key/value heads sub-sharded, one a rank):
 *           512 x 81,920 + 8,192 x 2 x 6,656 = 150,994,944.
 * Without recompute the materialised scores would add 5 a s / t per token
 * (Table 2); fused attention keeps 4 bytes a head instead. */
START_TEST(gqa_and_swiglu_by_hand)
{
    g_autoptr(WorkModel) m = work_test_load_model("llama3-70b");
    WorkLayout l = layout(8, 4, 8, 512, 8192);
    l.sp = true;
    l.recompute = WORK_RECOMPUTE_SELECTIVE;
    assert_valid(&l, m);
    ck_assert_uint_eq(work_memory_layer_activation_bytes(&l, m), 297795584);
    /* Fused attention without recompute adds only the fp32 log-sum-exp of
     * the rank's 8 heads: 8,192 x 4 x 8 = 262,144. */
    l.recompute = WORK_RECOMPUTE_NONE;
    l.flash_attention = true;
    ck_assert_uint_eq(work_memory_layer_activation_bytes(&l, m), 297795584 + 262144);
    l.recompute = WORK_RECOMPUTE_SELECTIVE;
    l.tp = 16;
    l.dp = 4;
    assert_valid(&l, m);
    ck_assert_uint_eq(work_memory_layer_activation_bytes(&l, m), 150994944);
}
END_TEST

/* Mixtral 8x7B on tp 1, pp 1, dp 8, ep 8, ZeRO-1. Dense a block:
 * attention 2 h^2 + 2 h 1024 = 41,943,040, two RMSNorms 8,192, the router
 * h x 8 = 32,768; 32 blocks, two embeddings 2 x 32000 h and the final norm:
 * 1,605,636,096. Experts: one of 8 a GPU, 3 h 14336 = 176,160,768 a block,
 * 5,637,144,576 in all. Adam's states: the dense ones over dp = 8, the
 * experts' over dp / ep = 1 (no other GPU holds the same expert). */
START_TEST(experts_shard_over_dp_over_ep)
{
    g_autoptr(WorkModel) m = work_test_load_model("mixtral-8x7b");
    WorkLayout l = layout(1, 1, 8, 64, 4096);
    l.ep = 8;
    l.zero = WORK_ZERO_1;
    assert_valid(&l, m);
    WorkMemory mem;
    work_memory_stage(&l, m, 0, &mem);
    ck_assert_uint_eq(mem.n_params, UINT64_C(1605636096) + UINT64_C(5637144576));
    ck_assert_uint_eq(mem.optimizer_bytes, 12 * (UINT64_C(1605636096) / 8 + UINT64_C(5637144576)));
    ck_assert_uint_eq(mem.weights_bytes, 2 * mem.n_params);
}
END_TEST

/* Llama 3 70B unsplit over 8 data-parallel GPUs needs 18 bytes of state
 * for each of its 70.6B parameters: a valid layout that does not fit in
 * 80 GiB, reported with its numbers. GPT-3 175B on 1,024 GPUs with
 * sequence parallelism, selective recompute and ZeRO-1 fits. */
START_TEST(layout_too_big_is_a_result)
{
    g_autoptr(WorkModel) llama = work_test_load_model("llama3-70b");
    WorkLayout l = layout(1, 1, 8, 64, 8192);
    assert_valid(&l, llama);
    WorkMemory mem;
    ck_assert(!work_memory_fits(&l, llama, 80 * GIB, &mem));
    ck_assert_uint_gt(mem.total_bytes, 18 * work_model_params(llama));
    g_autofree char *line = work_memory_describe(&mem, &l, 80 * GIB);
    ck_assert_msg(strstr(line, "stage 0 of 1: weights 131.42 GiB") == line, "%s", line);
    ck_assert_msg(strstr(line, "of 80.00 GiB HBM: does not fit (") != NULL, "%s", line);

    g_autoptr(WorkModel) gpt = work_test_load_model("gpt3-175b");
    l = layout(8, 8, 16, 1536, 2048);
    l.sp = true;
    l.recompute = WORK_RECOMPUTE_SELECTIVE;
    l.zero = WORK_ZERO_1;
    assert_valid(&l, gpt);
    ck_assert(work_memory_fits(&l, gpt, 80 * GIB, &mem));
    g_autofree char *fits = work_memory_describe(&mem, &l, 80 * GIB);
    ck_assert_msg(strstr(fits, ": fits (") != NULL, "%s", fits);
}
END_TEST

/* work_memory_fits reports the stage with the largest total. */
START_TEST(fits_reports_the_most_loaded_stage)
{
    const char *const ids[] = {"gpt3-175b", "llama3-70b", "llama2-7b"};
    for (size_t i = 0; i < G_N_ELEMENTS(ids); i++) {
        g_autoptr(WorkModel) m = work_test_load_model(ids[i]);
        WorkLayout l = layout(2, 4, 2, 32, 2048);
        assert_valid(&l, m);
        WorkMemory peak;
        work_memory_fits(&l, m, UINT64_MAX, &peak);
        for (uint32_t stage = 0; stage < l.pp; stage++) {
            WorkMemory mem;
            work_memory_stage(&l, m, stage, &mem);
            ck_assert_msg(mem.total_bytes <= peak.total_bytes, "%s stage %u", ids[i], stage);
            ck_assert_msg(stage >= peak.stage || mem.total_bytes < peak.total_bytes,
                          "%s: not the first of equal stages", ids[i]);
        }
    }
}
END_TEST

/* Absurd batches saturate instead of wrapping round to a small number. */
START_TEST(huge_layouts_saturate)
{
    g_autoptr(WorkModel) m = work_test_tiny_model();
    WorkLayout l = layout(1, 1, 1, UINT64_C(1) << 60, 128);
    l.micro_batch = UINT64_C(1) << 60;
    /* A checked layout never gets here (WORK_LAYOUT_MAX_MICRO_TOKENS); the
     * memory model saturates all the same. */
    ck_assert(!work_layout_check(&l, m, NULL));
    WorkMemory mem;
    ck_assert(!work_memory_fits(&l, m, UINT64_MAX - 1, &mem));
    ck_assert_uint_eq(mem.total_bytes, UINT64_MAX);
}
END_TEST

Suite *
work_memory_suite(void)
{
    Suite *s = suite_create("work-memory");
    TCase *states = tcase_create("states");
    tcase_add_loop_test(states, zero_stages_by_hand, 0, G_N_ELEMENTS(tiny_zero));
    tcase_add_loop_test(states, one_gpu_holds_the_whole_model, 0, G_N_ELEMENTS(one_gpu_models));
    tcase_add_test(states, stages_add_up_to_the_model);
    tcase_add_test(states, experts_shard_over_dp_over_ep);
    tcase_add_test(states, figure1_parameters_and_optimizer);
    suite_add_tcase(s, states);
    TCase *activations = tcase_create("activations");
    tcase_add_test(activations, tiny_activations_by_hand);
    tcase_add_loop_test(activations, table2_per_layer_gpt3_175b, 0, G_N_ELEMENTS(table2));
    tcase_add_test(activations, figure1_first_stage_gpt3_175b);
    tcase_add_loop_test(activations, chunks_in_flight_by_schedule, 0, G_N_ELEMENTS(in_flight));
    tcase_add_test(activations, gpipe_holds_m_over_pp_times_1f1b);
    tcase_add_test(activations, gqa_and_swiglu_by_hand);
    tcase_add_test(activations, uneven_stages_by_hand);
    tcase_add_test(activations, context_parallel_by_hand);
    tcase_add_test(activations, fsdp_by_hand);
    tcase_add_test(activations, accounted_loss_stage_by_hand);
    suite_add_tcase(s, activations);
    TCase *fit = tcase_create("fit");
    tcase_add_test(fit, layout_too_big_is_a_result);
    tcase_add_test(fit, fits_reports_the_most_loaded_stage);
    tcase_add_test(fit, huge_layouts_saturate);
    suite_add_tcase(s, fit);
    return s;
}
