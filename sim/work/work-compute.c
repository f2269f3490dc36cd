/* SPDX-License-Identifier: Apache-2.0 */
/* The per-layer compute model: the kernels of a transformer block, the
 * embedding, the output head and the optimizer step on one GPU (Megatron-LM
 * with its fused kernels: QKV and gate/up GEMMs, bias-GELU,
 * bias-dropout-add, scale-mask-softmax), their FLOPs and bytes, integers;
 * their time, integer picoseconds, in work-compute-time.c. Sources are
 * given where each figure is used.
 */
#include "work/work-compute.h"

#include <math.h>

/* A block has at most 18 kernels a pass (GEMM attention with rotary
 * positions and dropout, and a mixture of experts), and with fp8 linear
 * layers a cast before each of their 4 to 6 GEMMs. */
#define MAX_SPECS 32

/* The figures every kernel count of one microbatch uses. */
typedef struct Shape {
    uint64_t b, s, t;     /* sequences, tokens each on this GPU (seq_len / cp),
                           * tensor-parallel ranks */
    uint64_t cp;          /* context-parallel ranks: attention's steps */
    uint64_t tokens;      /* T = b s: rows of every GEMM */
    uint64_t norm_tokens; /* T / t with sequence parallelism, else T */
    uint64_t h, d;        /* hidden, head size */
    uint64_t heads;       /* query heads on this GPU: heads / t */
    uint64_t kv;          /* key/value width on this GPU: kv_heads / t heads of d,
                           * at least one (replicated when kv_heads < t) */
    uint64_t e;           /* bytes per activation element */
    uint64_t vocab_shard; /* padded vocabulary / t */
    uint64_t grad_bytes;  /* bytes per gradient element */
} Shape;

/* A forward kernel and what its backward pass runs. */
typedef struct Spec {
    const char *name;
    const char *grad_a; /* GEMM: the product giving its first operand's gradient
                         * (dgrad); other kernels: its backward kernel, or NULL */
    const char *grad_b; /* GEMM: the product giving its second operand's gradient */
    WorkOpKind kind;
    WorkMath math;
    uint64_t n_batch, m, n, k;
    uint64_t flops;
    uint64_t bytes, grad_bytes;
    WorkKernel kernel;
    bool core;         /* part of attention's core: replayed by selective recomputation */
    uint64_t cp_steps; /* fused attention under context parallelism: its kernels a pass */
} Spec;

typedef struct SpecList {
    Spec spec[MAX_SPECS];
    unsigned n;
} SpecList;

