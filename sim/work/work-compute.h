/* SPDX-License-Identifier: Apache-2.0 */
/* The per-layer compute model: the kernels one GPU runs for one microbatch
 * (b sequences of s tokens) of a transformer under Megatron-style tensor
 * parallelism (and sequence parallelism), with their FLOPs and HBM bytes,
 * and the time each kernel takes on a GPU model. It gives lists, not totals,
 * so a caller can sum FLOPs and time or place each kernel in a schedule.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "hw/hw-gpu.h"
#include "work/work-layout.h"
#include "work/work-model.h"

typedef enum WorkOpKind {
    WORK_OP_GEMM,      /* matrix products on tensor cores, n_batch of [m, k] x [k, n] */
    WORK_OP_ATTENTION, /* fused attention (FlashAttention): both products and the softmax */
    WORK_OP_MEMORY,    /* an elementwise or reduction kernel, bound by HBM bandwidth */
} WorkOpKind;

typedef enum WorkPass {
    WORK_PASS_FORWARD,
    WORK_PASS_BACKWARD,
    WORK_PASS_RECOMPUTE, /* forward kernels replayed before a block's backward pass */
    WORK_PASS_OPTIMIZER,
} WorkPass;

/* The inputs of a matrix product: which of the GPU's peaks it runs at. */
typedef enum WorkMath {
    WORK_MATH_FP16, /* fp16 or bf16 on tensor cores, fp32 accumulation */
    WORK_MATH_FP8,  /* fp8 on tensor cores (Transformer Engine's linear layers) */
    WORK_MATH_FP32, /* fp32 on CUDA cores */
    WORK_MATH_FP4,  /* fp4 (E2M1) on Blackwell's tensor cores, block-scaled */
} WorkMath;

/* How a low-precision linear layer scales its operands (Transformer
 * Engine's recipes), and so what its casts move. */
typedef enum WorkScaling {
    WORK_SCALING_NONE,    /* bf16 or fp16: no casts */
    WORK_SCALING_DELAYED, /* fp8, one scale a tensor from the amax history (TE's default) */
    WORK_SCALING_CURRENT, /* fp8, one scale a tensor from its own amax: an amax pass first */
    WORK_SCALING_MXFP8,   /* fp8 in blocks of 32 along K, an E8M0 scale each (Blackwell) */
    WORK_SCALING_NVFP4,   /* fp4 in blocks of 16, an E4M3 scale each and one fp32 scale a
                           * tensor from its amax (Blackwell) */
} WorkScaling;

/* Choices of the training code that the model and layout do not fix. */
typedef struct WorkComputeConfig {
    WorkMath linear_math; /* the block's linear layers; attention and logits stay fp16 */
    WorkScaling scaling;  /* of those linear layers' fp8 or fp4 operands */
    /* Per-tensor fp8 casts also write the transposed copy a weight
     * gradient reads: GPUs whose fp8 GEMMs take only the TN layout (set by
     * work_compute_config_on; true after work_compute_config_init). */
    bool fp8_transpose;
    bool dropout;         /* hidden and attention dropout kernels */
    /* The loss's cross entropy in one fused kernel a pass (NeMo's and
     * Megatron-Bridge's cross_entropy_loss_fusion); false: Megatron's
     * unfused vocab-parallel cross entropy, Megatron-LM's default and
     * Megatron-Core's through r0.8 (see work_compute_head). */
    bool fused_cross_entropy;
    /* A mixture of experts' routing: the tokens the busiest expert-parallel
     * rank receives over the mean (1: balanced; with a capacity factor c,
     * at most c, the rest dropped). The simulated rank is that one: the
     * others wait for it at the all-to-all. */
    double moe_load;
} WorkComputeConfig;

/* The elements of a block-scaled format that share one scale: MXFP8's 32
 * (OCP Microscaling Formats (MX) Specification v1.0, 2023, Section 5:
 * k = 32, an E8M0 scale), NVFP4's 16 (NVIDIA, "Introducing NVFP4 for
 * Efficient and Accurate Low-Precision Inference", 2025: blocks of 16
 * values with an FP8 E4M3 scale, and an FP32 scale a tensor). */
#define WORK_COMPUTE_MX_BLOCK 32
#define WORK_COMPUTE_NVFP4_BLOCK 16

/* The bytes a linear layer's cast kernel moves for n elements of e bytes
 * under scaling, per-tensor fp8 with or without its transposed copy (see
 * work-compute.c); 0 for WORK_SCALING_NONE. */
