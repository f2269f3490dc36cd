/* SPDX-License-Identifier: Apache-2.0 */
/* work-pipeline: the layers of each stage and chunk by hand for Megatron's
 * even, uneven (first and last stage layer counts) and accounted
 * (embedding and loss counted as layers) splits, Llama 3.1 405B's 126
 * layers on 8 and 16 stages as published recipes run them; each refused
 * split with its whole message; the schedules' order; the layers a stage
 * keeps in flight when its chunks differ, walked by hand. */
#include <string.h>

#include "hw/hw-keys.h"
#include "work/work-pipeline.h"
#include "work-suites.h"

/* The tiny model with n layers. */
static WorkModel *
model_of(uint64_t n_layers)
{
    WorkModel *m = work_test_tiny_model();
    m->n_layers = n_layers;
    return m;
}

typedef struct Split {
    uint64_t layers;
    uint32_t pp, vp, first, last;
    bool embedding, loss;
} Split;

static WorkLayout
layout_of(const Split *c)
{
    WorkLayout l = work_test_layout(1, c->pp, 1, 8 * c->pp, 128);
    l.vp = c->vp;
    l.schedule = c->vp > 1 ? WORK_SCHEDULE_INTERLEAVED : WORK_SCHEDULE_1F1B;
    l.first_stage_layers = c->first;
    l.last_stage_layers = c->last;
    l.account_for_embedding = c->embedding;
    l.account_for_loss = c->loss;
    return l;
}

#define MAX_STAGES 16

/* Stage layer counts by hand. Megatron: an even split; the first and last
 * given, the rest over the others ((126 - 30) / 6 = 16; (126 - 14) / 14 =
 * 8; (32 - 5) / 3 = 9; (32 - 2) / 3 = 10); the embedding and loss counted,
 * (126 + 2) / 8 = 16 a stage less one on the first and the last, (126 + 2)
 * / 16 = 8 likewise (Llama 3's own pp 16: "one Transformer layer fewer on
 * the first and the last stage", Llama Team 2024, Section 3.3.2), and
 * (31 + 1) / 2 = 16 less one on the first. */
static const struct {
    Split split;
    uint64_t stages[MAX_STAGES];
    const char *described;
} by_hand[] = {
    {{80, 4, 1, 0, 0, false, false}, {20, 20, 20, 20}, "20 x 4"},
    {{126, 8, 1, 15, 15, false, false}, {15, 16, 16, 16, 16, 16, 16, 15}, "15, 16 x 6, 15"},
    {{126, 16, 1, 7, 7, false, false},
     {7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7},
     "7, 8 x 14, 7"},
    {{126, 8, 8, 0, 0, true, true},
     {15, 16, 16, 16, 16, 16, 16, 15},
     "15 + embedding, 16 x 6, 15 + loss"},
    {{126, 16, 8, 0, 0, true, true},
     {7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7},
     "7 + embedding, 8 x 14, 7 + loss"},
    {{32, 4, 1, 5, 0, false, false}, {5, 9, 9, 9}, "5, 9 x 3"},
    {{32, 4, 1, 0, 2, false, false}, {10, 10, 10, 2}, "10 x 3, 2"},
    {{32, 2, 1, 20, 12, false, false}, {20, 12}, "20, 12"},
    {{32, 4, 2, 8, 12, false, false}, {8, 6, 6, 12}, "8, 6 x 2, 12"},
    {{31, 2, 1, 0, 0, true, false}, {15, 16}, "15 + embedding, 16"},
    {{6, 4, 1, 0, 0, true, true}, {1, 2, 2, 1}, "1 + embedding, 2 x 2, 1 + loss"},
};

START_TEST(stage_layers_by_hand)
{
    const Split *c = &by_hand[_i].split;
    g_autoptr(WorkModel) m = model_of(c->layers);
    WorkLayout l = layout_of(c);
    g_autoptr(GError) error = NULL;
    ck_assert_msg(work_pipeline_check(&l, m, &error), "case %d: %s", _i,
                  error ? error->message : "");
    uint64_t sum = 0;
    for (uint32_t p = 0; p < c->pp; p++) {
        uint64_t n = work_pipeline_stage_layers(&l, m, p);
        ck_assert_msg(n == by_hand[_i].stages[p],
                      "case %d: stage %u holds %" G_GUINT64_FORMAT ", by hand %" G_GUINT64_FORMAT,
                      _i, p, n, by_hand[_i].stages[p]);
        sum += n;
    }
    ck_assert_msg(sum == c->layers, "case %d: the stages hold %" G_GUINT64_FORMAT, _i, sum);
    g_autofree char *text = work_pipeline_describe(&l, m);
    ck_assert_msg(strcmp(text, by_hand[_i].described) == 0, "case %d: '%s', want '%s'", _i, text,
                  by_hand[_i].described);
    ck_assert_msg(work_pipeline_even(&l, m) == (_i == 0), "case %d: even", _i);
}
END_TEST

