/* SPDX-License-Identifier: Apache-2.0 */
/* WorkLayout: published layouts pass the checks; each broken rule fails
 * with the key named first and the values and the model in the message. */
#include <string.h>

#include "hw/hw-keys.h"
#include "work/work-layout.h"
#include "work-suites.h"

/* A model with grouped heads that split evenly nowhere but over 3 ranks:
 * 12 heads, 3 key/value heads, an FFN 225 wide. */
static WorkModel *
tiny_gqa_model(void)
{
    WorkModel *m = work_test_tiny_model();
    g_free(m->name);
    m->name = g_strdup("tiny GQA");
    m->hidden_size = 96;
    m->n_heads = 12;
    m->n_kv_heads = 3;
    m->ffn_hidden_size = 225;
    return m;
}

static WorkModel *
model_for(const char *id)
{
    return strcmp(id, "tiny-gqa") == 0 ? tiny_gqa_model() : work_test_load_model(id);
}

/* The fields a case sets; the rest are bf16 weights and activations, fp32
 * gradients, Adam (12 bytes), no ZeRO, no recompute. */
typedef struct Case {
    const char *model;
    uint32_t tp, pp, dp, vp, ep;
    uint64_t global_batch, micro_batch, seq_len;
    WorkSchedule schedule;
    bool sp;
    const char *message; /* the whole error message; NULL for a good layout */
} Case;

static WorkLayout
layout_of(const Case *c)
{
    return (WorkLayout){
        .tp = c->tp,
        .cp = 1,
        .pp = c->pp,
        .dp = c->dp,
        .vp = c->vp,
        .ep = c->ep,
        .sp = c->sp,
        .zero = WORK_ZERO_1,
        .recompute = WORK_RECOMPUTE_SELECTIVE,
        .schedule = c->schedule,
        .global_batch = c->global_batch,
        .micro_batch = c->micro_batch,
        .seq_len = c->seq_len,
        .param_bytes = 2,
        .grad_bytes = 4,
        .optimizer_bytes = 12,
        .activation_bytes = 2,
    };
}

#define F1B WORK_SCHEDULE_1F1B
#define GPIPE WORK_SCHEDULE_GPIPE
#define INTERLEAVED WORK_SCHEDULE_INTERLEAVED

/* Layouts from the literature: Llama 3 70B on 256 GPUs; GPT-3 175B as in
 * the brief (1,024 GPUs) and as in Korthikanti et al. 2022's Figure 1 (vp
 * 3); SC21 Table 1's 145B (interleaved, 5 layers a virtual stage) and 1T
 * rows; Mixtral with 8-way expert parallelism; tp beyond Llama's 8
 * key/value heads (sub-sharded). */
static const Case good[] = {
    {"llama3-70b", 8, 4, 8, 1, 1, 512, 1, 8192, F1B, true, NULL},
    {"gpt3-175b", 8, 8, 16, 1, 1, 1536, 1, 2048, F1B, false, NULL},
    {"gpt3-175b", 8, 8, 1, 3, 1, 64, 1, 2048, INTERLEAVED, true, NULL},
    {"megatron-145b", 8, 8, 24, 2, 1, 2304, 2, 2048, INTERLEAVED, false, NULL},
    {"megatron-1t", 8, 64, 6, 1, 1, 3072, 1, 2048, F1B, false, NULL},
    {"mixtral-8x7b", 2, 4, 8, 1, 8, 256, 1, 4096, GPIPE, true, NULL},
    {"llama3-70b", 16, 5, 4, 1, 1, 64, 2, 8192, F1B, true, NULL},
    {"tiny-gqa", 3, 2, 2, 1, 1, 4, 2, 96, F1B, true, NULL},
};

START_TEST(good_layouts_pass)
{
    const Case *c = &good[_i];
    g_autoptr(WorkModel) m = model_for(c->model);
    WorkLayout layout = layout_of(c);
    g_autoptr(GError) error = NULL;
    ck_assert_msg(work_layout_check(&layout, m, &error), "%s case %d: %s", c->model, _i,
                  error ? error->message : "");
    ck_assert_ptr_null(error);
}
END_TEST