uint64_t work_compute_cast_bytes(WorkScaling scaling, bool transpose, uint64_t n, uint64_t e);

/* The kernels of a block that other work is placed around (the
 * collectives of tensor, sequence and expert parallelism, work-gen), and
 * which of their kernels a pass runs: the forward one, the backward one
 * (a GEMM's input gradient, dgrad), or a GEMM's weight gradient. */
typedef enum WorkKernel {
    WORK_KERNEL_OTHER,
    WORK_KERNEL_QKV,           /* attention's fused QKV GEMM */
    WORK_KERNEL_PROJ,          /* attention's output projection */
    WORK_KERNEL_FFN_IN,        /* the FFN's up or fused gate and up GEMM */
    WORK_KERNEL_FFN_OUT,       /* the FFN's down GEMM */
    WORK_KERNEL_FFN_NORM,      /* the norm before the FFN or the experts */
    WORK_KERNEL_MOE_ROUTER,    /* the experts' router GEMM */
    WORK_KERNEL_MOE_PERMUTE,   /* the routed rows into expert order */
    WORK_KERNEL_MOE_DOWN,      /* the experts' down GEMMs */
    WORK_KERNEL_MOE_UNPERMUTE, /* each token's weighted sum of its experts' rows */
} WorkKernel;

typedef enum WorkPart {
    WORK_PART_MAIN,  /* the forward (or recomputed) kernel */
    WORK_PART_GRAD,  /* backward: a GEMM's input gradient, or a kernel's backward */
    WORK_PART_WGRAD, /* backward: a GEMM's weight gradient */
} WorkPart;

/* One kernel. GEMM shapes are per product: the kernel multiplies n_batch
 * pairs [m, k] x [k, n] (attention heads, the experts of a grouped GEMM);
 * n_batch is 1 for a plain GEMM. */
typedef struct WorkOp {
    const char *name; /* static: "attn.qkv", "attn.qkv.dgrad", "ffn.act.bwd" */
    WorkKernel kernel;
    WorkPart part;
    WorkOpKind kind;
    WorkPass pass;
    WorkMath math;             /* GEMM and attention inputs; WORK_MATH_FP16 for memory kernels */
    uint64_t n_batch, m, n, k; /* attention: n_batch heads, m queries, n keys run,
                                * k = head size; 0 for memory kernels */
    uint64_t flops;     /* Megatron's convention: 2 m n k n_batch a GEMM (exact even where m is
                         * a rounded-up per-expert token count); attention counts the full
                         * s x s products forward and twice that backward */
    uint64_t bytes;     /* HBM traffic: what a memory kernel reads plus writes; a GEMM's
                         * operands read once and its result written once (the roofline's) */
    bool causal;        /* attention: m queries against n = m keys under the causal mask;
                         * false: all m x n products run (a ring step of context
                         * parallelism, n the keys the mask leaves) */
    uint32_t ring_step; /* attention under context parallelism: which of its cp kernels
                         * (0: its own keys); 0 for other kernels */
} WorkOp;

/* The key and value width one GPU of layout holds: its kv_heads / tp
 * heads of hidden / heads, one head when kv_heads < tp (replicated, as
 * work_layout_check allows). */
uint64_t work_compute_kv_width(const WorkModel *model, const WorkLayout *layout);

/* Megatron pads the vocabulary to a multiple of this times tp
 * (--make-vocab-size-divisible-by, default 128), so that every logits
 * shard is a multiple of 128 columns. */
#define WORK_COMPUTE_VOCAB_MULTIPLE 128

/* The GEMM tile of the efficiency curve: 128 x 256 outputs a thread
 * block, one block an SM at a time (NVIDIA, "Matrix Multiplication
 * Background User's Guide", DU-09799-001, 2023, Section 3: cuBLAS's
 * largest tile, 256 x 128, runs one thread block per A100 SM). */
#define WORK_COMPUTE_TILE_SHORT 128
#define WORK_COMPUTE_TILE_LONG 256

/* FlashAttention's query block: each thread block owns 128 query rows of
 * one head (Dao 2023, FlashAttention-2, Section 3.2 and its kernels). */
#define WORK_COMPUTE_FLASH_BLOCK 128