/* Chunks: each stage's layers over vp, the accounted embedding and loss
 * taking a layer from the first chunk of the first stage and the last of
 * the last. NVIDIA's MLPerf Training v5.1 Llama 3.1 405B runs pp 8 vp 8
 * with both counted (mlcommons/training_results_v5.1, NVIDIA's
 * llama31_405b configs: ASYM_PP_EMBED, ASYM_PP_LOSS): 128 / 64 = 2 a chunk,
 * 1 in the two ends. With pp 16 vp 8 a chunk holds one layer and the two
 * ends none: the embedding alone and the loss alone, as Llama 3's paper
 * describes its schedule. */
START_TEST(chunk_layers_by_hand)
{
    g_autoptr(WorkModel) m = work_test_load_model("llama3.1-405b");
    WorkLayout l = layout_of(&(Split){126, 8, 8, 0, 0, true, true});
    ck_assert(work_layout_check(&l, m, NULL));
    for (uint32_t p = 0; p < 8; p++)
        for (uint32_t c = 0; c < 8; c++) {
            uint64_t want = (p == 0 && c == 0) || (p == 7 && c == 7) ? 1 : 2;
            ck_assert_uint_eq(work_pipeline_chunk_layers(&l, m, p, c), want);
        }
    l = layout_of(&(Split){126, 16, 8, 0, 0, true, true});
    ck_assert(work_layout_check(&l, m, NULL));
    ck_assert_uint_eq(work_pipeline_chunk_layers(&l, m, 0, 0), 0);
    ck_assert_uint_eq(work_pipeline_chunk_layers(&l, m, 0, 1), 1);
    ck_assert_uint_eq(work_pipeline_chunk_layers(&l, m, 15, 6), 1);
    ck_assert_uint_eq(work_pipeline_chunk_layers(&l, m, 15, 7), 0);
    /* Uneven with vp: 8 / 2, 12 / 2, and (32 - 20) / 2 / 2 in the middle. */
    g_autoptr(WorkModel) small = model_of(32);
    l = layout_of(&(Split){32, 4, 2, 8, 12, false, false});
    ck_assert_uint_eq(work_pipeline_chunk_layers(&l, small, 0, 1), 4);
    ck_assert_uint_eq(work_pipeline_chunk_layers(&l, small, 1, 0), 3);
    ck_assert_uint_eq(work_pipeline_chunk_layers(&l, small, 3, 1), 6);
}
END_TEST

/* Llama 3.1 405B runs on pp 8 and pp 16 every way Megatron allows. */
static const Split llama405b[] = {
    {126, 8, 1, 15, 15, false, false}, {126, 8, 1, 0, 0, true, true},
    {126, 8, 8, 0, 0, true, true},     {126, 16, 1, 7, 7, false, false},
    {126, 16, 1, 0, 0, true, true},    {126, 16, 8, 0, 0, true, true},
};

START_TEST(llama31_405b_on_8_and_16_stages)
{
    g_autoptr(WorkModel) m = work_test_load_model("llama3.1-405b");
    WorkLayout l = layout_of(&llama405b[_i]);
    l.tp = 8;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(work_layout_check(&l, m, &error), "case %d: %s", _i, error ? error->message : "");
}
END_TEST

