/* SPDX-License-Identifier: Apache-2.0 */
/* Transformer model shapes from models/llm/NAME.ini: the key table, the
 * loader and its checks, and the closed-form parameter and FLOP counts.
 *
 * The counts are exact integers for the architecture the file describes;
 * FLOPs follow Megatron-LM's convention (matrix multiplications only, full
 * attention matrix), so that they compare with published TFLOP/s figures.
 * Sources: Narayanan et al., SC21, Section 5.1 (parameters and FLOPs of a
 * GPT model); values and their sources live in the model files.
 */
#include "work/work-model.h"

#include <math.h>

#include <string.h>

#include "hw/hw-keys.h"
#include "hw/hw-models.h"

#define GROUP "model"

/* The file as read: the model and the words of its choice keys. */
typedef struct ModelFile {
    WorkModel model;
    char *ffn_kind;
    char *norm;
    char *positions;
} ModelFile;

#define FIELD(f) offsetof(ModelFile, model.f)
#define WORD(f) offsetof(ModelFile, f)

static const HwKey model_keys[] = {
    {"name", HW_KEY_STRING, FIELD(name), true, "the model's name, such as Llama 3 70B"},
    {"layers", HW_KEY_COUNT, FIELD(n_layers), true, "the number of transformer blocks"},
    {"hidden", HW_KEY_COUNT, FIELD(hidden_size), true, "the hidden size (d_model)"},
    {"ffn_hidden", HW_KEY_COUNT, FIELD(ffn_hidden_size), true,
     "the FFN's inner size, such as 4 x hidden"},
    {"heads", HW_KEY_COUNT, FIELD(n_heads), true, "the number of attention (query) heads"},
    {"kv_heads", HW_KEY_COUNT, FIELD(n_kv_heads), false,
     "the number of key/value heads (GQA); heads when absent"},
    {"vocab", HW_KEY_COUNT, FIELD(vocab_size), true, "the vocabulary size in tokens"},
    {"seq_len", HW_KEY_COUNT, FIELD(seq_len), true, "the training sequence length in tokens"},
    {"experts", HW_KEY_COUNT, FIELD(n_experts), false,
     "the number of experts of every block's FFN (omit for a dense model)"},
    {"top_k", HW_KEY_COUNT, FIELD(top_k), false,
     "the experts each token is routed to, 1 to experts (with experts only)"},
    {"moe_ffn_hidden", HW_KEY_COUNT, FIELD(moe_ffn_hidden_size), false,
     "one expert's inner size; ffn_hidden when absent (with experts only)"},
    {"ffn_kind", HW_KEY_STRING, WORD(ffn_kind), false,
     "gelu (2 matrices, the default) or swiglu (3 matrices)"},
    {"norm", HW_KEY_STRING, WORD(norm), false, "layernorm (the default) or rmsnorm"},
    {"position_embedding", HW_KEY_STRING, WORD(positions), false,
     "learned (the default), rope or alibi"},
    {"linear_bias", HW_KEY_BOOL, FIELD(linear_bias), false,
     "whether the attention and FFN matrices have biases (default yes)"},
    {"tied_embeddings", HW_KEY_BOOL, FIELD(tied_embeddings), false,
     "whether the output head reuses the input embedding (default yes)"},
};

const HwKeyTable work_model_key_table = {"models/llm/ID.ini", GROUP, model_keys,
                                         G_N_ELEMENTS(model_keys)};

static const char *const ffn_kind_names[] = {"gelu", "swiglu"};
static const char *const norm_names[] = {"layernorm", "rmsnorm"};
static const char *const position_names[] = {"learned", "rope", "alibi"};

void
work_model_free(WorkModel *model)
{
    if (model == NULL)
        return;
    g_free(model->name);
    g_free(model);
}

static void
model_file_clear(ModelFile *file)
{
    g_free(file->model.name);
    g_free(file->ffn_kind);
    g_free(file->norm);
    g_free(file->positions);
}

/* Sets *out to the index of word among names; an absent word keeps the
 * default already in *out. */
static bool
parse_choice(const char *path, const char *key, const char *word, const char *const *names,
             size_t n_names, unsigned *out, GError **error)
{
    if (word == NULL)
        return true;
    size_t index = 0;
    if (!hw_keys_choice(path, GROUP, key, word, names, n_names, &index, error))
        return false;
    *out = (unsigned)index;
    return true;
}