/* The GPU-side cost of one kernel launch in a stream that the CPU keeps
 * fed: about 1 us (NVIDIA blog "Getting Started with CUDA Graphs", Gray
 * 2019, V100: a 2.9 us kernel took 3.8 us a launch back to back) [U: read
 * from memory of the post, not re-read; nvlsim-bench gpu's gap_stream row
 * measures it, not yet run on a GPU]. */
#define WORK_COMPUTE_LAUNCH_PS UINT64_C(1000000)

/* The share of the kernel model's rate a training step sustains (clocks
 * under power and heat, gaps between kernels, what the framework adds and
 * the kernel model leaves out): one figure for every generation, the one
 * constant of a step that no source gives. Fitted [F: nvlsim calibrate
 * compute-efficiency, without --system: the median over the 21 rows of
 * data/measurements/training.csv (A100, V100, H100) of the share at which
 * each row's simulated step is its measured one], and judged on the
 * generations it was not fitted on by nvlsim validate --cross generation
 * (README). A GPU's training_efficiency, or a scenario's
 * compute_efficiency, replaces it. */
#define WORK_COMPUTE_STEP_EFFICIENCY 0.822

/* Defaults for model: fp16/bf16 linear layers, and
 * dropout for GPT-2 style models (learned positions: GPT-3 and Megatron's
 * models train with dropout 0.1, Megatron-LM's default) but not for the
 * Llama and Mixtral families (attention_dropout 0.0 in their configs). */
void work_compute_config_init(WorkComputeConfig *config, const WorkModel *model);
/* What of config the GPU decides: fp8_transpose (hw_gpu_fp8_gemm_any_layout). */
void work_compute_config_on(WorkComputeConfig *config, const HwGpu *gpu);

/* A new, empty list of WorkOp; free with g_array_unref. */
GArray *work_compute_ops_new(void);

/* Appends to ops the kernels of one transformer block for one microbatch
 * of layout->micro_batch sequences of layout->seq_len tokens on one GPU of
 * layout->tp, in the order they run: pass FORWARD, BACKWARD (the forward
 * kernels in reverse, a GEMM as its two products, dgrad then wgrad) or
 * RECOMPUTE (what layout->recompute replays: nothing, attention's core, or
 * the whole forward pass). layout->sp shards the norms, dropout and
 * residual adds over tp; layout->ep spreads the experts of a mixture.
 * Attention's core (scores, softmax, weighted values) is, with
 * layout->flash_attention, one fused kernel a pass (Dao et al. 2022, 2023:
 * no s x s matrix in HBM, the causal blocks above the diagonal skipped,
 * the backward recomputing the scores inside the kernel), as Megatron-Core
 * with Transformer Engine, NeMo and PyTorch's SDPA run it since 2023; else
 * two batched GEMMs around Megatron's fused scale-mask-softmax and a
 * dropout kernel, the s x s matrix written to HBM, as Megatron-LM ran in
 * 2021-22 (SC21; Korthikanti et al. 2022).
 * Shapes divide evenly when work_layout_check passed; odd splits round up.
 * See work-compute.c for every kernel's byte count. */
void work_compute_block(GArray *ops, WorkPass pass, const WorkModel *model,
                        const WorkLayout *layout, const WorkComputeConfig *config);

/* Appends the input embedding's kernels (the first pipeline stage's):
 * pass FORWARD or BACKWARD; RECOMPUTE appends nothing. */
void work_compute_embedding(GArray *ops, WorkPass pass, const WorkModel *model,
                            const WorkLayout *layout, const WorkComputeConfig *config);

/* Appends the output head's kernels (the last stage's: final norm, logits
 * GEMM [b s, h] x [h, V'/tp] over the padded vocabulary V', vocab-parallel
 * cross entropy): pass FORWARD or BACKWARD; RECOMPUTE appends nothing. */
void work_compute_head(GArray *ops, WorkPass pass, const WorkModel *model, const WorkLayout *layout,
                       const WorkComputeConfig *config);

/* Appends the optimizer step of one GPU (mixed-precision Adam): zeroing
 * the n_grad_params gradients it accumulates, and the gradient norm and
 * Adam update over the n_shard_params parameters it owns (all of them
 * without ZeRO; its data-parallel shard with it). Byte sizes come from
 * layout (grad_bytes, optimizer_bytes, param_bytes). */
void work_compute_optimizer(GArray *ops, const WorkLayout *layout, uint64_t n_grad_params,
                            uint64_t n_shard_params);