/* Refused splits, the whole message each. */
static const struct {
    Split split;
    const char *message;
} refused[] = {
    {{126, 8, 1, 0, 0, false, false},
     "pp: 8 does not divide the 126 layers of tiny GPT; expected first_stage_layers and "
     "last_stage_layers (such as 15 and 15, leaving 16 to each middle stage), or "
     "account_for_embedding and account_for_loss (126 + 2 = 8 x 16)"},
    {{32, 3, 1, 0, 0, false, false},
     "pp: 3 does not divide the 32 layers of tiny GPT; expected first_stage_layers and "
     "last_stage_layers (such as 11 and 10, leaving 11 to the middle stage), or "
     "account_for_embedding (32 + 1 = 3 x 11)"},
    {{32, 4, 4, 0, 0, true, true},
     "pp: 4 does not divide the 32 layers of tiny GPT with the embedding and loss counted (34); "
     "expected neither account_for_embedding nor account_for_loss (32 = 4 x 8)"},
    {{32, 40, 1, 0, 0, false, false},
     "pp: 40 does not divide the 32 layers of tiny GPT; expected a pp that divides them (no "
     "first_stage_layers, last_stage_layers or account_for_embedding and account_for_loss "
     "split them)"},
    {{32, 4, 3, 0, 0, false, false},
     "vp: 3 does not divide the 8 layers of each of the 4 pipeline stages of tiny GPT"},
    {{32, 4, 1, 8, 0, false, true},
     "first_stage_layers: cannot be given with account_for_loss (Megatron-LM takes stage layer "
     "counts or the embedding and loss counted as layers, not both); expected one of the two"},
    {{32, 1, 1, 8, 0, false, false},
     "first_stage_layers: needs pp > 1 (one stage holds all 32 layers of tiny GPT)"},
    /* The sum is not the layers. */
    {{32, 2, 1, 10, 10, false, false},
     "first_stage_layers + last_stage_layers: 10 + 10 = 20 is not the 32 layers of tiny GPT; pp 2 "
     "leaves no middle stage, so expected a sum of 32 (such as 16 + 16)"},
    /* More than the layers; a stage left with none. */
    {{32, 4, 1, 20, 20, false, false},
     "first_stage_layers + last_stage_layers: 20 + 20 = 40 leaves no layer for the 2 middle "
     "stages of tiny GPT (32 layers); expected at most 30 in all, every stage holding at least "
     "one layer"},
    {{32, 4, 1, 16, 16, false, false},
     "first_stage_layers + last_stage_layers: 16 + 16 = 32 leaves no layer for the 2 middle "
     "stages of tiny GPT (32 layers); expected at most 30 in all, every stage holding at least "
     "one layer"},
    {{32, 4, 1, 31, 0, false, false},
     "first_stage_layers: 31 leaves too few layers for the 3 other stages of tiny GPT (32 "
     "layers); expected at most 29 in all, every stage holding at least one layer"},
    /* The rest does not split evenly. */
    {{32, 4, 1, 9, 10, false, false},
     "first_stage_layers + last_stage_layers: 9 + 10 = 19 leaves 13 layers of tiny GPT, which do "
     "not split evenly over the 2 middle stages; expected last_stage_layers such as 9 or 11"},
    {{32, 4, 1, 10, 0, false, false},
     "first_stage_layers: 10 leaves 22 layers of tiny GPT, which do not split evenly over the 3 "
     "other stages; expected first_stage_layers such as 8 or 11"},
    {{32, 4, 1, 0, 3, false, false},
     "last_stage_layers: 3 leaves 29 layers of tiny GPT, which do not split evenly over the 3 "
     "other stages; expected last_stage_layers such as 2 or 5"},
    /* With vp, every stage's layers a multiple of vp. */
    {{32, 4, 2, 9, 9, false, false},
     "first_stage_layers: 9 layers do not split over the stage's vp 2 model chunks; expected a "
     "multiple of 2"},
    {{32, 4, 2, 10, 9, false, false},
     "first_stage_layers + last_stage_layers: 10 + 9 = 19 leaves 13 layers of tiny GPT, which do "
     "not split evenly over the 2 middle stages; expected last_stage_layers such as 8 or 10"},
    {{32, 4, 2, 8, 10, false, false},
     "vp: 2 does not divide the 7 layers of each of the 2 middle stages of tiny GPT"},
};

START_TEST(refused_splits_name_the_key)
{
    const Split *c = &refused[_i].split;
    g_autoptr(WorkModel) m = model_of(c->layers);
    WorkLayout l = layout_of(c);
    g_autoptr(GError) error = NULL;
    ck_assert_msg(!work_pipeline_check(&l, m, &error), "case %d passed", _i);
    ck_assert_msg(g_error_matches(error, HW_KEY_ERROR, HW_KEY_ERROR_INVALID), "case %d: domain",
                  _i);
    ck_assert_msg(strcmp(error->message, refused[_i].message) == 0,
                  "case %d:\n  got  %s\n  want %s", _i, error->message, refused[_i].message);
}
END_TEST

/* The schedules: 1F1B on stage 1 of 4 with m = 4 (warm-up 2), GPipe (all
 * forwards, backwards last first), interleaved pp 2 vp 2 with m = 4 on
 * stage 0 (warm-up 2 (2 - 0 - 1) + 2 = 4: microbatches 0, 1 of chunk 0,
 * then of chunk 1; the backwards from chunk 1). */
