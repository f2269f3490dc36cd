/* SPDX-License-Identifier: Apache-2.0 */
/* Per-GPU memory of a training layout, in bytes, as closed forms of the
 * model's shape: Megatron-LM's placement of parameters (tensor-parallel
 * shards, pipeline stages of their own layer counts, work-pipeline.h, ZeRO
 * shards over the data-parallel group) and
 * Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large
 * Transformer Models", Table 2 and Sections 4.2.3 and 4.3) for activations,
 * times what each pipeline schedule keeps in flight (Megatron-LM's
 * schedules.py). Simplifications: no allocator fragmentation, workspaces or
 * communication buffers; ZeRO-3 keeps no gathered layer; dropout masks are
 * stored, as in the paper, and attention scores too unless the layout says
 * the attention is fused. Sums saturate at UINT64_MAX instead of wrapping.
 */
#include "work/work-memory.h"

#include "work/work-compute.h"
#include "work/work-pipeline.h"

static uint64_t
mul(uint64_t a, uint64_t b)
{
    uint64_t product;
    return g_uint64_checked_mul(&product, a, b) ? product : UINT64_MAX;
}

static uint64_t
add(uint64_t a, uint64_t b)
{
    uint64_t sum;
    return g_uint64_checked_add(&sum, a, b) ? sum : UINT64_MAX;
}

static uint64_t
ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

static uint64_t
ffn_matrices(const WorkModel *m)
{
    return m->ffn_kind == WORK_FFN_SWIGLU ? 3 : 2;
}

static uint64_t
norm_params(const WorkModel *m)
{
    return (m->norm == WORK_NORM_LAYERNORM ? 2 : 1) * m->hidden_size;
}

/* One FFN of inner size f with its biases, as work_model_params counts it. */
static uint64_t
ffn_params(const WorkModel *m, uint64_t f)
{
    uint64_t biases = m->linear_bias ? (ffn_matrices(m) - 1) * f + m->hidden_size : 0;
    return ffn_matrices(m) * m->hidden_size * f + biases;
}

/* Parameters one GPU holds, by how ZeRO shards them: the dense ones over
 * the dp ranks, the experts over the dp / ep ranks that hold the same
 * experts. */
typedef struct StageParams {
    uint64_t dense;
    uint64_t expert;
} StageParams;

/* Megatron splits the attention and FFN matrices over the tensor-parallel
 * ranks, with their biases (we split the row-parallel biases too, 2 h per
 * block that Megatron keeps whole), and keeps the norms and the router
 * whole on every rank. Each expert is split over tp as well (Megatron's
 * default expert_tensor_parallel_size = tp). */
static StageParams
block_params(const WorkLayout *l, const WorkModel *m)
{
    uint64_t h = m->hidden_size, g = m->n_kv_heads * (h / m->n_heads), t = l->tp;
    uint64_t attention = 2 * h * h + 2 * h * g + (m->linear_bias ? 2 * h + 2 * g : 0);
    StageParams p = {.dense = ceil_div(attention, t) + 2 * norm_params(m)};
    if (m->n_experts == 0) {
        p.dense += ceil_div(ffn_params(m, m->ffn_hidden_size), t);
    } else {
        p.dense += h * m->n_experts;
        p.expert = m->n_experts / l->ep * ceil_div(ffn_params(m, m->moe_ffn_hidden_size), t);
    }
    return p;
}

void
work_memory_block_params(const WorkLayout *layout, const WorkModel *model, uint64_t *dense,
                         uint64_t *expert)
{
    StageParams p = block_params(layout, model);
    *dense = p.dense;
    *expert = p.expert;
}

uint64_t
work_memory_embedding_params(const WorkLayout *l, const WorkModel *m)
{
    uint64_t words = work_compute_vocab_padded(m, l->tp) / l->tp * m->hidden_size;
    return words + (m->positions == WORK_POSITIONS_LEARNED ? m->seq_len * m->hidden_size : 0);
}

