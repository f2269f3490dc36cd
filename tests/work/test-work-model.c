/* SPDX-License-Identifier: Apache-2.0 */
/* WorkModel: every shipped model loads with its published shape; the
 * parameter count meets the published totals; the FLOP count is SC21's
 * formula and reproduces the iteration times of training.csv's SC21 rows;
 * malformed files fail with file, group and key named. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "work/work-model.h"
#include "work-suites.h"

static WorkModel *
load_shipped(const char *id)
{
    g_autofree char *file = g_strconcat(id, ".ini", NULL);
    g_autofree char *path = work_test_model_path(file);
    g_autoptr(GError) error = NULL;
    WorkModel *m = work_model_load(path, &error);
    ck_assert_msg(m != NULL, "%s: %s", id, error ? error->message : "");
    return m;
}

/* The block around the matrices: GPT-2's (learned positions, LayerNorm,
 * biases), Llama's (rotary positions, no biases) or BLOOM's (ALiBi,
 * LayerNorm, biases). */
typedef enum Block { BLOCK_GPT2, BLOCK_ROPE, BLOCK_ALIBI } Block;

/* The shape of each shipped file, as its sources give it (see the files). */
static const struct {
    const char *id;
    uint64_t n_layers, hidden_size, ffn_hidden_size, n_heads, n_kv_heads, vocab_size, seq_len;
    uint64_t n_experts, top_k;
    WorkFfnKind ffn_kind;
    bool tied_embeddings;
    Block block;
} shipped[] = {
    {"gpt3-1.3b", 24, 2048, 8192, 16, 16, 50257, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"gpt3-2.7b", 32, 2560, 10240, 32, 32, 50257, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"gpt3-6.7b", 32, 4096, 16384, 32, 32, 50257, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"gpt3-13b", 40, 5120, 20480, 40, 40, 50257, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"gpt3-175b", 96, 12288, 49152, 96, 96, 50257, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"megatron-1.7b", 24, 2304, 9216, 24, 24, 51200, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"megatron-3.6b", 30, 3072, 12288, 32, 32, 51200, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"megatron-7.5b", 36, 4096, 16384, 32, 32, 51200, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"megatron-18b", 40, 6144, 24576, 48, 48, 51200, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"megatron-39b", 48, 8192, 32768, 64, 64, 51200, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"megatron-76b", 60, 10240, 40960, 80, 80, 51200, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"megatron-145b", 80, 12288, 49152, 96, 96, 51200, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"megatron-310b", 96, 16384, 65536, 128, 128, 51200, 2048, 0, 0, WORK_FFN_GELU, true,
     BLOCK_GPT2},
    {"megatron-530b", 105, 20480, 81920, 128, 128, 51200, 2048, 0, 0, WORK_FFN_GELU, true,
     BLOCK_GPT2},
    {"megatron-1t", 128, 25600, 102400, 160, 160, 51200, 2048, 0, 0, WORK_FFN_GELU, true,
     BLOCK_GPT2},
    {"llama2-7b", 32, 4096, 11008, 32, 32, 32000, 4096, 0, 0, WORK_FFN_SWIGLU, false, BLOCK_ROPE},
    {"llama2-13b", 40, 5120, 13824, 40, 40, 32000, 4096, 0, 0, WORK_FFN_SWIGLU, false, BLOCK_ROPE},
    {"llama2-70b", 80, 8192, 28672, 64, 8, 32000, 4096, 0, 0, WORK_FFN_SWIGLU, false, BLOCK_ROPE},
    {"llama3-8b", 32, 4096, 14336, 32, 8, 128256, 8192, 0, 0, WORK_FFN_SWIGLU, false, BLOCK_ROPE},
    {"llama3-70b", 80, 8192, 28672, 64, 8, 128256, 8192, 0, 0, WORK_FFN_SWIGLU, false, BLOCK_ROPE},
    {"llama3.1-405b", 126, 16384, 53248, 128, 8, 128256, 8192, 0, 0, WORK_FFN_SWIGLU, false,
     BLOCK_ROPE},
    {"mixtral-8x7b", 32, 4096, 14336, 32, 8, 32000, 32768, 8, 2, WORK_FFN_SWIGLU, false,
     BLOCK_ROPE},
    {"megatronv1-1.2b", 40, 1536, 6144, 16, 16, 50257, 1024, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"megatronv1-2.0b", 43, 1920, 7680, 20, 20, 50257, 1024, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"megatronv1-4.2b", 64, 2304, 9216, 24, 24, 50257, 1024, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"megatronv1-8.7b", 75, 3072, 12288, 32, 32, 50257, 1024, 0, 0, WORK_FFN_GELU, true,
     BLOCK_GPT2},
    {"nemo-gpt3-5b", 24, 4096, 16384, 32, 32, 50257, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    {"nemo-gpt3-20b", 44, 6144, 24576, 48, 48, 50257, 2048, 0, 0, WORK_FFN_GELU, true, BLOCK_GPT2},
    /* Nemotron's squared-ReLU FFN has GELU's two matrices (see the files). */
    {"nemotron-8b", 32, 4096, 16384, 32, 32, 256000, 4096, 0, 0, WORK_FFN_GELU, false, BLOCK_ROPE},
    {"nemotron-22b", 40, 6144, 24576, 48, 48, 256000, 4096, 0, 0, WORK_FFN_GELU, false, BLOCK_ROPE},
    {"nemotron4-340b", 96, 18432, 73728, 96, 8, 256000, 4096, 0, 0, WORK_FFN_GELU, false,
     BLOCK_ROPE},
    /* Megatron-Core's H100 scaling table (see the files): GPT-2's block,
     * untied output heads. */
    {"mcore-gpt-1.7b", 24, 2048, 8192, 16, 16, 131072, 4096, 0, 0, WORK_FFN_GELU, false,
     BLOCK_GPT2},
    {"mcore-gpt-7.1b", 30, 4096, 16384, 32, 32, 131072, 4096, 0, 0, WORK_FFN_GELU, false,
     BLOCK_GPT2},
    {"mcore-gpt-16b", 32, 6144, 24576, 48, 48, 131072, 4096, 0, 0, WORK_FFN_GELU, false,
     BLOCK_GPT2},
    {"mcore-gpt-32b", 48, 7168, 28672, 56, 56, 131072, 4096, 0, 0, WORK_FFN_GELU, false,
     BLOCK_GPT2},
    {"mcore-gpt-70b", 84, 8192, 32768, 64, 64, 131072, 4096, 0, 0, WORK_FFN_GELU, false,
     BLOCK_GPT2},
    {"mcore-gpt-119b", 92, 10240, 40960, 80, 80, 131072, 4096, 0, 0, WORK_FFN_GELU, false,
     BLOCK_GPT2},
    {"mcore-gpt-177b", 96, 12288, 49152, 96, 96, 131072, 4096, 0, 0, WORK_FFN_GELU, false,
     BLOCK_GPT2},
    {"mcore-gpt-314b", 96, 16384, 65536, 128, 128, 131072, 4096, 0, 0, WORK_FFN_GELU, false,
     BLOCK_GPT2},
    {"mcore-gpt-462b", 112, 18432, 73728, 144, 144, 131072, 4096, 0, 0, WORK_FFN_GELU, false,
     BLOCK_GPT2},
    {"bloom-176b", 70, 14336, 57344, 112, 112, 250880, 2048, 0, 0, WORK_FFN_GELU, true,
     BLOCK_ALIBI},
};

START_TEST(shipped_models_load)
{
    g_autoptr(WorkModel) m = load_shipped(shipped[_i].id);
    const char *id = shipped[_i].id;
    ck_assert_msg(m->n_layers == shipped[_i].n_layers, "%s: layers", id);
    ck_assert_msg(m->hidden_size == shipped[_i].hidden_size, "%s: hidden", id);
    ck_assert_msg(m->ffn_hidden_size == shipped[_i].ffn_hidden_size, "%s: ffn_hidden", id);
    ck_assert_msg(m->n_heads == shipped[_i].n_heads, "%s: heads", id);
    ck_assert_msg(m->n_kv_heads == shipped[_i].n_kv_heads, "%s: kv_heads", id);
    ck_assert_msg(m->vocab_size == shipped[_i].vocab_size, "%s: vocab", id);
    ck_assert_msg(m->seq_len == shipped[_i].seq_len, "%s: seq_len", id);
    ck_assert_msg(m->n_experts == shipped[_i].n_experts, "%s: experts", id);
    ck_assert_msg(m->top_k == shipped[_i].top_k, "%s: top_k", id);
    ck_assert_msg(m->ffn_kind == shipped[_i].ffn_kind, "%s: ffn_kind", id);
    ck_assert_msg(m->tied_embeddings == shipped[_i].tied_embeddings, "%s: tied", id);
    /* GPT files take the GPT-2 style defaults; the others spell out their
     * block. */
    if (shipped[_i].block == BLOCK_GPT2)
        ck_assert_msg(m->linear_bias && m->norm == WORK_NORM_LAYERNORM &&
                          m->positions == WORK_POSITIONS_LEARNED,
                      "%s: GPT-2's norm, positions and biases", id);
    else if (shipped[_i].block == BLOCK_ALIBI)
        ck_assert_msg(m->linear_bias && m->norm == WORK_NORM_LAYERNORM &&
                          m->positions == WORK_POSITIONS_ALIBI,
                      "%s: LayerNorm, ALiBi and biases", id);
    else
        ck_assert_msg(!m->linear_bias && m->positions == WORK_POSITIONS_ROPE,
                      "%s: rotary positions and no biases", id);
    ck_assert_msg(m->n_experts == 0 ? m->moe_ffn_hidden_size == 0
                                    : m->moe_ffn_hidden_size == m->ffn_hidden_size,
                  "%s: moe_ffn_hidden", id);
    ck_assert_msg(m->name != NULL && m->name[0] != '\0', "%s: name", id);
}
END_TEST

/* A new model file must get a row in `shipped`. */
START_TEST(every_shipped_model_is_in_the_table)
{
    g_autofree char *models = work_test_models_dir();
    g_autofree char *folder = g_build_filename(models, "llm", NULL);
    g_autoptr(GDir) dir = g_dir_open(folder, 0, NULL);
    ck_assert_msg(dir != NULL, "%s: cannot open", folder);
    unsigned n = 0;
    for (const char *name; (name = g_dir_read_name(dir)) != NULL;)
        n += g_str_has_suffix(name, ".ini");
    ck_assert_uint_eq(n, G_N_ELEMENTS(shipped));
}
END_TEST

/* Published totals. Megatron's Table 1 prints one decimal, and the count
 * must round to it; the others are within max_error of the figure. */
static const struct {
    const char *id;
    double published_params;
    double max_error; /* relative; 0: must round to the printed decimal */
    const char *why;
} published[] = {
    /* Brown et al. 2020, Table 2.1. Its names are rounded: 1.3B is 1.316B,
     * 2.7B is 2.652B. 13B: its d_model 5140 is read as 5120 (see the file),
     * 12.85B against 12.95B with 5140. */
    {"gpt3-1.3b", 1.3e9, 0.015, "Table 2.1 rounds 1.316B to 1.3B"},
    {"gpt3-2.7b", 2.7e9, 0.02, "Table 2.1 rounds 2.652B to 2.7B"},
    {"gpt3-6.7b", 6.7e9, 0.01, ""},
    {"gpt3-13b", 13.0e9, 0.015, "d_model 5120, not the table's 5140"},
    {"gpt3-175b", 175.0e9, 0.01, ""},
    /* Narayanan et al. 2021 (SC21), Table 1. */
    {"megatron-1.7b", 1.7e9, 0, ""},
    {"megatron-3.6b", 3.6e9, 0, ""},
    {"megatron-7.5b", 7.5e9, 0, ""},
    {"megatron-18b", 18.4e9, 0, ""},
    {"megatron-39b", 39.1e9, 0, ""},
    {"megatron-76b", 76.1e9, 0, ""},
    {"megatron-145b", 145.6e9, 0, ""},
    {"megatron-310b", 310.1e9, 0, ""},
    {"megatron-530b", 529.6e9, 0, ""},
    {"megatron-1t", 1008.0e9, 0, ""},
    /* Hugging Face model cards (safetensors totals). */
    {"llama2-7b", 6.74e9, 0.01, ""},
    {"llama2-13b", 13.0e9, 0.01, ""},
    {"llama2-70b", 69.0e9, 0.01, ""},
    {"llama3-8b", 8.03e9, 0.01, ""},
    {"llama3-70b", 70.6e9, 0.01, ""},
    {"llama3.1-405b", 405.8e9, 0.01, ""},
    /* Jiang et al. 2024, Section 2.1: 47B total (46.7B in Mistral's
     * announcement). */
    {"mixtral-8x7b", 46.7e9, 0.01, ""},
    /* NVIDIA ADLR blog, Megatron-LM V1.0 (two shapes inferred: see the
     * files); NeMo's names; Nemotron-4 340B, arXiv:2406.11704. */
    {"megatronv1-1.2b", 1.2e9, 0, ""},
    {"megatronv1-2.0b", 2.0e9, 0, ""},
    {"megatronv1-4.2b", 4.2e9, 0, ""},
    {"megatronv1-8.7b", 8.7e9, 0, ""},
    {"nemo-gpt3-5b", 5e9, 0.011, "5.05B"},
    {"nemo-gpt3-20b", 20e9, 0.015, "20.26B"},
    {"nemotron-8b", 8e9, 0.07, "8.54B: the 256k untied embeddings"},
    {"nemotron-22b", 22e9, 0.035, "21.27B"},
    {"nemotron4-340b", 340e9, 0.005, "341.03B"},
    /* Megatron-LM's README, images/model_table.png: the names round the
     * count (32B is 31.51B). */
    {"mcore-gpt-1.7b", 1.7e9, 0.035, "1.75B"},
    {"mcore-gpt-7.1b", 7.1e9, 0.01, ""},
    {"mcore-gpt-16b", 16e9, 0.01, ""},
    {"mcore-gpt-32b", 32e9, 0.02, "31.51B"},
    {"mcore-gpt-70b", 70e9, 0.01, ""},
    {"mcore-gpt-119b", 119e9, 0.01, ""},
    {"mcore-gpt-177b", 177e9, 0.01, ""},
    {"mcore-gpt-314b", 314e9, 0.01, ""},
    {"mcore-gpt-462b", 462e9, 0.01, ""},
    /* BigScience 2022: 176,247M. */
    {"bloom-176b", 176.247e9, 0.001, ""},
};

START_TEST(params_meet_published_totals)
{
    g_autoptr(WorkModel) m = load_shipped(published[_i].id);
    double params = (double)work_model_params(m);
    double want = published[_i].published_params;
    if (published[_i].max_error == 0) {
        double printed = round(params / 1e8) / 10;
        ck_assert_msg(fabs(printed - want / 1e9) < 1e-9, "%s: %.4fB prints as %.1fB, not %.1fB",
                      published[_i].id, params / 1e9, printed, want / 1e9);
    } else {
        double error = fabs(params / want - 1);
        ck_assert_msg(error <= published[_i].max_error, "%s: %.4fB is %.2f%% from %.2fB %s",
                      published[_i].id, params / 1e9, 100 * error, want / 1e9, published[_i].why);
    }
}
END_TEST

/* Exact counts, worked by hand from the formula of work-model.h:
 *   GPT-3 175B: (50257 + 2048) h + 96 (12 h^2 + 13 h) + 2 h, h = 12288.
 *   Llama 2 7B: 2 V h + 32 (4 h^2 + 3 h 11008 + 2 h) + h, the released
 *   checkpoint's 6,738,415,616 tensors' total.
 *   Llama 3 70B: 2 V h + 80 (2 h^2 + 2 h 1024 + 3 h 28672 + 2 h) + h.
 *   Mixtral: 2 V h + 32 (2 h^2 + 2 h 1024 + 8 (3 h 14336) + 8 h + 2 h) + h. */
static const struct {
    const char *id;
    uint64_t params;
} exact_params[] = {
    {"gpt3-175b", 174604259328},   {"llama2-7b", 6738415616},   {"llama2-70b", 68976648192},
    {"llama3-8b", 8030261248},     {"llama3-70b", 70553706496}, {"llama3.1-405b", 405853388800},
    {"mixtral-8x7b", 46702792704},
};

START_TEST(params_exact)
{
    g_autoptr(WorkModel) m = load_shipped(exact_params[_i].id);
    ck_assert_msg(work_model_params(m) == exact_params[_i].params,
                  "%s: %" G_GUINT64_FORMAT " parameters, expected %" G_GUINT64_FORMAT,
                  exact_params[_i].id, work_model_params(m), exact_params[_i].params);
}
END_TEST

/* For GPT-2 style models the count is SC21's closed forms, exactly:
 * per token 96 l h^2 + 16 l s h + 6 h V with recompute (F / B s of
 * 96 B s l h^2 (1 + s/6h + V/16lh)), 72 l h^2 + 12 l s h + 6 h V without;
 * parameters 12 l h^2 + 13 l h + (V + s) h plus the final LayerNorm, and
 * V h more for an untied output head. */
START_TEST(gpt_counts_are_sc21_closed_forms)
{
    if (shipped[_i].block != BLOCK_GPT2)
        return;
    g_autoptr(WorkModel) m = load_shipped(shipped[_i].id);
    uint64_t l = m->n_layers, h = m->hidden_size, v = m->vocab_size;
    const uint64_t seq_lens[] = {m->seq_len, 1, 4096};
    for (size_t i = 0; i < G_N_ELEMENTS(seq_lens); i++) {
        uint64_t s = seq_lens[i];
        ck_assert_msg(work_model_flops_per_token(m, s, true) ==
                          96 * l * h * h + 16 * l * s * h + 6 * h * v,
                      "%s: recompute, s = %" G_GUINT64_FORMAT, shipped[_i].id, s);
        ck_assert_msg(work_model_flops_per_token(m, s, false) ==
                          72 * l * h * h + 12 * l * s * h + 6 * h * v,
                      "%s: no recompute, s = %" G_GUINT64_FORMAT, shipped[_i].id, s);
        /* Causal: each query's products over (s + 1) / 2 keys on average. */
        ck_assert_msg(work_model_causal_flops_per_token(m, s) ==
                          (double)(72 * l * h * h + 6 * l * (s + 1) * h + 6 * h * v),
                      "%s: causal, s = %" G_GUINT64_FORMAT, shipped[_i].id, s);
    }
    uint64_t head = m->tied_embeddings ? 0 : v * h;
    ck_assert_msg(work_model_params(m) ==
                      12 * l * h * h + 13 * l * h + (v + m->seq_len) * h + head + 2 * h,
                  "%s: parameters", shipped[_i].id);
}
END_TEST

/* shared/reference/training.csv, SC21 rows (Narayanan et al. 2021, Table 1
 * on A100 Selene): global batch, GPUs, achieved TFLOP/s per GPU and the
 * iteration time the file derives from them with SC21's formula. */
static const struct {
    const char *id;
    uint64_t global_batch, n_gpus;
    double tflops_per_gpu, iteration_time_s;
} sc21_rows[] = {
    {"megatron-1.7b", 512, 32, 137, 3.5280},    {"megatron-7.5b", 512, 128, 142, 3.6963},
    {"megatron-39b", 1536, 512, 138, 14.4535},  {"megatron-145b", 2304, 1536, 148, 24.8174},
    {"megatron-1t", 3072, 3072, 163, 102.6300},
};

START_TEST(sc21_iteration_times)
{
    g_autoptr(WorkModel) m = load_shipped(sc21_rows[_i].id);
    double flops_per_iteration = (double)work_model_flops_per_token(m, m->seq_len, true) *
                                 (double)sc21_rows[_i].global_batch * (double)m->seq_len;
    double time_s =
        flops_per_iteration / (sc21_rows[_i].tflops_per_gpu * 1e12 * (double)sc21_rows[_i].n_gpus);
    double error = fabs(time_s / sc21_rows[_i].iteration_time_s - 1);
    ck_assert_msg(error < 0.005, "%s: %.4f s, training.csv says %.4f s (%.3f%%)", sc21_rows[_i].id,
                  time_s, sc21_rows[_i].iteration_time_s, 100 * error);
}
END_TEST

/* GQA and a mixture, worked by hand (no recompute, the model's seq_len):
 *   Llama 3 70B: 6 l (2 h^2 + 2 h 1024 + 3 h 28672) + 12 l s h + 6 h V
 *     = 410,706,247,680 + 64,424,509,440 + 6,304,038,912;
 *   Mixtral: 6 l (2 h^2 + 2 h 1024 + 2 (3 h 14336) + 8 h) + 12 l s h + 6 h V
 *     = 75,705,090,048 + 51,539,607,552 + 786,432,000. */
static const struct {
    const char *id;
    uint64_t flops_no_recompute, flops_recompute;
} exact_flops[] = {
    {"llama3-70b", 481434796032, 639811715072},
    {"mixtral-8x7b", 128031129600, 170446028800},
};

START_TEST(flops_exact_with_gqa_and_experts)
{
    g_autoptr(WorkModel) m = load_shipped(exact_flops[_i].id);
    ck_assert_msg(work_model_flops_per_token(m, m->seq_len, false) ==
                      exact_flops[_i].flops_no_recompute,
                  "%s: %" G_GUINT64_FORMAT, exact_flops[_i].id,
                  work_model_flops_per_token(m, m->seq_len, false));
    ck_assert_msg(work_model_flops_per_token(m, m->seq_len, true) ==
                      exact_flops[_i].flops_recompute,
                  "%s: %" G_GUINT64_FORMAT " with recompute", exact_flops[_i].id,
                  work_model_flops_per_token(m, m->seq_len, true));
}
END_TEST

/* More experts add weights but no work beyond the router's h FLOP pairs a
 * token; fewer KV heads save 2 h (heads - kv) d weights a block. */
START_TEST(experts_and_kv_heads_change_what_they_should)
{
    g_autoptr(WorkModel) m = load_shipped("mixtral-8x7b");
    uint64_t l = m->n_layers, h = m->hidden_size, f = m->moe_ffn_hidden_size;
    uint64_t params = work_model_params(m), flops = work_model_flops_per_token(m, 4096, false);
    m->n_experts = 16;
    ck_assert_uint_eq(work_model_params(m) - params, l * 8 * (3 * h * f + h));
    ck_assert_uint_eq(work_model_flops_per_token(m, 4096, false) - flops, 3 * l * 2 * h * 8);
    m->n_experts = 8;
    m->n_kv_heads = m->n_heads;
    uint64_t d = h / m->n_heads;
    ck_assert_uint_eq(work_model_params(m) - params, l * 2 * h * (32 - 8) * d);
}
END_TEST

/* A valid file, then the lines each bad case changes. */
static const char *valid_model = "[model]\nname = Test\nlayers = 2\nhidden = 64\n"
                                 "ffn_hidden = 256\nheads = 4\nvocab = 1000\nseq_len = 128\n";

static const struct {
    const char *name;
    const char *from; /* text of valid_model to replace, NULL to use `to` as the file */
    const char *to;
    const char *message_part; /* after the path */
} bad[] = {
    {"unknown key", "heads = 4\n", "heads = 4\nhead_count = 4\n",
     ": [model] head_count: unknown key; expected one of: name, layers, hidden"},
    {"missing key", "layers = 2\n", "",
     ": [model] layers: missing; expected the number of transformer blocks"},
    {"no layers", "layers = 2", "layers = 0", ": [model] layers: 0 is out of range: expected 1"},
    {"too many layers", "layers = 2", "layers = 5000",
     ": [model] layers: 5000 is out of range: expected 1 to 1024"},
    {"negative count", "vocab = 1000", "vocab = -5", ": [model] vocab: '-5' is negative"},
    {"fractional count", "hidden = 64", "hidden = 64.5",
     ": [model] hidden: '64.5' is not a whole number"},
    {"count with a unit", "seq_len = 128", "seq_len = 128B", ": [model] seq_len: '128B'"},
    {"heads do not divide hidden", "heads = 4", "heads = 6",
     ": [model] heads: 6 does not divide hidden (64); expected a divisor of hidden"},
    {"more heads than hidden", "heads = 4", "heads = 128",
     ": [model] heads: 128 is out of range: expected 1 to 64"},
    {"kv_heads do not divide heads", "heads = 4\n", "heads = 4\nkv_heads = 3\n",
     ": [model] kv_heads: 3 does not divide heads (4); expected a divisor of heads"},
    {"more kv_heads than heads", "heads = 4\n", "heads = 4\nkv_heads = 8\n",
     ": [model] kv_heads: 8 is out of range: expected 1 to 4"},
    {"no kv_heads", "heads = 4\n", "heads = 4\nkv_heads = 0\n",
     ": [model] kv_heads: 0 is out of range"},
    {"top_k above experts", "heads = 4\n", "heads = 4\nexperts = 4\ntop_k = 5\n",
     ": [model] top_k: 5 is out of range: expected 1 to 4"},
    {"top_k without experts", "heads = 4\n", "heads = 4\ntop_k = 2\n",
     ": [model] top_k: given without experts; expected experts too"},
    {"experts without top_k", "heads = 4\n", "heads = 4\nexperts = 8\n",
     ": [model] top_k: missing; expected the experts each token is routed to, 1 to experts (8)"},
    {"no experts", "heads = 4\n", "heads = 4\nexperts = 0\ntop_k = 1\n",
     ": [model] experts: 0 is out of range: expected 1 to 1024"},
    {"moe_ffn_hidden without experts", "heads = 4\n", "heads = 4\nmoe_ffn_hidden = 128\n",
     ": [model] moe_ffn_hidden: given without experts"},
    {"unknown ffn kind", "heads = 4\n", "heads = 4\nffn_kind = relu\n",
     ": [model] ffn_kind: 'relu' is not one of: gelu, swiglu"},
    {"unknown norm", "heads = 4\n", "heads = 4\nnorm = batchnorm\n",
     ": [model] norm: 'batchnorm' is not one of: layernorm, rmsnorm"},
    {"unknown positions", "heads = 4\n", "heads = 4\nposition_embedding = sinusoid\n",
     ": [model] position_embedding: 'sinusoid' is not one of: learned, rope, alibi"},
    {"not a yes/no", "heads = 4\n", "heads = 4\ntied_embeddings = maybe\n",
     ": [model] tied_embeddings: 'maybe' is not a yes/no value"},
    {"a second group", "seq_len = 128\n", "seq_len = 128\n[moe]\nexperts = 8\n",
     ": [moe]: unknown group; expected [model] only"},
    {"another group only", NULL, "[llm]\nname = x\n",
     ": [llm]: unknown group; expected [model] only"},
    {"empty file", NULL, "", ": no [model] group"},
    {"not a key file", NULL, "\x01\x02 garbage without a group\n", ": "},
};

START_TEST(bad_models_fail_with_context)
{
    g_autofree char *dir = g_dir_make_tmp(NULL, NULL);
    g_autofree char *path = g_build_filename(dir, "bad.ini", NULL);
    g_autofree char *text = NULL;
    if (bad[_i].from == NULL) {
        text = g_strdup(bad[_i].to);
    } else {
        g_auto(GStrv) parts = g_strsplit(valid_model, bad[_i].from, 2);
        ck_assert_msg(parts[1] != NULL, "%s: fixture text not found", bad[_i].name);
        text = g_strconcat(parts[0], bad[_i].to, parts[1], NULL);
    }
    ck_assert(g_file_set_contents(path, text, -1, NULL));
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkModel) m = work_model_load(path, &error);
    ck_assert_msg(m == NULL, "%s: accepted", bad[_i].name);
    ck_assert_msg(g_str_has_prefix(error->message, path) &&
                      strstr(error->message, bad[_i].message_part) != NULL,
                  "%s: message '%s' lacks '%s%s'", bad[_i].name, error->message, path,
                  bad[_i].message_part);
    g_unlink(path);
    g_rmdir(dir);
}
END_TEST

