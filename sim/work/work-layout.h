/* SPDX-License-Identifier: Apache-2.0 */
/* A parallel layout and batch for training a model: how its layers, heads
 * and batch are split over GPUs (Megatron's tensor, pipeline, data and
 * expert parallelism, sequence parallelism, ZeRO, recomputation) and the
 * precisions of what each GPU keeps. Description only.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "work/work-model.h"

typedef enum WorkZero {
    WORK_ZERO_0, /* every data-parallel rank keeps everything */
    WORK_ZERO_1, /* optimizer states sharded over data-parallel ranks */
    WORK_ZERO_2, /* + gradients */
    WORK_ZERO_3, /* + parameters (FSDP) */
} WorkZero;

typedef enum WorkRecompute {
    WORK_RECOMPUTE_NONE,
    WORK_RECOMPUTE_SELECTIVE, /* attention's core recomputed (Korthikanti et al. 2022) */
    WORK_RECOMPUTE_FULL,      /* every block recomputed from its input */
} WorkRecompute;

typedef enum WorkSchedule {
    WORK_SCHEDULE_GPIPE,       /* all forwards, then all backwards */
    WORK_SCHEDULE_1F1B,        /* PipeDream-flush: one forward, one backward */
    WORK_SCHEDULE_INTERLEAVED, /* 1F1B over vp virtual stages per GPU */
} WorkSchedule;

typedef struct WorkLayout {
    uint32_t tp; /* tensor-parallel ranks (Megatron: innermost, inside an NVLink domain) */
    uint32_t cp; /* context-parallel ranks (Megatron-Core: next to tp, each holding
                  * seq_len / cp tokens of every sequence; ring attention); 1 otherwise */
    uint32_t pp; /* pipeline stages */
    uint32_t dp; /* data-parallel replicas */
    uint32_t vp; /* virtual stages per pipeline rank (interleaved schedule); 1 otherwise */
    uint32_t ep; /* expert-parallel ranks (MoE), inside the data-parallel group; 1 otherwise */
    bool sp;     /* sequence parallelism in the tensor-parallel group */
    /* Fused attention (FlashAttention, Dao et al. 2022): the s x s scores
     * are never stored, only their softmax's log-sum-exp. false keeps them,
     * as Korthikanti et al. 2022 count. */
    bool flash_attention;
    WorkZero zero;
    /* Fully sharded data parallelism (PyTorch FSDP's FULL_SHARD, Megatron-
     * Core's FSDP), with zero 3's sharding: each transformer block a unit
     * whose parameters are gathered before its forward and again before
     * its backward, one unit ahead, and whose gradients are reduce-
     * scattered after every microbatch's backward (no full gradient buffer
     * to accumulate into), where zero 3 reduces the last microbatch's. */
    bool fsdp;
    WorkRecompute recompute;
    WorkSchedule schedule;
    /* Uneven pipeline stages, Megatron-LM's --decoder-first-pipeline-num-
     * layers and --decoder-last-pipeline-num-layers: the transformer layers
     * of the first and of the last stage, the others splitting the rest
     * evenly; 0: not given. */
    uint32_t first_stage_layers, last_stage_layers;
    /* Megatron-LM's account_for_embedding_in_pipeline_split and
     * account_for_loss_in_pipeline_split: the split counts the embedding as
     * a layer of the first stage's first chunk, the loss as one of the last
     * stage's last chunk, which hold one transformer layer fewer each. */
    bool account_for_embedding, account_for_loss;
    uint64_t global_batch;     /* sequences per step */
    uint64_t micro_batch;      /* sequences per microbatch */
    uint64_t seq_len;          /* tokens per sequence */
    uint32_t param_bytes;      /* per parameter in the working copy: 2 (bf16/fp16) */
    uint32_t grad_bytes;       /* per gradient: 2, or 4 when accumulated in fp32 */
    uint32_t optimizer_bytes;  /* per parameter: Adam fp32 master + m + v = 12 */
    uint32_t activation_bytes; /* per activation element: 2 */
} WorkLayout;