uint64_t
work_memory_output_params(const WorkLayout *l, const WorkModel *m)
{
    return m->tied_embeddings && l->pp == 1
               ? 0
               : work_compute_vocab_padded(m, l->tp) / l->tp * m->hidden_size;
}

uint64_t
work_memory_final_norm_params(const WorkModel *m)
{
    return norm_params(m);
}

/* The stage's blocks; the embedding on the first stage; the final norm and
 * the output layer on the last (work_memory_embedding_params). */
static StageParams
stage_params(const WorkLayout *l, const WorkModel *m, uint32_t stage)
{
    uint64_t n_layers = work_pipeline_stage_layers(l, m, stage);
    StageParams block = block_params(l, m);
    StageParams p = {.dense = n_layers * block.dense, .expert = n_layers * block.expert};
    if (stage == 0)
        p.dense += work_memory_embedding_params(l, m);
    if (stage == l->pp - 1)
        p.dense += norm_params(m) + work_memory_output_params(l, m);
    return p;
}

/* n parameters' bytes on one GPU: each holds 1/ranks of them when the
 * ZeRO stage shards this kind of state, all of them otherwise. */
static uint64_t
state_bytes(uint64_t n, uint64_t ranks, bool sharded, uint32_t bytes_each)
{
    return mul(sharded ? ceil_div(n, ranks) : n, bytes_each);
}

static void
fill_states(const WorkLayout *l, const StageParams *p, WorkMemory *out)
{
    /* Context-parallel ranks hold the same weights and shard the states
     * with the data-parallel ones (Megatron-Core's data-parallel group
     * with cp). */
    uint64_t dp = work_layout_grad_ranks(l), expert_dp = dp / l->ep;
    out->n_params = p->dense + p->expert;
    out->optimizer_bytes =
        add(state_bytes(p->dense, dp, l->zero >= WORK_ZERO_1, l->optimizer_bytes),
            state_bytes(p->expert, expert_dp, l->zero >= WORK_ZERO_1, l->optimizer_bytes));
    out->gradients_bytes =
        add(state_bytes(p->dense, dp, l->zero >= WORK_ZERO_2, l->grad_bytes),
            state_bytes(p->expert, expert_dp, l->zero >= WORK_ZERO_2, l->grad_bytes));
    out->weights_bytes =
        add(state_bytes(p->dense, dp, l->zero >= WORK_ZERO_3, l->param_bytes),
            state_bytes(p->expert, expert_dp, l->zero >= WORK_ZERO_3, l->param_bytes));
}

/* ZeRO 3 and FSDP hold two blocks' parameters whole while they run: the
 * block computing and the one gathered ahead; FSDP also a block's whole
 * gradients until they are reduce-scattered [D]. */
static void
add_gathered(const WorkLayout *l, const WorkModel *m, WorkMemory *out)
{
    if (l->zero < WORK_ZERO_3 || work_layout_grad_ranks(l) < 2)
        return;
    StageParams block = block_params(l, m);
    out->weights_bytes = add(out->weights_bytes, mul(2 * block.dense, l->param_bytes));
    if (l->fsdp)
        out->gradients_bytes = add(out->gradients_bytes, mul(block.dense, l->grad_bytes));
}

/* Korthikanti et al. 2022, Section 4.1, count a GPT block's stored tensors
 * per token (e bytes an element, 1 byte a dropout mask):
 *   outside the tensor-parallel region (whole on every rank; 1/t of the
 *   tokens with sp): both norms' inputs, the QKV and FFN inputs (4 e h) and
 *   two dropout masks (2 h): 10 h at e = 2;
 *   inside (1/t each): Q, K and V (3 e h), the output projection's input
 *   (e h), the GeLU's input and output (2 e 4h): 24 h;
 *   the attention scores: softmax output and dropped-out copy (2 e a s)
 *   and the dropout mask (a s): 5 a s.
 * We keep their terms and let the shape change what is shape-dependent:
 * with GQA, K and V are g = kv_heads x head wide (a rank holding whole
 * key/value heads keeps kv_heads / t of them, one when kv_heads < t);
 * SwiGLU stores 3 f (its gate and up outputs and their product, the down
 * projection's input) where GeLU stores 2 f; an expert FFN stores top_k
 * times a dense one of moe_ffn_hidden (the router's and the dispatch's
 * buffers are not counted). Fused attention (FlashAttention, Dao et al.
 * 2022) stores no scores and no dropout mask, only the softmax's fp32
 * log-sum-exp, 4 bytes a head and token, beside Q, K, V and the output
 * already counted. Full recompute keeps the block's input alone (the
 * paper's 2 s b h), split over t with sp as Megatron stores it. */