/* The vocabulary padded as Megatron pads it: up to a multiple of
 * WORK_COMPUTE_VOCAB_MULTIPLE x tp (50257 at tp 8: 51200). */
uint64_t work_compute_vocab_padded(const WorkModel *model, uint32_t tp);

/* The fraction of gpu's peak for math that one kernel of n_batch products
 * [m, k] x [k, n] reaches, in (0, 1]: the generation's cuBLAS ceiling, times
 * the useful share of the waves of 128 x 256 tiles the products fill, or the
 * HBM roofline where that is slower. See work-compute.c. All counts >= 1. */
/* A GEMM's HBM traffic at best, n_batch products [m, k] x [k, n] in math:
 * both operands read once (fp4's with their block scales), the result
 * (fp16, or fp32 for fp32 math) written once: the roofline's floor. */
uint64_t work_compute_gemm_bytes(WorkMath math, uint64_t n_batch, uint64_t m, uint64_t n,
                                 uint64_t k);

double work_compute_gemm_efficiency(const HwGpu *gpu, WorkMath math, uint64_t n_batch, uint64_t m,
                                    uint64_t n, uint64_t k);

/* gpu's dense peak for math, FLOP/s (fp8 or fp4 on a GPU without them at
 * the rate its kernels fall back to). */
double work_compute_peak(const HwGpu *gpu, WorkMath math);

/* The largest fraction of peak a GEMM reaches on gpu's generation (by its
 * sm_version), with its source in work-compute.c. */
double work_compute_gemm_ceiling(const HwGpu *gpu, WorkMath math);

/* The ceiling at which the model's time for one [m, k] x [k, n] GEMM equals
 * a measured rate (flops_per_s, Megatron's 2 m n k convention): the rate
 * over peak x the tile-wave share; NaN where the HBM roofline, not the
 * ceiling, would set the time. For nvlsim calibrate gemm. */
double work_compute_gemm_fit_ceiling(const HwGpu *gpu, WorkMath math, uint64_t m, uint64_t n,
                                     uint64_t k, double flops_per_s);

/* FlashAttention's ceiling on a GPU at head size d, and its parts
 * (work-compute-time.c): 1 / forward = 1 / eta + kappa r, times the GPU's
 * own GEMM ceiling over its generation's where it has one. */
typedef struct WorkFlashModel {
    double tensor_per_clock;  /* dense fp16 tensor FLOPs an SM does a clock */
    double exp_per_clock;     /* exponentials an SM returns a clock */
    double r;                 /* the exponentials' time over the products': tensor / (exp 4 d) */
    double eta, kappa;        /* the products' efficiency; the exponentials' share not hidden */
    double clock_scale;       /* the GPU's own GEMM ceiling over its generation's, or 1 */
    double forward, backward; /* fractions of the fp16 peak */
} WorkFlashModel;
void work_compute_flash_model(const HwGpu *gpu, uint64_t d, WorkFlashModel *out);
/* Time of one kernel on gpu, in ps, launch cost included: a memory kernel
 * takes bytes / HBM bandwidth (sim_serialization_ps); a GEMM flops / (peak x
 * efficiency); fused attention the FLOPs it executes at FlashAttention's
 * published fraction of peak, or its bytes, whichever is slower. */
uint64_t work_compute_op_ps(const WorkOp *op, const HwGpu *gpu);

/* The FLOPs op's kernel executes: a GEMM's flops; fused attention's
 * products at or below the causal diagonal in query blocks of
 * WORK_COMPUTE_FLASH_BLOCK, backward 5 / 2 of forward's (FlashAttention's
 * benchmarks' count), where op->flops keeps Megatron's convention. */
double work_compute_op_executed_flops(const WorkOp *op);
/* Sums over a list of WorkOp: FLOPs, HBM bytes, and time on gpu in ps. */
uint64_t work_compute_ops_flops(const GArray *ops);
uint64_t work_compute_ops_bytes(const GArray *ops);
uint64_t work_compute_ops_ps(const GArray *ops, const HwGpu *gpu);
/* Whether op's time is set by HBM rather than by its SMs: a memory kernel,
 * or a GEMM or attention below the roofline's ridge. */
bool work_compute_op_memory_bound(const WorkOp *op, const HwGpu *gpu);
/* The part of work_compute_ops_ps that memory-bound ops take. */
uint64_t work_compute_ops_memory_ps(const GArray *ops, const HwGpu *gpu);