/* The valid fixture loads, with the defaults of the optional keys. */
START_TEST(valid_fixture_takes_defaults)
{
    g_autofree char *dir = g_dir_make_tmp(NULL, NULL);
    g_autofree char *path = g_build_filename(dir, "ok.ini", NULL);
    ck_assert(g_file_set_contents(path, valid_model, -1, NULL));
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkModel) m = work_model_load(path, &error);
    ck_assert_msg(m != NULL, "%s", error ? error->message : "");
    ck_assert_uint_eq(m->n_kv_heads, 4);
    ck_assert_uint_eq(m->n_experts, 0);
    ck_assert(m->ffn_kind == WORK_FFN_GELU && m->norm == WORK_NORM_LAYERNORM &&
              m->positions == WORK_POSITIONS_LEARNED && m->linear_bias && m->tied_embeddings);
    /* 1000·64 + 128·64 embeddings; per block 12·64² + 13·64; final 2·64. */
    ck_assert_uint_eq(work_model_params(m), 1128 * 64 + 2 * (12 * 64 * 64 + 13 * 64) + 128);
    g_unlink(path);
    g_rmdir(dir);
}
END_TEST

START_TEST(unreadable_path_is_named)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkModel) m = work_model_load("/nonexistent/nvlsim/model.ini", &error);
    ck_assert(m == NULL);
    ck_assert_msg(g_str_has_prefix(error->message, "/nonexistent/nvlsim/model.ini: "), "%s",
                  error->message);
}
END_TEST