uint64_t
work_memory_layer_activation_bytes(const WorkLayout *l, const WorkModel *m)
{
    g_return_val_if_fail(l != NULL && m != NULL && l->tp >= 1, 0);
    uint64_t e = l->activation_bytes, s = work_layout_local_seq(l), t = l->tp, h = m->hidden_size;
    uint64_t tokens = mul(s, l->micro_batch);
    uint64_t outside_tokens = l->sp ? mul(s / t, l->micro_batch) : tokens;
    if (l->recompute == WORK_RECOMPUTE_FULL)
        return mul(mul(outside_tokens, h), e);
    uint64_t head = h / m->n_heads, heads = m->n_heads / t;
    uint64_t kv_heads = m->n_kv_heads >= t ? m->n_kv_heads / t : 1;
    uint64_t ffn = m->n_experts == 0 ? ffn_matrices(m) * m->ffn_hidden_size / t
                                     : m->top_k * ffn_matrices(m) * m->moe_ffn_hidden_size / t;
    uint64_t outside = (4 * e + 2) * h;
    uint64_t inside = e * (2 * heads * head + 2 * kv_heads * head + ffn);
    uint64_t scores = mul((2 * e + 1) * heads, s);
    if (l->recompute == WORK_RECOMPUTE_SELECTIVE)
        scores = 0;
    else if (l->flash_attention)
        scores = 4 * heads;
    return add(mul(outside_tokens, outside), mul(tokens, add(inside, scores)));
}

uint64_t
work_memory_chunks_in_flight(const WorkLayout *l, uint32_t stage)
{
    g_return_val_if_fail(l != NULL && stage < l->pp, 0);
    uint64_t m = work_layout_microbatches(l), pp = l->pp, later_stages = pp - stage - 1;
    switch (l->schedule) {
    case WORK_SCHEDULE_GPIPE:
        return m;
    case WORK_SCHEDULE_1F1B:
        return MIN(later_stages + 1, m);
    case WORK_SCHEDULE_INTERLEAVED:
        /* Megatron's warm-up: a round of pp microbatches through every
         * chunk but the last, and two per later stage; then one more
         * forward before the first backward frees anything. */
        return MIN(2 * later_stages + (l->vp - 1) * pp + 1, mul(m, l->vp));
    }
    g_return_val_if_reached(0);
}

/* The first stage keeps, per microbatch in flight, the token ids (int64)
 * and the embedding's dropout mask (Section 4.3; Megatron-LM's
 * theoretical_memory_usage.py counts both). The last keeps the final
 * norm's and the output projection's inputs (e bytes each, 1/t of the
 * tokens with sp) and the logits in fp32, vocab / t per token (4 s b h / t
 * (1 + V / h) in all with sp at e = 2, Section 4.3), for one microbatch
 * (the loss's backward follows its forward at once) or, with GPipe, all. */