static bool
parse_choices(const ModelFile *file, const char *path, WorkModel *m, GError **error)
{
    unsigned ffn = WORK_FFN_GELU, norm = WORK_NORM_LAYERNORM, positions = WORK_POSITIONS_LEARNED;
    if (!parse_choice(path, "ffn_kind", file->ffn_kind, ffn_kind_names,
                      G_N_ELEMENTS(ffn_kind_names), &ffn, error) ||
        !parse_choice(path, "norm", file->norm, norm_names, G_N_ELEMENTS(norm_names), &norm,
                      error) ||
        !parse_choice(path, "position_embedding", file->positions, position_names,
                      G_N_ELEMENTS(position_names), &positions, error))
        return false;
    m->ffn_kind = (WorkFfnKind)ffn;
    m->norm = (WorkNorm)norm;
    m->positions = (WorkPositions)positions;
    return true;
}

/* An error "PATH: [model] key: VALUE does not divide WHOLE_KEY (WHOLE);
 * expected a divisor of WHOLE_KEY" unless part divides whole. */
static bool
check_divides(const char *path, const char *key, uint64_t part, const char *whole_key,
              uint64_t whole, GError **error)
{
    if (whole % part == 0)
        return true;
    return hw_keys_fail(error, path, GROUP, key,
                        "%" G_GUINT64_FORMAT " does not divide %s (%" G_GUINT64_FORMAT
                        "); expected a divisor of %s",
                        part, whole_key, whole, whole_key);
}

static bool
check_shape(const WorkModel *m, const char *path, GError **error)
{
    return hw_keys_check_range(path, GROUP, "layers", m->n_layers, 1, WORK_MODEL_MAX_LAYERS,
                               error) &&
           hw_keys_check_range(path, GROUP, "hidden", m->hidden_size, 1, WORK_MODEL_MAX_HIDDEN,
                               error) &&
           hw_keys_check_range(path, GROUP, "ffn_hidden", m->ffn_hidden_size, 1,
                               WORK_MODEL_MAX_FFN_HIDDEN, error) &&
           hw_keys_check_range(path, GROUP, "heads", m->n_heads, 1, m->hidden_size, error) &&
           check_divides(path, "heads", m->n_heads, "hidden", m->hidden_size, error) &&
           hw_keys_check_range(path, GROUP, "kv_heads", m->n_kv_heads, 1, m->n_heads, error) &&
           check_divides(path, "kv_heads", m->n_kv_heads, "heads", m->n_heads, error) &&
           hw_keys_check_range(path, GROUP, "vocab", m->vocab_size, 1, WORK_MODEL_MAX_VOCAB,
                               error) &&
           hw_keys_check_range(path, GROUP, "seq_len", m->seq_len, 1, WORK_MODEL_MAX_SEQ_LEN,
                               error);
}

/* experts, top_k and moe_ffn_hidden: all absent (dense), or experts and
 * top_k together, moe_ffn_hidden defaulting to ffn_hidden. */
static bool
check_experts(GKeyFile *kf, WorkModel *m, const char *path, GError **error)
{
    bool has_experts = g_key_file_has_key(kf, GROUP, "experts", NULL);
    bool has_top_k = g_key_file_has_key(kf, GROUP, "top_k", NULL);
    bool has_moe_ffn = g_key_file_has_key(kf, GROUP, "moe_ffn_hidden", NULL);
    if (!has_experts) {
        if (has_top_k || has_moe_ffn)
            return hw_keys_fail(error, path, GROUP, has_top_k ? "top_k" : "moe_ffn_hidden",
                                "given without experts; expected experts too, or neither for "
                                "a dense model");
        return true;
    }
    if (!has_top_k)
        return hw_keys_fail(error, path, GROUP, "top_k",
                            "missing; expected the experts each token is routed to, 1 to "
                            "experts (%" G_GUINT64_FORMAT ")",
                            m->n_experts);
    if (!has_moe_ffn)
        m->moe_ffn_hidden_size = m->ffn_hidden_size;
    return hw_keys_check_range(path, GROUP, "experts", m->n_experts, 1, WORK_MODEL_MAX_EXPERTS,
                               error) &&
           hw_keys_check_range(path, GROUP, "top_k", m->top_k, 1, m->n_experts, error) &&
           hw_keys_check_range(path, GROUP, "moe_ffn_hidden", m->moe_ffn_hidden_size, 1,
                               WORK_MODEL_MAX_FFN_HIDDEN, error);
}

static WorkModel *
model_load(const char *path, const char *data, gsize length, GError **error)
{
    g_return_val_if_fail(path != NULL, NULL);
    g_autoptr(GKeyFile) kf = hw_keys_open(path, "a model file", GROUP, data, length, error);
    if (kf == NULL)
        return NULL;
    /* The defaults of the optional keys: a GPT-2 style block. */
    ModelFile file = {.model = {.linear_bias = true, .tied_embeddings = true}};
    bool ok = hw_keys_load(kf, path, GROUP, model_keys, G_N_ELEMENTS(model_keys), &file, error) &&
              parse_choices(&file, path, &file.model, error);
    if (ok && !g_key_file_has_key(kf, GROUP, "kv_heads", NULL))
        file.model.n_kv_heads = file.model.n_heads;
    ok = ok && check_shape(&file.model, path, error) && check_experts(kf, &file.model, path, error);
    if (!ok) {
        model_file_clear(&file);
        return NULL;
    }
    g_free(file.ffn_kind);
    g_free(file.norm);
    g_free(file.positions);
    return g_memdup2(&file.model, sizeof file.model);
}