static const Case bad[] = {
    {"llama3-70b", 3, 4, 8, 1, 1, 512, 1, 8192, F1B, false,
     "tp: 3 does not divide the 64 heads of Llama 3 70B"},
    {"tiny-gqa", 2, 1, 1, 1, 1, 4, 1, 128, F1B, false,
     "tp: 2 is neither a divisor nor a multiple of the 3 key/value heads of tiny GQA"},
    {"tiny-gqa", 6, 1, 1, 1, 1, 4, 1, 128, F1B, false,
     "tp: 6 does not divide the 225-wide FFN of tiny GQA"},
    {"llama3-70b", 8, 8, 8, 1, 1, 512, 1, 8190, F1B, true,
     "sp: the 8190-token sequence does not split over tp 8 (sequence parallelism gives each "
     "rank seq_len / tp tokens)"},
    {"llama3-70b", 8, 3, 8, 1, 1, 512, 1, 8192, F1B, false,
     "pp: 3 does not divide the 80 layers of Llama 3 70B; expected first_stage_layers and "
     "last_stage_layers (such as 27 and 26, leaving 27 to the middle stage), or "
     "account_for_embedding (80 + 1 = 3 x 27)"},
    {"llama3-70b", 8, 4, 8, 2, 1, 512, 1, 8192, F1B, false,
     "vp: 2 needs the interleaved schedule; expected vp 1 with 1F1B"},
    {"llama3-70b", 8, 4, 8, 2, 1, 512, 1, 8192, GPIPE, false,
     "vp: 2 needs the interleaved schedule; expected vp 1 with GPipe"},
    {"llama3-70b", 8, 4, 8, 1, 1, 512, 1, 8192, INTERLEAVED, false,
     "schedule: interleaved needs vp > 1 (with vp 1 it is plain 1F1B)"},
    {"llama3-70b", 8, 1, 8, 2, 1, 512, 1, 8192, INTERLEAVED, false,
     "vp: 2 needs pp > 1 (there are no stages to interleave)"},
    {"llama3-70b", 8, 4, 8, 3, 1, 512, 1, 8192, INTERLEAVED, false,
     "vp: 3 does not divide the 20 layers of each of the 4 pipeline stages of Llama 3 70B"},
    {"llama3-70b", 8, 4, 8, 1, 1, 100, 1, 8192, F1B, false,
     "global_batch: 100 is not a multiple of dp x micro_batch (8 x 1)"},
    {"llama3-70b", 8, 4, 8, 1, 1, 8, 2, 8192, F1B, false,
     "global_batch: 8 is not a multiple of dp x micro_batch (8 x 2)"},
    {"gpt3-175b", 8, 8, 1, 3, 1, 60, 1, 2048, INTERLEAVED, false,
     "global_batch: the interleaved schedule needs the microbatches per pipeline (60) to be a "
     "multiple of pp (8)"},
    {"mixtral-8x7b", 2, 4, 6, 1, 3, 384, 1, 4096, F1B, false,
     "ep: 3 does not divide the 8 experts of Mixtral 8x7B"},
    {"mixtral-8x7b", 2, 4, 2, 1, 4, 256, 1, 4096, F1B, false,
     "ep: 4 does not divide dp (2); expert-parallel ranks lie inside the data-parallel group"},
    {"llama3-70b", 8, 4, 8, 1, 2, 512, 1, 8192, F1B, false,
     "ep: 2 needs a mixture-of-experts model; Llama 3 70B is dense"},
    {"gpt3-175b", 8, 8, 16, 1, 1, 1536, 1, 4096, F1B, false,
     "seq_len: 4096 exceeds the 2048 learned positions of GPT-3 175B"},
    {"llama3-70b", 0, 4, 8, 1, 1, 512, 1, 8192, F1B, false, "tp: 0; expected at least 1"},
    {"llama3-70b", 8, 0, 8, 1, 1, 512, 1, 8192, F1B, false, "pp: 0; expected at least 1"},
    {"llama3-70b", 8, 4, 0, 1, 1, 512, 1, 8192, F1B, false, "dp: 0; expected at least 1"},
    {"llama3-70b", 8, 4, 8, 0, 1, 512, 1, 8192, F1B, false, "vp: 0; expected at least 1"},
    {"llama3-70b", 8, 4, 8, 1, 0, 512, 1, 8192, F1B, false, "ep: 0; expected at least 1"},
    {"llama3-70b", 8, 4, 8, 1, 1, 0, 1, 8192, F1B, false, "global_batch: 0; expected at least 1"},
    {"llama3-70b", 8, 4, 8, 1, 1, 512, 0, 8192, F1B, false, "micro_batch: 0; expected at least 1"},
    {"llama3-70b", 8, 4, 8, 1, 1, 512, 1, 0, F1B, false, "seq_len: 0; expected at least 1"},
};