static void
fill_activations(const WorkLayout *l, const WorkModel *m, uint32_t stage, WorkMemory *out)
{
    uint64_t s = work_layout_local_seq(l), b = l->micro_batch, h = m->hidden_size, t = l->tp;
    uint64_t tokens = mul(s, b), outside_tokens = l->sp ? mul(s / t, b) : tokens;
    out->n_chunks_in_flight = work_memory_chunks_in_flight(l, stage);
    out->n_microbatches_in_flight = ceil_div(out->n_chunks_in_flight, l->vp);
    out->n_layers_in_flight = work_pipeline_layers_in_flight(l, m, stage);
    out->activations_bytes = mul(out->n_layers_in_flight, work_memory_layer_activation_bytes(l, m));
    out->embedding_activations_bytes = 0;
    out->output_activations_bytes = 0;
    if (stage == 0)
        out->embedding_activations_bytes =
            mul(out->n_microbatches_in_flight, add(mul(tokens, 8), mul(outside_tokens, h)));
    if (stage == l->pp - 1) {
        uint64_t n_microbatches =
            l->schedule == WORK_SCHEDULE_GPIPE ? work_layout_microbatches(l) : 1;
        uint64_t inputs = mul(mul(outside_tokens, h), 2 * (uint64_t)l->activation_bytes);
        uint64_t logits = mul(mul(tokens, ceil_div(m->vocab_size, t)), 4);
        out->output_activations_bytes = mul(n_microbatches, add(inputs, logits));
    }
}

void
work_memory_stage(const WorkLayout *layout, const WorkModel *model, uint32_t stage,
                  WorkMemory *memory)
{
    g_return_if_fail(layout != NULL && model != NULL && memory != NULL);
    g_return_if_fail(stage < layout->pp);
    *memory =
        (WorkMemory){.stage = stage, .n_layers = work_pipeline_stage_layers(layout, model, stage)};
    StageParams params = stage_params(layout, model, stage);
    fill_states(layout, &params, memory);
    add_gathered(layout, model, memory);
    fill_activations(layout, model, stage, memory);
    uint64_t parts[] = {memory->weights_bytes,
                        memory->gradients_bytes,
                        memory->optimizer_bytes,
                        memory->activations_bytes,
                        memory->embedding_activations_bytes,
                        memory->output_activations_bytes};
    for (size_t i = 0; i < G_N_ELEMENTS(parts); i++)
        memory->total_bytes = add(memory->total_bytes, parts[i]);
}

bool
work_memory_fits(const WorkLayout *layout, const WorkModel *model, uint64_t hbm_bytes,
                 WorkMemory *memory)
{
    g_return_val_if_fail(layout != NULL && model != NULL && memory != NULL, false);
    g_return_val_if_fail(layout->pp >= 1, false);
    work_memory_stage(layout, model, 0, memory);
    for (uint32_t stage = 1; stage < layout->pp; stage++) {
        WorkMemory other;
        work_memory_stage(layout, model, stage, &other);
        if (other.total_bytes > memory->total_bytes)
            *memory = other;
    }
    return memory->total_bytes <= hbm_bytes;
}

static double
gib(uint64_t bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

char *
work_memory_describe(const WorkMemory *memory, const WorkLayout *layout, uint64_t hbm_bytes)
{
    g_return_val_if_fail(memory != NULL && layout != NULL, NULL);
    const WorkMemory *m = memory;
    bool fits = m->total_bytes <= hbm_bytes;
    g_autofree char *verdict =
        fits ? g_strdup_printf("fits (%.2f GiB free)", gib(hbm_bytes - m->total_bytes))
             : g_strdup_printf("does not fit (%.2f GiB over)", gib(m->total_bytes - hbm_bytes));
    return g_strdup_printf(
        "stage %u of %u: weights %.2f GiB, gradients %.2f GiB, optimizer states %.2f GiB, "
        "activations %.2f GiB (%" G_GUINT64_FORMAT " microbatch%s in flight), embedding "
        "and output layers %.2f GiB; total %.2f GiB of %.2f GiB HBM: %s",
        m->stage, layout->pp, gib(m->weights_bytes), gib(m->gradients_bytes),
        gib(m->optimizer_bytes), gib(m->activations_bytes), m->n_microbatches_in_flight,
        m->n_microbatches_in_flight == 1 ? "" : "es",
        gib(add(m->embedding_activations_bytes, m->output_activations_bytes)), gib(m->total_bytes),
        gib(hbm_bytes), verdict);
}