/* GPUs the layout uses: tp × cp × pp × dp. */
static inline uint64_t
work_layout_gpus(const WorkLayout *layout)
{
    return (uint64_t)layout->tp * layout->cp * layout->pp * layout->dp;
}

/* Tokens of each sequence on one GPU: seq_len / cp. */
static inline uint64_t
work_layout_local_seq(const WorkLayout *layout)
{
    return layout->seq_len / layout->cp;
}

/* The ranks that hold the same weights and reduce their gradients
 * together (Megatron-Core's data-parallel group with context parallelism):
 * dp × cp. */
static inline uint64_t
work_layout_grad_ranks(const WorkLayout *layout)
{
    return (uint64_t)layout->dp * layout->cp;
}

/* Microbatches per step on each pipeline: global_batch / (dp × micro_batch). */
static inline uint64_t
work_layout_microbatches(const WorkLayout *layout)
{
    return layout->global_batch / ((uint64_t)layout->dp * layout->micro_batch);
}

/* The largest step nvlsim builds: tokens in one microbatch (activations
 * of micro_batch x seq_len tokens) and microbatches a pipeline runs (each
 * is a few hundred tasks a rank). Real runs stay far below both; past
 * them the step's byte counts and times would overflow, or its streams
 * fill the memory. */
/* Bounds on the precisions: fp8 to fp64 for what a GPU computes with, and
 * room for any optimizer's states (Adam in fp32 with a master copy: 12). */
#define WORK_LAYOUT_MAX_VALUE_BYTES 8
#define WORK_LAYOUT_MAX_OPTIMIZER_BYTES 64
#define WORK_LAYOUT_MAX_MICRO_TOKENS (UINT64_C(1) << 24)
#define WORK_LAYOUT_MAX_MICROBATCHES (UINT64_C(1) << 16)

/* Checks that layout splits model as Megatron-LM can (its argument and
 * TransformerConfig checks). NULL error and true on success;
 * otherwise an HW_KEY_ERROR_INVALID error whose message starts with the key
 * and names the values and the model ("tp: 3 does not divide the 64 heads
 * of Llama 3 70B"), and false. The rules, in the order checked:
 *   counts      tp, pp, dp, vp, ep, global_batch, micro_batch, seq_len >= 1;
 *               param_bytes, grad_bytes, activation_bytes 1 to 8,
 *               optimizer_bytes 0 to 64; seq_len at most
 *               WORK_MODEL_MAX_SEQ_LEN, and at most the model's seq_len when
 *               its positions are a learned table;
 *   tp          divides heads, the FFN's inner size (an expert's too); the
 *               key/value heads are a multiple or a divisor of tp (Megatron
 *               shards them, or since 2025 sub-shards them when tp > kv
 *               heads; either way every rank holds 1/tp of the weights);
 *   sp          seq_len divisible by tp (each rank holds s / tp tokens); sp
 *               with tp = 1 is allowed and changes nothing;
 *   cp          seq_len divisible by 2 cp (Megatron-Core cuts each sequence
 *               into 2 cp chunks, rank i holding chunks i and 2 cp - 1 - i
 *               to balance the causal mask), with sp by 2 cp tp; fused
 *               attention (Transformer Engine's ring attention);
 *   pp, vp      vp > 1 only with the interleaved schedule, which needs
 *               vp > 1, pp > 1 and microbatches a multiple of pp (Megatron's
 *               default group of pp microbatches per virtual stage); the
 *               layers split over the stages and their vp chunks by
 *               Megatron's rules (work_pipeline_check, work-pipeline.h);
 *   batch       global_batch a multiple of dp x micro_batch;
 *   ep          1 for a dense model; else divides experts and dp (expert
 *               ranks lie inside the data-parallel group).
 * A layout that passes may still not fit in memory (work-memory.h): that
 * is a result, not an error. */
bool work_layout_check(const WorkLayout *layout, const WorkModel *model, GError **error);