START_TEST(bad_layouts_fail_naming_the_key)
{
    const Case *c = &bad[_i];
    g_autoptr(WorkModel) m = model_for(c->model);
    WorkLayout layout = layout_of(c);
    g_autoptr(GError) error = NULL;
    ck_assert_msg(!work_layout_check(&layout, m, &error), "case %d (%s) passed", _i, c->message);
    ck_assert_msg(error != NULL, "case %d: no error", _i);
    ck_assert_msg(g_error_matches(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID), "case %d: domain",
                  _i);
    ck_assert_msg(strcmp(error->message, c->message) == 0, "case %d:\n  got  %s\n  want %s", _i,
                  error->message, c->message);
}
END_TEST

/* The precisions: a zero or absurd byte count is refused with its key. */
static const struct {
    uint32_t param_bytes, grad_bytes, optimizer_bytes, activation_bytes;
    const char *message;
} bad_bytes[] = {
    {0, 4, 12, 2, "param_bytes: 0 is out of range; expected 1 to 8 bytes"},
    {2, 0, 12, 2, "grad_bytes: 0 is out of range; expected 1 to 8 bytes"},
    {2, 4, 65, 2, "optimizer_bytes: 65 is out of range; expected 0 to 64 bytes"},
    {2, 4, 12, 9, "activation_bytes: 9 is out of range; expected 1 to 8 bytes"},
};

START_TEST(bad_precisions_fail_naming_the_key)
{
    g_autoptr(WorkModel) m = work_test_load_model("llama3-70b");
    WorkLayout layout = layout_of(&good[0]);
    layout.param_bytes = bad_bytes[_i].param_bytes;
    layout.grad_bytes = bad_bytes[_i].grad_bytes;
    layout.optimizer_bytes = bad_bytes[_i].optimizer_bytes;
    layout.activation_bytes = bad_bytes[_i].activation_bytes;
    g_autoptr(GError) error = NULL;
    ck_assert(!work_layout_check(&layout, m, &error));
    ck_assert_str_eq(error->message, bad_bytes[_i].message);
}
END_TEST

/* Plain SGD keeps no optimizer state: 0 bytes is a layout, not an error. */
START_TEST(optimizer_without_state_passes)
{
    g_autoptr(WorkModel) m = work_test_load_model("llama3-70b");
    WorkLayout layout = layout_of(&good[0]);
    layout.optimizer_bytes = 0;
    ck_assert(work_layout_check(&layout, m, NULL));
}
END_TEST

/* GPUs and microbatches follow from the layout. */
START_TEST(gpus_and_microbatches)
{
    WorkLayout layout = layout_of(&good[1]);
    ck_assert_uint_eq(work_layout_gpus(&layout), 1024);
    ck_assert_uint_eq(work_layout_microbatches(&layout), 96);
}
END_TEST

Suite *
work_layout_suite(void)
{
    Suite *s = suite_create("work-layout");
    TCase *tc = tcase_create("check");
    tcase_add_loop_test(tc, good_layouts_pass, 0, G_N_ELEMENTS(good));
    tcase_add_loop_test(tc, bad_layouts_fail_naming_the_key, 0, G_N_ELEMENTS(bad));
    tcase_add_loop_test(tc, bad_precisions_fail_naming_the_key, 0, G_N_ELEMENTS(bad_bytes));
    tcase_add_test(tc, optimizer_without_state_passes);
    tcase_add_test(tc, gpus_and_microbatches);
    suite_add_tcase(s, tc);
    return s;
}
