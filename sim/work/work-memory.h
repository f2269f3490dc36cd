/* SPDX-License-Identifier: Apache-2.0 */
/* Per-GPU memory of a training layout: the bytes one GPU of a pipeline
 * stage holds at its peak, part by part (weights, gradients, optimizer
 * states, activations), and whether that fits in the GPU's HBM. Closed
 * forms, no behaviour; a layout that does not fit is a result, not an
 * error. Every layout passed in must have passed work_layout_check.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "work/work-layout.h"
#include "work/work-model.h"

typedef struct WorkMemory {
    uint32_t stage;                       /* the pipeline stage, 0 to pp - 1 */
    uint64_t n_layers;                    /* transformer blocks on the stage (work-pipeline.h) */
    uint64_t n_params;                    /* parameters one GPU of the stage holds before ZeRO */
    uint64_t n_chunks_in_flight;          /* (microbatch, model chunk) pairs stored at the peak */
    uint64_t n_microbatches_in_flight;    /* n_chunks_in_flight / vp, rounded up */
    uint64_t n_layers_in_flight;          /* blocks of those chunks, at the peak */
    uint64_t weights_bytes;               /* working copy, param_bytes each; / dp with ZeRO-3 */
    uint64_t gradients_bytes;             /* grad_bytes each; / dp with ZeRO-2 and 3 */
    uint64_t optimizer_bytes;             /* optimizer_bytes each; / dp with ZeRO-1, 2, 3 */
    uint64_t activations_bytes;           /* the stage's blocks, for the chunks in flight */
    uint64_t embedding_activations_bytes; /* first stage: token ids, embedding dropout mask */
    uint64_t output_activations_bytes;    /* last stage: output layer's inputs, fp32 logits */
    uint64_t total_bytes;                 /* the sum of the seven parts above */
} WorkMemory;

/* Bytes one GPU keeps for one transformer block and one microbatch until
 * the block's backward pass: Korthikanti et al. 2022, Table 2, for the
 * block's shape (see work-memory.c for the terms and how GQA, SwiGLU,
 * experts and fused attention change them). s = seq_len / cp (a context-
 * parallel rank's tokens), b = micro_batch, h hidden, a heads, t = tp, at
 * 2-byte activations, for a GPT block:
 *   no recompute     s b h (10 + 24/t + 5 a s / (h t)); with sp s b h / t (34 + 5 a s / h)
 *   selective        s b h (10 + 24/t);                 with sp s b h / t 34
 *   full             s b h 2 (the block's input);       with sp s b h / t 2.
 * Saturates at UINT64_MAX rather than wrapping. */
uint64_t work_memory_layer_activation_bytes(const WorkLayout *layout, const WorkModel *model);

/* (microbatch, model chunk) pairs whose forward pass stage has run and
 * whose backward pass it has not, at the peak (a chunk's blocks:
 * work_pipeline_chunk_layers). With m microbatches per pipeline (Megatron-LM's schedules.py,
 * get_pp_rank_microbatches):
 *   GPipe        m (every forward before any backward);
 *   1F1B         min(pp - stage, m);
 *   interleaved  min(2 (pp - stage - 1) + (vp - 1) pp + 1, m vp), which on
 *                stage 0 is pp vp (1 + (pp - 1) / (pp vp)) chunks, the
 *                factor of Korthikanti et al. 2022, Section 4.2.3. */
uint64_t work_memory_chunks_in_flight(const WorkLayout *layout, uint32_t stage);

/* Parameters of one transformer block on one GPU: those reduced over the
 * data-parallel group (attention, dense FFN, norms, router) and the
 * experts' (over the expert-data-parallel group; 0 for a dense model). */
void work_memory_block_params(const WorkLayout *layout, const WorkModel *model, uint64_t *dense,
                              uint64_t *expert);

/* Parameters outside the blocks, on one GPU: the first stage's embedding
 * (the word table, padded as Megatron pads it and split over tp, and
 * learned positions whole); the last stage's output layer (an untied head,
 * or with pp > 1 the copy of the tied embedding Megatron keeps there) and
 * its final norm. */
uint64_t work_memory_embedding_params(const WorkLayout *layout, const WorkModel *model);
uint64_t work_memory_output_params(const WorkLayout *layout, const WorkModel *model);
uint64_t work_memory_final_norm_params(const WorkModel *model);

/* Fills *memory with the figures of one GPU of stage (0 to pp - 1). */
void work_memory_stage(const WorkLayout *layout, const WorkModel *model, uint32_t stage,
                       WorkMemory *memory);

/* Fills *memory with the figures of the most loaded stage (the largest
 * total; the first such stage on a tie) and returns whether its total fits
 * in hbm_bytes, the memory of one GPU (hw-gpu's hbm_bytes). */
bool work_memory_fits(const WorkLayout *layout, const WorkModel *model, uint64_t hbm_bytes,
                      WorkMemory *memory);

/* A line for people: "stage 0 of 8: weights 4.38 GiB, gradients ..., total
 * 87.21 GiB of 80.00 GiB HBM: does not fit (7.21 GiB over)". Newly
 * allocated; free with g_free. */
char *work_memory_describe(const WorkMemory *memory, const WorkLayout *layout, uint64_t hbm_bytes);