static uint64_t
div_up(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* Bytes of n operand elements: fp4 half a byte each and, NVFP4's, a
 * 1-byte scale each block of 16. */
static uint64_t
operand_bytes(WorkMath math, uint64_t n)
{
    switch (math) {
    case WORK_MATH_FP4:
        return div_up(n, 2) + div_up(n, WORK_COMPUTE_NVFP4_BLOCK);
    case WORK_MATH_FP8:
        return n;
    case WORK_MATH_FP32:
        return 4 * n;
    case WORK_MATH_FP16:
        break;
    }
    return 2 * n;
}

/* Larger in practice when operand tiles fall out of L2. */
uint64_t
work_compute_gemm_bytes(WorkMath math, uint64_t n_batch, uint64_t m, uint64_t n, uint64_t k)
{
    uint64_t out = math == WORK_MATH_FP32 ? 4 : 2;
    return n_batch * (operand_bytes(math, m * k + k * n) + m * n * out);
}

/* The cast of a linear layer's input (forward) or output gradient
 * (backward) of n elements of e bytes, as Transformer Engine runs it [D]:
 *   delayed fp8: one fused cast-transpose, read e, write the fp8 copy and
 *     its transpose (the weight gradient's operand), 1 + 1; on a GPU whose
 *     fp8 GEMMs take any layout (Blackwell) the copy alone, which the
 *     weight gradient reads transposed (Transformer Engine's quantizers
 *     make the transpose only where nvte_is_non_tn_fp8_gemm_supported()
 *     is false);
 *   current fp8: an amax pass (read e) first;
 *   MXFP8: read e, write both orientations (a block runs along K, which
 *     differs between the forward and the weight gradient's product), each
 *     1 byte an element and 1 a block of 32;
 *   NVFP4: an amax pass (the tensor's fp32 scale), then read e and write
 *     both orientations at half a byte an element and 1 a block of 16.
 *     NVIDIA's NVFP4 recipe turns the weight gradient's operands (the
 *     transposed orientation) by a 16-point random Hadamard transform
 *     first; Transformer Engine folds it into the same two passes
 *     (nvte_hadamard_transform_amax takes the plain amax and the
 *     transformed one in one read, its transform-and-cast kernel writes
 *     both orientations), so it moves no more bytes; its arithmetic (32
 *     FLOPs an element) is left out.
 * Integer bytes, scales rounded up to whole blocks. */
uint64_t
work_compute_cast_bytes(WorkScaling scaling, bool transpose, uint64_t n, uint64_t e)
{
    uint64_t copies = transpose ? 2 : 1;
    switch (scaling) {
    case WORK_SCALING_NONE:
        return 0;
    case WORK_SCALING_DELAYED:
        return n * (e + copies);
    case WORK_SCALING_CURRENT:
        return n * (2 * e + copies);
    case WORK_SCALING_MXFP8:
        return n * e + 2 * (n + div_up(n, WORK_COMPUTE_MX_BLOCK));
    case WORK_SCALING_NVFP4:
        return 2 * n * e + 2 * operand_bytes(WORK_MATH_FP4, n);
    }
    g_return_val_if_reached(0);
}

static Shape
shape_of(const WorkModel *model, const WorkLayout *layout)
{
    Shape x = {0};
    x.b = layout->micro_batch;
    x.cp = MAX(layout->cp, 1);
    x.s = layout->seq_len / x.cp;
    x.t = layout->tp;
    x.tokens = x.b * x.s;
    x.norm_tokens = layout->sp ? div_up(x.tokens, x.t) : x.tokens;
    x.h = model->hidden_size;
    x.d = model->hidden_size / model->n_heads;
    x.heads = div_up(model->n_heads, x.t);
    x.kv = work_compute_kv_width(model, layout);
    x.e = layout->activation_bytes;
    x.vocab_shard = work_compute_vocab_padded(model, layout->tp) / x.t;
    x.grad_bytes = layout->grad_bytes;
    return x;
}

uint64_t
work_compute_kv_width(const WorkModel *model, const WorkLayout *layout)
{
    g_return_val_if_fail(model != NULL && layout != NULL && layout->tp >= 1, 0);
    return MAX(model->n_kv_heads / layout->tp, 1) * (model->hidden_size / model->n_heads);
}

static Spec *
add_spec(SpecList *list, WorkOpKind kind, const char *name, const char *grad_a, const char *grad_b)
{
    g_assert(list->n < MAX_SPECS);
    Spec *sp = &list->spec[list->n++];
    *sp = (Spec){.name = name, .grad_a = grad_a, .grad_b = grad_b, .kind = kind};
    sp->math = WORK_MATH_FP16;
    return sp;
}

static Spec *
add_gemm(SpecList *list, const char *name, const char *dgrad, const char *wgrad, WorkMath math,
         uint64_t n_batch, uint64_t m, uint64_t n, uint64_t k)
{
    Spec *sp = add_spec(list, WORK_OP_GEMM, name, dgrad, wgrad);
    sp->math = math;
    sp->n_batch = n_batch;
    sp->m = m;
    sp->n = n;
    sp->k = k;
    sp->flops = 2 * n_batch * m * n * k;
    sp->bytes = work_compute_gemm_bytes(math, n_batch, m, n, k);
    return sp;
}

static Spec *
add_memory(SpecList *list, const char *name, const char *backward, uint64_t bytes,
           uint64_t grad_bytes)
{
    Spec *sp = add_spec(list, WORK_OP_MEMORY, name, backward, NULL);
    sp->bytes = bytes;
    sp->grad_bytes = grad_bytes;
    return sp;
}

/* name + suffix, as a string that lives as long as the program. */
static const char *
suffixed(const char *name, const char *suffix)
{
    g_autofree char *s = g_strconcat(name, suffix, NULL);
    return g_intern_string(s);
}

/* A linear layer's GEMM, [m, k] x [k, n] n_batch times. In fp8 or fp4
 * (Transformer Engine's low-precision linear layers) its input is first
 * cast, and backward its output gradient (work_compute_cast_bytes); the
 * weights' casts, once a step (TE caches them over the microbatches), are
 * left out. */
static Spec *
add_linear(SpecList *list, WorkKernel kernel, const char *name, const char *dgrad,
           const char *wgrad, const WorkComputeConfig *c, uint64_t e, uint64_t n_batch, uint64_t m,
           uint64_t n, uint64_t k)
{
    if (c->scaling != WORK_SCALING_NONE)
        add_memory(list, suffixed(name, ".cast"), suffixed(name, ".cast.bwd"),
                   work_compute_cast_bytes(c->scaling, c->fp8_transpose, n_batch * m * k, e),
                   work_compute_cast_bytes(c->scaling, c->fp8_transpose, n_batch * m * n, e));
    Spec *sp = add_gemm(list, name, dgrad, wgrad, c->linear_math, n_batch, m, n, k);
    sp->kernel = kernel;
    return sp;
}

/* LayerNorm or RMSNorm over rows of h: forward reads x and writes y;
 * backward reads x and dy and writes dx. The per-row statistics (8 B a row,
 * fp32) and the weight gradients (h or 2 h a GPU) are left out: < 0.1%. */
static Spec *
add_norm(SpecList *list, const char *name, const char *backward, const Shape *x)
{
    uint64_t elements = x->norm_tokens * x->h;
    return add_memory(list, name, backward, 2 * elements * x->e, 3 * elements * x->e);
}

/* Megatron's fused bias-dropout-add: reads the branch and the residual,
 * writes the sum, and with dropout its 1-byte mask. Backward: the branch's
 * gradient is the output gradient through the mask (read it and the mask,
 * write), and where the residual and the branch meet at the sublayer's
 * input their gradients are summed (read two, write one). */
static void
add_residual(SpecList *list, const char *name, const char *backward, const Shape *x, bool dropout)
{
    uint64_t elements = x->norm_tokens * x->h;
    uint64_t forward = elements * (3 * x->e + (dropout ? 1 : 0));
    uint64_t grad = elements * (3 * x->e + (dropout ? 2 * x->e + 1 : 0));
    add_memory(list, name, backward, forward, grad);
}

/* Attention's core as two batched GEMMs (one product per sequence and
 * local head) around the fused scale-mask-softmax (reads the scores,
 * writes the probabilities; backward reads probabilities and gradient,
 * writes the gradient) and the dropout (reads, writes, 1-byte mask). With
 * GQA a key/value head serves heads / kv_heads products. */
static void
add_attention_gemm(SpecList *list, const Shape *x, bool dropout)
{
    uint64_t nb = x->b * x->heads, probs = nb * x->s * x->s;
    add_gemm(list, "attn.scores", "attn.scores.dq", "attn.scores.dk", WORK_MATH_FP16, nb, x->s,
             x->s, x->d)
        ->core = true;
    add_memory(list, "attn.softmax", "attn.softmax.bwd", 2 * probs * x->e, 3 * probs * x->e)->core =
        true;
    if (dropout)
        add_memory(list, "attn.dropout", "attn.dropout.bwd", probs * (2 * x->e + 1),
                   probs * (2 * x->e + 1))
            ->core = true;
    add_gemm(list, "attn.context", "attn.context.dprobs", "attn.context.dv", WORK_MATH_FP16, nb,
             x->s, x->d, x->s)
        ->core = true;
}

/* Attention's core as one FlashAttention kernel a pass. FLOPs are the two
 * GEMMs' (the convention's full s x s). Forward reads q, k, v and writes the
 * output and a log-sum-exp per row (fp32); backward reads q, k, v, the
 * output, its gradient and the log-sum-exp, writes dq, dk, dv. FA2's fp32
 * dq accumulator and its row-sum pre-kernel are left out. Under context
 * parallelism the GPU's s = seq_len / cp queries meet every rank's keys in
 * cp kernels a pass (ring attention, see append). */
static void
add_attention_flash(SpecList *list, const Shape *x)
{
    uint64_t nb = x->b * x->heads;
    uint64_t q = x->tokens * x->heads * x->d, kv = x->tokens * x->kv;
    uint64_t lse = nb * x->s * 4;
    Spec *sp = add_spec(list, WORK_OP_ATTENTION, "attn.core", "attn.core.bwd", NULL);
    sp->n_batch = nb;
    sp->m = sp->n = x->s;
    sp->k = x->d;
    sp->flops = 4 * nb * x->s * x->s * x->d;
    sp->bytes = (2 * q + 2 * kv) * x->e + lse;
    sp->grad_bytes = (4 * q + 4 * kv) * x->e + lse;
    sp->core = true;
    sp->cp_steps = x->cp;
}

/* The attention sublayer: norm, fused QKV GEMM (h -> h + 2 g for g the
 * key/value width, split by t; a GPU keeps one key/value head when there
 * are fewer than t),
 * rotary positions on q and k (read and write both, each pass), the core,
 * the output projection (h / t -> h) and the residual add. */
static void
add_attention(SpecList *list, const Shape *x, const WorkModel *model, bool flash,
              const WorkComputeConfig *config)
{
    add_norm(list, "attn.norm", "attn.norm.bwd", x);
    add_linear(list, WORK_KERNEL_QKV, "attn.qkv", "attn.qkv.dgrad", "attn.qkv.wgrad", config, x->e,
               1, x->tokens, x->heads * x->d + 2 * x->kv, x->h);
    if (model->positions == WORK_POSITIONS_ROPE) {
        uint64_t qk = x->tokens * (x->heads * x->d + x->kv) * x->e;
        add_memory(list, "attn.rope", "attn.rope.bwd", 2 * qk, 2 * qk);
    }
    if (flash)
        add_attention_flash(list, x);
    else
        add_attention_gemm(list, x, config->dropout);
    add_linear(list, WORK_KERNEL_PROJ, "attn.proj", "attn.proj.dgrad", "attn.proj.wgrad", config,
               x->e, 1, x->tokens, x->h, div_up(x->h, x->t));
    add_residual(list, "attn.residual", "attn.residual.bwd", x, config->dropout);
}

/* The activation between the FFN's GEMMs over rows x f elements: GELU
 * (bias fused) reads and writes f; backward reads input and gradient,
 * writes the gradient. SwiGLU reads gate and up (2 f), writes f; backward
 * reads gate, up and gradient, writes both gradients. */
static void
add_activation(SpecList *list, const char *name, const char *backward, const WorkModel *model,
               uint64_t elements, uint64_t e)
{
    if (model->ffn_kind == WORK_FFN_SWIGLU)
        add_memory(list, name, backward, 3 * elements * e, 5 * elements * e);
    else
        add_memory(list, name, backward, 2 * elements * e, 3 * elements * e);
}

/* A dense FFN: up (GELU) or fused gate and up (SwiGLU, Megatron's
 * linear_fc1 of width 2 f / t), the activation, down (f / t -> h). */
static void
add_ffn(SpecList *list, const Shape *x, const WorkModel *model, const WorkComputeConfig *config)
{
    uint64_t f = div_up(model->ffn_hidden_size, x->t);
    if (model->ffn_kind == WORK_FFN_SWIGLU)
        add_linear(list, WORK_KERNEL_FFN_IN, "ffn.gate_up", "ffn.gate_up.dgrad",
                   "ffn.gate_up.wgrad", config, x->e, 1, x->tokens, 2 * f, x->h);
    else
        add_linear(list, WORK_KERNEL_FFN_IN, "ffn.up", "ffn.up.dgrad", "ffn.up.wgrad", config, x->e,
                   1, x->tokens, f, x->h);
    add_activation(list, "ffn.act", "ffn.act.bwd", model, x->tokens * f, x->e);
    add_linear(list, WORK_KERNEL_FFN_OUT, "ffn.down", "ffn.down.dgrad", "ffn.down.wgrad", config,
               x->e, 1, x->tokens, x->h, f);
}

/* A mixture of experts (Megatron-Core's all-gather dispatcher): the router
 * GEMM on the GPU's tokens (T / t with sequence parallelism), softmax and
 * top-k over its logits (read, write), the permutation of the T top_k
 * routed rows into expert order (read, write), grouped GEMMs over the
 * experts / ep local experts with the FFN split by t as a dense one, and
 * the unpermutation (read the routed rows, write each token's weighted
 * sum). Every GPU of an expert-parallel group receives T top_k rows on
 * average; the one simulated receives config->moe_load times that (the
 * busiest, which the all-to-all waits for), rounded up. A grouped GEMM's m
 * is the rows an expert gets, rounded up; its FLOPs are exact. */
static void
add_moe(SpecList *list, const Shape *x, const WorkModel *model, const WorkLayout *layout,
        const WorkComputeConfig *config)
{
    uint64_t n_local = div_up(model->n_experts, layout->ep);
    uint64_t routed = x->tokens * model->top_k;
    uint64_t received = (uint64_t)ceil((double)routed * config->moe_load);
    uint64_t rows = div_up(received, n_local);
    uint64_t f = div_up(model->moe_ffn_hidden_size, x->t);
    uint64_t up = model->ffn_kind == WORK_FFN_SWIGLU ? 2 * f : f;
    uint64_t logits = x->norm_tokens * model->n_experts * x->e;
    add_gemm(list, "moe.router", "moe.router.dgrad", "moe.router.wgrad", WORK_MATH_FP16, 1,
             x->norm_tokens, model->n_experts, x->h)
        ->kernel = WORK_KERNEL_MOE_ROUTER;
    add_memory(list, "moe.route", "moe.route.bwd", 2 * logits, 2 * logits);
    add_memory(list, "moe.permute", "moe.permute.bwd", 2 * routed * x->h * x->e,
               2 * routed * x->h * x->e)
        ->kernel = WORK_KERNEL_MOE_PERMUTE;
    add_linear(list, WORK_KERNEL_OTHER, "moe.up", "moe.up.dgrad", "moe.up.wgrad", config, x->e,
               n_local, rows, up, x->h)
        ->flops = 2 * received * up * x->h;
    add_activation(list, "moe.act", "moe.act.bwd", model, received * f, x->e);
    add_linear(list, WORK_KERNEL_MOE_DOWN, "moe.down", "moe.down.dgrad", "moe.down.wgrad", config,
               x->e, n_local, rows, x->h, f)
        ->flops = 2 * received * x->h * f;
    uint64_t unpermute = (received + x->tokens) * x->h * x->e;
    add_memory(list, "moe.unpermute", "moe.unpermute.bwd", unpermute, unpermute)->kernel =
        WORK_KERNEL_MOE_UNPERMUTE;
}

static void
block_specs(SpecList *list, const WorkModel *model, const WorkLayout *layout,
            const WorkComputeConfig *config)
{
    Shape x = shape_of(model, layout);
    add_attention(list, &x, model, layout->flash_attention, config);
    add_norm(list, "ffn.norm", "ffn.norm.bwd", &x)->kernel = WORK_KERNEL_FFN_NORM;
    if (model->n_experts == 0)
        add_ffn(list, &x, model, config);
    else
        add_moe(list, &x, model, layout, config);
    add_residual(list, "ffn.residual", "ffn.residual.bwd", &x, config->dropout);
}

static void
append(GArray *ops, const Spec *sp, const char *name, WorkPass pass, WorkPart part, uint64_t m,
       uint64_t n, uint64_t k, uint64_t bytes)
{
    WorkOp op = {
        .name = name,
        .kernel = sp->kernel,
        .part = part,
        .kind = sp->kind,
        .pass = pass,
        .math = sp->math,
        .n_batch = sp->n_batch,
        .m = m,
        .n = n,
        .k = k,
        .flops = sp->flops,
        .bytes = bytes,
    };
    /* Fused attention's backward runs the convention's two products per
     * forward one; memory kernels have none. */
    if (sp->kind == WORK_OP_ATTENTION && pass == WORK_PASS_BACKWARD)
        op.flops = 2 * sp->flops;
    op.causal = sp->kind == WORK_OP_ATTENTION;
    g_array_append_val(ops, op);
    /* Ring attention (Megatron-Core's context parallelism, Transformer
     * Engine's AttnFuncWithCPAndKVP2P): the sequence is cut into 2 cp
     * chunks, rank i holding chunks i and 2 cp - 1 - i. Its first kernel
     * is its own queries against its own keys under the causal mask; each
     * of the cp - 1 others meets the keys and values of another rank,
     * received over the ring while the kernel before runs, of which the
     * mask leaves half (the earlier rank's first chunk, or this rank's
     * later chunk against both): as many products as the convention's
     * s x s / 2. The convention's FLOPs are counted whole on every kernel,
     * cp s x s a rank in all: the causal full sequence's s cp x s cp / cp. */
    for (uint32_t step = 1; sp->kind == WORK_OP_ATTENTION && step < sp->cp_steps; step++) {
        op.name = pass == WORK_PASS_BACKWARD ? "attn.core.ring.bwd" : "attn.core.ring";
        op.n = m / 2;
        op.causal = false;
        op.ring_step = step;
        g_array_append_val(ops, op);
    }
}

static void
emit_forward(GArray *ops, const SpecList *list, WorkPass pass, bool core_only)
{
    for (unsigned i = 0; i < list->n; i++) {
        const Spec *sp = &list->spec[i];
        if (!core_only || sp->core)
            append(ops, sp, sp->name, pass, WORK_PART_MAIN, sp->m, sp->n, sp->k, sp->bytes);
    }
}

/* Backward in reverse order. A GEMM Y[m, n] = A[m, k] B[k, n] runs two
 * products: dA = dY B^T, shape (m, k, n), then dB = A^T dY, shape (k, n, m);
 * each has the forward's FLOPs, so backward is twice forward. */
static void
emit_backward(GArray *ops, const SpecList *list)
{
    for (unsigned i = list->n; i-- > 0;) {
        const Spec *sp = &list->spec[i];
        if (sp->kind == WORK_OP_GEMM) {
            append(ops, sp, sp->grad_a, WORK_PASS_BACKWARD, WORK_PART_GRAD, sp->m, sp->k, sp->n,
                   work_compute_gemm_bytes(sp->math, sp->n_batch, sp->m, sp->k, sp->n));
            append(ops, sp, sp->grad_b, WORK_PASS_BACKWARD, WORK_PART_WGRAD, sp->k, sp->n, sp->m,
                   work_compute_gemm_bytes(sp->math, sp->n_batch, sp->k, sp->n, sp->m));
        } else if (sp->grad_a != NULL) {
            append(ops, sp, sp->grad_a, WORK_PASS_BACKWARD, WORK_PART_GRAD, sp->m, sp->n, sp->k,
                   sp->grad_bytes);
        }
    }
}

static void
emit(GArray *ops, const SpecList *list, WorkPass pass, WorkRecompute recompute)
{
    switch (pass) {
    case WORK_PASS_FORWARD:
        emit_forward(ops, list, pass, false);
        break;
    case WORK_PASS_BACKWARD:
        emit_backward(ops, list);
        break;
    case WORK_PASS_RECOMPUTE:
        if (recompute != WORK_RECOMPUTE_NONE)
            emit_forward(ops, list, pass, recompute == WORK_RECOMPUTE_SELECTIVE);
        break;
    case WORK_PASS_OPTIMIZER:
        g_return_if_reached();
    }
}

void
work_compute_config_init(WorkComputeConfig *config, const WorkModel *model)
{
    g_return_if_fail(config != NULL && model != NULL);
    config->linear_math = WORK_MATH_FP16;
    config->scaling = WORK_SCALING_NONE;
    config->moe_load = 1.0;
    config->dropout = model->positions == WORK_POSITIONS_LEARNED;
    config->fused_cross_entropy = true;
    config->fp8_transpose = true;
}

void
work_compute_config_on(WorkComputeConfig *config, const HwGpu *gpu)
{
    g_return_if_fail(config != NULL && gpu != NULL);
    config->fp8_transpose = !hw_gpu_fp8_gemm_any_layout(gpu);
}

GArray *
work_compute_ops_new(void)
{
    return g_array_new(FALSE, FALSE, sizeof(WorkOp));
}

static bool
inputs_ok(const GArray *ops, const WorkModel *model, const WorkLayout *layout,
          const WorkComputeConfig *config)
{
    return ops != NULL && model != NULL && layout != NULL && config != NULL && layout->tp >= 1 &&
           layout->ep >= 1 && layout->micro_batch >= 1 && layout->seq_len >= 1;
}

void
work_compute_block(GArray *ops, WorkPass pass, const WorkModel *model, const WorkLayout *layout,
                   const WorkComputeConfig *config)
{
    g_return_if_fail(inputs_ok(ops, model, layout, config));
    SpecList list = {.n = 0};
    block_specs(&list, model, layout, config);
    emit(ops, &list, pass, layout->recompute);
}

/* The vocab-parallel lookup writes all T x h output rows (zeros for the
 * tokens another rank owns) and reads at most T rows of its shard; its
 * backward reads the T x h gradient and writes the dense V'/t x h table
 * gradient PyTorch's embedding backward produces. Learned positions: read
 * token and position rows, write the sum; backward reads the gradient and
 * writes the s x h table's. Dropout as in a residual add, on the GPU's
 * tokens. */
void
work_compute_embedding(GArray *ops, WorkPass pass, const WorkModel *model, const WorkLayout *layout,
                       const WorkComputeConfig *config)
{
    g_return_if_fail(inputs_ok(ops, model, layout, config));
    if (pass == WORK_PASS_RECOMPUTE)
        return;
    Shape x = shape_of(model, layout);
    uint64_t rows = x.tokens * x.h;
    SpecList list = {.n = 0};
    add_memory(&list, "embed.lookup", "embed.lookup.bwd", 2 * rows * x.e,
               rows * x.e + x.vocab_shard * x.h * x.grad_bytes);
    if (model->positions == WORK_POSITIONS_LEARNED)
        add_memory(&list, "embed.positions", "embed.positions.bwd", 3 * rows * x.e,
                   rows * x.e + layout->seq_len * x.h * x.grad_bytes);
    if (config->dropout) {
        uint64_t dropout = x.norm_tokens * x.h * (2 * x.e + 1);
        add_memory(&list, "embed.dropout", "embed.dropout.bwd", dropout, dropout);
    }
    emit(ops, &list, pass, WORK_RECOMPUTE_NONE);
}

/* Final norm, logits GEMM (fp16 even with fp8 linear layers, as Transformer
 * Engine keeps the output layer in higher precision), and the vocab-
 * parallel cross entropy over the T x V'/t logits of e bytes. Fused, it
 * reads them and writes their fp32 softmax for the backward, which reads
 * it and writes the logits' gradient: e + 4 bytes a logit each way.
 * Unfused, as Megatron's VocabParallelCrossEntropy runs it
 * (megatron/core/tensor_parallel/cross_entropy.py, core_r0.8.0), every
 * step is its own pass over the logits: the cast to fp32 (e read, 4
 * written), the max (4), the in-place subtraction of it (8), exp (8), the
 * sum (4) and the division by it (8), e + 36 bytes forward; backward, the
 * in-place product with the loss's gradient (8) and the cast back (4
 * read, e written), e + 12. */
void
work_compute_head(GArray *ops, WorkPass pass, const WorkModel *model, const WorkLayout *layout,
                  const WorkComputeConfig *config)
{
    g_return_if_fail(inputs_ok(ops, model, layout, config));
    if (pass == WORK_PASS_RECOMPUTE)
        return;
    Shape x = shape_of(model, layout);
    uint64_t logits = x.tokens * x.vocab_shard;
    SpecList list = {.n = 0};
    add_norm(&list, "head.norm", "head.norm.bwd", &x);
    add_gemm(&list, "head.logits", "head.logits.dgrad", "head.logits.wgrad", WORK_MATH_FP16, 1,
             x.tokens, x.vocab_shard, x.h);
    bool fused = config->fused_cross_entropy;
    add_memory(&list, "head.loss", "head.loss.bwd", logits * (x.e + (fused ? 4 : 36)),
               logits * (x.e + (fused ? 4 : 12)));
    emit(ops, &list, pass, WORK_RECOMPUTE_NONE);
}

static void
append_memory(GArray *ops, const char *name, WorkPass pass, uint64_t bytes)
{
    WorkOp op = {.name = name, .kind = WORK_OP_MEMORY, .pass = pass, .bytes = bytes};
    g_array_append_val(ops, op);
}

/* Mixed-precision Adam as Megatron runs it, derived per parameter [D]:
 * zeroing the gradient buffer writes grad_bytes; the global norm for
 * clipping reads the gradient (grad_bytes); the fused Adam kernel reads
 * the gradient, reads and writes the fp32 master weight, m and v
 * (2 x optimizer_bytes), and writes the working copy (param_bytes). With
 * fp32 gradients, 12 B of state and bf16 weights: 4 + 4 + 30 = 38 B a
 * parameter. (The 16 B a parameter of Rajbhandari et al. 2020, ZeRO,
 * Section 3.1, is what Adam keeps, not what a step moves.) Scaling the
 * gradients when the clip triggers is left out. */
void
work_compute_optimizer(GArray *ops, const WorkLayout *layout, uint64_t n_grad_params,
                       uint64_t n_shard_params)
{
    g_return_if_fail(ops != NULL && layout != NULL);
    uint64_t adam =
        layout->grad_bytes + 2 * (uint64_t)layout->optimizer_bytes + layout->param_bytes;
    append_memory(ops, "optimizer.zero_grad", WORK_PASS_OPTIMIZER,
                  n_grad_params * layout->grad_bytes);
    append_memory(ops, "optimizer.grad_norm", WORK_PASS_OPTIMIZER,
                  n_shard_params * layout->grad_bytes);
    append_memory(ops, "optimizer.adam", WORK_PASS_OPTIMIZER, n_shard_params * adam);
}

uint64_t
work_compute_vocab_padded(const WorkModel *model, uint32_t tp)
{
    g_return_val_if_fail(model != NULL && tp >= 1, 0);
    uint64_t multiple = (uint64_t)WORK_COMPUTE_VOCAB_MULTIPLE * tp;
    return div_up(model->vocab_size, multiple) * multiple;
}