WorkModel *
work_model_load(const char *path, GError **error)
{
    return model_load(path, NULL, 0, error);
}

WorkModel *
work_model_load_data(const char *data, gsize length, const char *path, GError **error)
{
    g_return_val_if_fail(data != NULL, NULL);
    return model_load(path, data, length, error);
}

WorkModel *
work_model_load_by_id(const char *id, const char *models_dir, GError **error)
{
    g_return_val_if_fail(id != NULL, NULL);
    g_autofree char *path =
        hw_models_find(models_dir ? models_dir : hw_models_dir(), "llm", NULL, id, error);
    if (path == NULL)
        return NULL;
    return work_model_load(path, error);
}

/* Weights of one FFN of inner size f, biases included when the model has
 * them. */
static uint64_t
ffn_params(const WorkModel *m, uint64_t f)
{
    uint64_t n_matrices = m->ffn_kind == WORK_FFN_SWIGLU ? 3 : 2;
    uint64_t biases = m->linear_bias ? (n_matrices - 1) * f + m->hidden_size : 0;
    return n_matrices * m->hidden_size * f + biases;
}

static uint64_t
kv_size(const WorkModel *m)
{
    return m->n_kv_heads * (m->hidden_size / m->n_heads);
}

static uint64_t
norm_params(const WorkModel *m)
{
    return (m->norm == WORK_NORM_LAYERNORM ? 2 : 1) * m->hidden_size;
}

uint64_t
work_model_params(const WorkModel *m)
{
    g_return_val_if_fail(m != NULL, 0);
    uint64_t h = m->hidden_size, g = kv_size(m);
    uint64_t embeddings = m->vocab_size * h * (m->tied_embeddings ? 1 : 2);
    if (m->positions == WORK_POSITIONS_LEARNED)
        embeddings += m->seq_len * h;
    uint64_t attention = 2 * h * h + 2 * h * g + (m->linear_bias ? 2 * h + 2 * g : 0);
    uint64_t ffn = m->n_experts == 0
                       ? ffn_params(m, m->ffn_hidden_size)
                       : m->n_experts * ffn_params(m, m->moe_ffn_hidden_size) + h * m->n_experts;
    uint64_t block = attention + ffn + 2 * norm_params(m);
    return embeddings + m->n_layers * block + norm_params(m);
}

/* The FLOPs of work_model_flops_per_token with the attention products
 * over keys_x2 / 2 keys a query (2 s: Megatron's full s x s; s + 1: the
 * causal mask's average). */
static double
flops_per_token(const WorkModel *m, uint64_t keys_x2, bool recompute)
{
    uint64_t h = m->hidden_size, n_matrices = m->ffn_kind == WORK_FFN_SWIGLU ? 3 : 2;
    /* Weights one token multiplies in a block: its attention projections
     * and the FFN (or the top_k experts it is routed to, and the router). */
    uint64_t ffn = m->n_experts == 0
                       ? n_matrices * h * m->ffn_hidden_size
                       : m->top_k * n_matrices * h * m->moe_ffn_hidden_size + h * m->n_experts;
    uint64_t weights = 2 * h * h + 2 * h * kv_size(m) + ffn;
    /* A multiply-add is 2 FLOPs; backward costs twice the forward; full
     * recomputation runs every block's forward once more, not the logits. */
    double passes = recompute ? 4 : 3;
    double block = 2.0 * (double)weights + 2.0 * (double)keys_x2 * (double)h;
    return passes * (double)m->n_layers * block + 3.0 * 2.0 * (double)h * (double)m->vocab_size;
}

uint64_t
work_model_flops_per_token(const WorkModel *m, uint64_t seq_len, bool recompute)
{
    g_return_val_if_fail(m != NULL, 0);
    g_return_val_if_fail(seq_len >= 1 && seq_len <= WORK_MODEL_MAX_SEQ_LEN, 0);
    return (uint64_t)llround(flops_per_token(m, 2 * seq_len, recompute));
}

double
work_model_causal_flops_per_token(const WorkModel *m, uint64_t seq_len)
{
    g_return_val_if_fail(m != NULL, 0);
    g_return_val_if_fail(seq_len >= 1 && seq_len <= WORK_MODEL_MAX_SEQ_LEN, 0);
    return flops_per_token(m, seq_len + 1, false);
}
