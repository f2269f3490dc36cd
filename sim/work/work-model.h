/* SPDX-License-Identifier: Apache-2.0 */
/* A transformer model shape: the figures of one decoder-only language model,
 * loaded from models/llm/NAME.ini (group [model]); and the two counts every
 * training estimate starts from, its parameters and its training FLOPs per
 * token. Description only: no behaviour, no layout, no batch.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-keys.h"

/* The feed-forward block: GELU has two weight matrices (up, down), SwiGLU
 * three (gate, up, down). */
typedef enum WorkFfnKind {
    WORK_FFN_GELU,
    WORK_FFN_SWIGLU,
} WorkFfnKind;

/* LayerNorm has a scale and a shift per element, RMSNorm a scale only. */
typedef enum WorkNorm {
    WORK_NORM_LAYERNORM,
    WORK_NORM_RMSNORM,
} WorkNorm;

/* Learned positions are a seq_len x hidden table; rotary ones have no
 * weights; ALiBi (Press et al. 2022, "Train Short, Test Long") has neither
 * weights nor a kernel of its own, only a bias the attention kernel adds to
 * its scores. */
typedef enum WorkPositions {
    WORK_POSITIONS_LEARNED,
    WORK_POSITIONS_ROPE,
    WORK_POSITIONS_ALIBI,
} WorkPositions;

/* Upper bounds the loader enforces. They are far above any published model
 * and keep every count below in uint64_t (parameters < 2^58, FLOPs per token
 * < 2^61). */
#define WORK_MODEL_MAX_LAYERS 1024
#define WORK_MODEL_MAX_HIDDEN 131072
#define WORK_MODEL_MAX_FFN_HIDDEN 524288
#define WORK_MODEL_MAX_EXPERTS 1024
#define WORK_MODEL_MAX_VOCAB 16777216
#define WORK_MODEL_MAX_SEQ_LEN 16777216

typedef struct WorkModel {
    char *name;                   /* "Llama 3 70B" */
    uint64_t n_layers;            /* transformer blocks */
    uint64_t hidden_size;         /* elements per token between blocks (d_model) */
    uint64_t ffn_hidden_size;     /* inner elements of a dense FFN */
    uint64_t n_heads;             /* query heads; head size = hidden_size / n_heads */
    uint64_t n_kv_heads;          /* key/value heads (GQA); n_heads when not grouped */
    uint64_t vocab_size;          /* tokens */
    uint64_t seq_len;             /* tokens per sequence in training, by default */
    uint64_t n_experts;           /* 0: dense; else every block's FFN is a mixture */
    uint64_t top_k;               /* experts each token is routed to; 0 when dense */
    uint64_t moe_ffn_hidden_size; /* inner elements of one expert; 0 when dense */
    WorkFfnKind ffn_kind;
    WorkNorm norm;
    WorkPositions positions;
    bool linear_bias;     /* the attention and FFN matrices have biases */
    bool tied_embeddings; /* the output head reuses the input embedding */
} WorkModel;

/* Loads and checks a model file; NULL and error ("PATH: [model] key: what
 * was wrong; expected ...") on failure. Checks: positive counts within the
 * bounds above, heads divides hidden, kv_heads divides heads, experts and
 * top_k given together with 1 <= top_k <= experts. Free with
 * work_model_free. */
WorkModel *work_model_load(const char *path, GError **error);
/* The same from the text of a model file (length bytes; (gsize)-1: up to
 * its NUL); path names it in messages. */
WorkModel *work_model_load_data(const char *data, gsize length, const char *path, GError **error);

/* Loads model ID: FOLDER/llm/ID.ini from the first folder of the search
 * path models_dir that has it (NULL: hw_models_dir()), or, when id is a
 * path (hw_models_ref_is_path), that file. An unknown id is an error
 * listing the known ones. */
WorkModel *work_model_load_by_id(const char *id, const char *models_dir, GError **error);

void work_model_free(WorkModel *model);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(WorkModel, work_model_free)

/* The model's total parameter count (every expert included). With h the
 * hidden size, V the vocabulary, s seq_len, d = h / heads the head size,
 * g = kv_heads x d and m the FFN's matrix count (GELU 2, SwiGLU 3):
 *   embeddings  V h, plus V h for an untied output head, plus s h for
 *               learned positions;
 *   per block   attention 2 h^2 + 2 h g (q, o; k, v), plus 2 h + 2 g biases;
 *               FFN of inner size f: m h f, plus (m - 1) f + h biases;
 *               a mixture: experts x FFN(moe_ffn_hidden) + h x experts
 *               (the router); two norms;
 *   final norm  one; a norm is 2 h (LayerNorm) or h (RMSNorm).
 * For a GPT-2 style model this is SC21's 12 l h^2 (1 + 13/12h + (V+s)/12lh)
 * (Narayanan et al. 2021, Section 5.1) plus the final LayerNorm's 2 h. */
uint64_t work_model_params(const WorkModel *model);

/* Training FLOPs per token (forward, backward and, with recompute, the
 * forward pass of every block again), counting matrix multiplications only
 * as Megatron-LM does (Narayanan et al. 2021, Section 5.1 and Appendix):
 *   F = 2 c l A + 4 c l s h + 6 h V,   c = 4 with recompute, else 3,
 * with A the weights a token multiplies per block, 2 h^2 + 2 h g + m h f
 * (a mixture: top_k m h moe_ffn_hidden + h experts), 4 s h the attention
 * scores and the weighted values (full s x s, no causal halving), and 6 h V
 * the logits (never recomputed). For a GPT-2 style model with recompute this
 * is SC21's 96 B s l h^2 (1 + s/6h + V/16lh) divided by B s tokens.
 * seq_len: tokens per sequence, 1 to WORK_MODEL_MAX_SEQ_LEN (pass
 * model->seq_len for the model's own). */
uint64_t work_model_flops_per_token(const WorkModel *model, uint64_t seq_len, bool recompute);

/* The FLOPs a token of a causal model needs, without recompute: as above,
 * but each query's scores and weighted values over the keys the causal
 * mask leaves it, (s + 1) / 2 on average, not all s. What MFU counts: no
 * kernel executes fewer (FlashAttention skips only whole blocks above the
 * diagonal, work-compute.h), so MFU stays at most 100%. */
double work_model_causal_flops_per_token(const WorkModel *model, uint64_t seq_len);

/* A transformer model file's key table (for listings and tests). */
extern const HwKeyTable work_model_key_table;