static const struct {
    const char *id;
    const char *message_part; /* NULL: loads */
} by_id[] = {
    {"llama3-70b", NULL},
    {"mixtral-8x7b", NULL},
    {"llama9-1t", "no model 'llama9-1t' ("},
    {"llama9-1t", "does not exist); expected one of: bloom-176b, gpt3-1.3b, gpt3-13b"},
    {"../gpu/h100-sxm5", "../gpu/h100-sxm5: no such file; expected a model id or the path"},
    {"", "'' is not a plain model id"},
};

START_TEST(load_by_id)
{
    g_autofree char *models = work_test_models_dir();
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkModel) m = work_model_load_by_id(by_id[_i].id, models, &error);
    if (by_id[_i].message_part == NULL) {
        ck_assert_msg(m != NULL, "%s: %s", by_id[_i].id, error ? error->message : "");
        return;
    }
    ck_assert_msg(m == NULL, "%s: accepted", by_id[_i].id);
    ck_assert_msg(strstr(error->message, by_id[_i].message_part) != NULL,
                  "'%s': message '%s' lacks '%s'", by_id[_i].id, error->message,
                  by_id[_i].message_part);
}
END_TEST

/* Without a folder, by id looks where hw_models_dir() says. Check forks each
 * test, so setenv stays inside it. */