START_TEST(schedules_in_megatron_order)
{
    WorkLayout l = work_test_layout(1, 4, 1, 4, 128);
    g_autoptr(GArray) s = work_pipeline_schedule(&l, 1);
    static const char *const want_1f1b = "F0 F1 F2 B0 F3 B1 B2 B3";
    GString *got = g_string_new(NULL);
    for (guint i = 0; i < s->len; i++) {
        const WorkSlot *x = &g_array_index(s, WorkSlot, i);
        g_string_append_printf(got, "%s%c%u", i ? " " : "", x->forward ? 'F' : 'B', x->microbatch);
    }
    ck_assert_str_eq(got->str, want_1f1b);
    l.schedule = WORK_SCHEDULE_GPIPE;
    g_autoptr(GArray) gp = work_pipeline_schedule(&l, 1);
    g_string_truncate(got, 0);
    for (guint i = 0; i < gp->len; i++) {
        const WorkSlot *x = &g_array_index(gp, WorkSlot, i);
        g_string_append_printf(got, "%s%c%u", i ? " " : "", x->forward ? 'F' : 'B', x->microbatch);
    }
    ck_assert_str_eq(got->str, "F0 F1 F2 F3 B3 B2 B1 B0");
    l = work_test_layout(1, 2, 1, 4, 128);
    l.vp = 2;
    l.schedule = WORK_SCHEDULE_INTERLEAVED;
    ck_assert_uint_eq(work_pipeline_warmup(&l, 0), 4);
    ck_assert_uint_eq(work_pipeline_warmup(&l, 1), 2);
    g_autoptr(GArray) il = work_pipeline_schedule(&l, 0);
    g_string_truncate(got, 0);
    for (guint i = 0; i < il->len; i++) {
        const WorkSlot *x = &g_array_index(il, WorkSlot, i);
        g_string_append_printf(got, "%s%c%u.%u", i ? " " : "", x->forward ? 'F' : 'B',
                               x->microbatch, x->chunk);
    }
    ck_assert_str_eq(got->str,
                     "F0.0 F1.0 F0.1 F1.1 F2.0 B0.1 F3.0 B1.1 F2.1 B0.0 F3.1 B1.0 B2.1 B3.1 "
                     "B2.0 B3.0");
    g_string_free(got, TRUE);
}
END_TEST

/* Layers in flight where a stage's chunks differ. 7 layers on pp 2 vp 2
 * with the loss counted: (7 + 1) / 2 = 4 a stage, 2 a chunk, the last
 * stage's last chunk 1. That stage runs (m = 4, warm-up 2; microbatch.chunk,
 * live layers after each pass) F0.0 F1.0 (4), F0.1 (5) B0.1 (4), F1.1 (5)
 * B1.1 (4), F2.0 (6) B0.0 (4), F3.0 (6) B1.0 (4), F2.1 (5) B2.1 (4), F3.1
 * (5) B3.1 (4), B2.0, B3.0: a peak of 6, three chunks of 2 layers, not
 * the 5 its warm-up ends with. The first stage's chunks are equal: the
 * closed form, min(2 (2 - 1) + 2 + 1, 8) = 5 chunks of 2. */
START_TEST(layers_in_flight_walk_the_schedule)
{
    g_autoptr(WorkModel) m = model_of(7);
    WorkLayout l = layout_of(&(Split){7, 2, 2, 0, 0, false, true});
    l.global_batch = 4;
    ck_assert(work_layout_check(&l, m, NULL));
    ck_assert_uint_eq(work_pipeline_chunk_layers(&l, m, 1, 1), 1);
    ck_assert_uint_eq(work_pipeline_layers_in_flight(&l, m, 1), 6);
    ck_assert_uint_eq(work_pipeline_layers_in_flight(&l, m, 0), 10);
    /* Equal chunks: chunks in flight times a chunk's layers. */
    WorkLayout even = layout_of(&(Split){8, 2, 2, 0, 0, false, false});
    even.global_batch = 4;
    g_autoptr(WorkModel) eight = model_of(8);
    ck_assert_uint_eq(work_pipeline_layers_in_flight(&even, eight, 0), 5 * 2);
    ck_assert_uint_eq(work_pipeline_layers_in_flight(&even, eight, 1), 3 * 2);
}
END_TEST

Suite *
work_pipeline_suite(void)
{
    Suite *s = suite_create("work-pipeline");
    TCase *tc = tcase_create("split");
    tcase_add_loop_test(tc, stage_layers_by_hand, 0, G_N_ELEMENTS(by_hand));
    tcase_add_test(tc, chunk_layers_by_hand);
    tcase_add_loop_test(tc, llama31_405b_on_8_and_16_stages, 0, G_N_ELEMENTS(llama405b));
    tcase_add_loop_test(tc, refused_splits_name_the_key, 0, G_N_ELEMENTS(refused));
    suite_add_tcase(s, tc);
    tc = tcase_create("schedule");
    tcase_add_test(tc, schedules_in_megatron_order);
    tcase_add_test(tc, layers_in_flight_walk_the_schedule);
    suite_add_tcase(s, tc);
    return s;
}
