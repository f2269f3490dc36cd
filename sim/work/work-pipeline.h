/* SPDX-License-Identifier: Apache-2.0 */
/* Pipeline stages: how a layout splits a model's transformer layers over
 * its pp stages and their vp model chunks, as Megatron-LM does
 * (megatron/core/transformer/transformer_block.py, get_num_layers_to_build,
 * and the checks of TransformerConfig and training/arguments.py), and the
 * order in which a stage runs its forward and backward passes (its
 * schedules.py). Description only.
 *
 * The split. A stage (a pipeline rank) holds
 *   even         layers / pp, when pp divides the layers;
 *   uneven       first_stage_layers on the first stage, last_stage_layers
 *                on the last (either or both), and the rest split evenly
 *                over the stages not given (Megatron's
 *                --decoder-first-pipeline-num-layers and
 *                --decoder-last-pipeline-num-layers);
 *   accounted    (layers + e + l) / pp, e and l 1 when the embedding and the
 *                loss are counted as layers (account_for_embedding,
 *                account_for_loss), the first stage then holding one
 *                transformer layer fewer in its first chunk and the last
 *                stage one fewer in its last chunk.
 * Each stage's layers split evenly over its vp chunks (chunk c of stage p
 * is virtual stage c pp + p). Megatron has no default for layers that pp
 * does not divide: it refuses them, and so does work_pipeline_check, naming
 * the keys and values that would split them.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "work/work-layout.h"
#include "work/work-model.h"

/* Checks the split of model's layers under layout, whose counts (pp, vp
 * >= 1) and schedule have been checked. True on success; otherwise false
 * and an HW_KEY_ERROR_INVALID error that starts with the key to change and
 * says what would split the layers, in the order checked:
 *   both ways    first_stage_layers or last_stage_layers with
 *                account_for_embedding or account_for_loss (Megatron
 *                refuses the two at once);
 *   uneven       pp > 1; first_stage_layers + last_stage_layers at most the
 *                layers, and exactly them when no stage is left; the rest
 *                at least one layer a stage left (Megatron: no stage without
 *                layers) and a multiple of the stages left; with vp, each
 *                stage's layers a multiple of vp;
 *   even         pp divides the layers (with the embedding and the loss when
 *                they are counted); vp divides each stage's share. */
bool work_pipeline_check(const WorkLayout *layout, const WorkModel *model, GError **error);

/* Transformer layers of model chunk chunk (0 to vp - 1) of stage (0 to
 * pp - 1), for a layout that passed work_layout_check. 0 only for the
 * first chunk that holds the embedding alone, or the last that holds the
 * loss alone (account_for_*, as Megatron allows). */
uint64_t work_pipeline_chunk_layers(const WorkLayout *layout, const WorkModel *model,
                                    uint32_t stage, uint32_t chunk);

/* Transformer layers of stage (0 to pp - 1): its chunks' sum. */
uint64_t work_pipeline_stage_layers(const WorkLayout *layout, const WorkModel *model,
                                    uint32_t stage);

/* Whether every chunk of every stage holds the same layers (Megatron's
 * plain split). */
bool work_pipeline_even(const WorkLayout *layout, const WorkModel *model);

/* The stages' layers for people, runs of equal stages folded: "15, 16 x 6,
 * 15"; with the embedding or loss counted, "15 + embedding, ...". Newly
 * allocated; free with g_free. */
char *work_pipeline_describe(const WorkLayout *layout, const WorkModel *model);

/* One pass a stage runs: the forward or backward of a microbatch through
 * one of its model chunks. */
typedef struct WorkSlot {
    bool forward;
    uint32_t microbatch, chunk;
} WorkSlot;

/* Forward passes stage runs before its first backward, of the m vp it runs
 * (m microbatches): GPipe all of them; 1F1B pp - stage - 1; interleaved
 * 2 (pp - stage - 1) + (vp - 1) pp (Megatron's get_pp_rank_microbatches);
 * at most m vp. */
uint32_t work_pipeline_warmup(const WorkLayout *layout, uint32_t stage);

/* The k-th forward (forward true) or backward pass of a stage, k < m vp:
 * microbatches in order (GPipe's backwards last first), and with
 * interleaving Megatron's groups of pp microbatches through each chunk in
 * turn (backwards from the last chunk). The same on every stage. */
WorkSlot work_pipeline_pass(const WorkLayout *layout, bool forward, uint32_t k);

/* The passes of stage in the order it runs them: the warm-up forwards, then
 * one forward one backward, then the remaining backwards. GArray of
 * WorkSlot, m vp of each kind; free with g_array_unref. */
GArray *work_pipeline_schedule(const WorkLayout *layout, uint32_t stage);

/* Transformer layers whose activations stage holds at its peak: the most,
 * over its schedule, of the layers of the chunks whose forward has run and
 * whose backward has not, counted after each forward. With equal chunks,
 * min(warm-up + 1, m vp) chunks of them (work_memory_chunks_in_flight). */
uint64_t work_pipeline_layers_in_flight(const WorkLayout *layout, const WorkModel *model,
                                        uint32_t stage);