START_TEST(load_by_id_uses_the_models_dir)
{
    g_autofree char *models = work_test_models_dir();
    g_setenv("NVLSIM_MODELS", models, TRUE);
    g_autoptr(GError) error = NULL;
    g_autoptr(WorkModel) m = work_model_load_by_id("gpt3-175b", NULL, &error);
    ck_assert_msg(m != NULL, "%s", error ? error->message : "");
    ck_assert_uint_eq(m->n_layers, 96);
}
END_TEST

Suite *
work_model_suite(void)
{
    Suite *s = suite_create("work-model");
    TCase *tc = tcase_create("model");
    tcase_add_loop_test(tc, shipped_models_load, 0, G_N_ELEMENTS(shipped));
    tcase_add_test(tc, every_shipped_model_is_in_the_table);
    tcase_add_loop_test(tc, params_meet_published_totals, 0, G_N_ELEMENTS(published));
    tcase_add_loop_test(tc, params_exact, 0, G_N_ELEMENTS(exact_params));
    tcase_add_loop_test(tc, gpt_counts_are_sc21_closed_forms, 0, G_N_ELEMENTS(shipped));
    tcase_add_loop_test(tc, sc21_iteration_times, 0, G_N_ELEMENTS(sc21_rows));
    tcase_add_loop_test(tc, flops_exact_with_gqa_and_experts, 0, G_N_ELEMENTS(exact_flops));
    tcase_add_test(tc, experts_and_kv_heads_change_what_they_should);
    tcase_add_loop_test(tc, bad_models_fail_with_context, 0, G_N_ELEMENTS(bad));
    tcase_add_test(tc, valid_fixture_takes_defaults);
    tcase_add_test(tc, unreadable_path_is_named);
    tcase_add_loop_test(tc, load_by_id, 0, G_N_ELEMENTS(by_id));
    tcase_add_test(tc, load_by_id_uses_the_models_dir);
    suite_add_tcase(s, tc);
    return s;
}
