/* SPDX-License-Identifier: Apache-2.0 */
/* The generator: one training step of a model under a layout, as the
 * operation stream (work-stream.h) every GPU runs, the way Megatron-LM
 * runs it.
 *
 * Ranks. Megatron's order (tp, then dp, then pp; expert ranks inside the
 * data-parallel group): GPU t + tp (d + dp p) is tensor rank t of data
 * replica d on pipeline stage p, so a tensor group is tp consecutive GPUs
 * (one NVLink domain when tp divides the GPUs of a node) and a stage's
 * replicas follow each other.
 *
 * A rank's step, for the microbatches and model chunks in the schedule's
 * order (work_pipeline_schedule; GPipe: every forward, then the
 * backwards last first; 1F1B: pp - p - 1 warm-up forwards, then one
 * forward one backward, then the rest; interleaved: Megatron's order over
 * vp chunks, with 2 (pp - p - 1) + (vp - 1) pp warm-up forwards):
 *   - a chunk's forward receives its input from the previous stage (SEND
 *     and RECV of b s h / tp activations: Megatron's scatter-gather, then an
 *     all-gather in the tensor group without sequence parallelism), runs
 *     its blocks (the chunk's own count, even or uneven: work-pipeline.h;
 *     the transfers' bytes do not depend on it), and sends its output on; its backward does the
 * same with gradients in the other direction, after replaying the forward kernels that recompute
 * keeps (work-compute);
 *   - a block's kernels are cut into compute tasks at its tensor-parallel
 *     collectives: forward, an all-reduce of b s h after the attention
 *     projection and after the FFN (sequence parallel: an all-gather before
 *     the QKV and the FFN's first GEMM, a reduce-scatter after the
 *     projection and the FFN); backward, an all-reduce after the QKV's and
 *     the FFN's input-gradient GEMMs, overlapped with their weight-gradient
 *     GEMMs (sequence parallel: an all-gather before the projection's and
 *     the FFN's second GEMM's input gradient, a reduce-scatter after the
 *     QKV's and the first GEMM's): four collectives a block a pass, as
 *     Korthikanti et al. 2022 (Section 4.2.2) count them; experts add an
 *     all-to-all in the expert group after routing and before combining,
 *     each way;
 *   - gradients are reduced over the data-parallel group (experts' over
 *     their expert-data-parallel group) in buckets of
 *     max(40 M, 1 M x dp) parameters (Megatron-Core's DDP default), each
 *     launched when the last microbatch's backward has produced it
 *     (overlap), or all after the last backward (no overlap): an all-reduce
 *     (ZeRO 0), a reduce-scatter then, after the optimizer step, an
 *     all-gather of the updated parameters (ZeRO 1, 2: Megatron's
 *     distributed optimizer); ZeRO 3 gathers each block's parameters before
 *     its forward and its backward (one block ahead, FSDP's prefetch) and
 *     reduce-scatters its gradients after the last backward; with pp > 1
 *     and tied embeddings, the first and last stages all-reduce the
 *     embedding's gradient;
 *   - the optimizer step (work_compute_optimizer) ends the step.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "hw/hw-gpu.h"
#include "work/work-compute.h"
#include "work/work-layout.h"
#include "work/work-model.h"
#include "work/work-stream.h"

typedef struct WorkGenOptions {
    WorkComputeConfig compute;
    bool dp_overlap;        /* reduce gradient buckets during the last backward */
    /* Transformer Engine's userbuffers overlap of the tensor-parallel
     * collectives with their GEMMs (Megatron-LM's --tp-comm-overlap; with
     * tp > 1 and sequence parallelism): see work-gen.c. */
    bool tp_overlap;
    bool symmetric;         /* detail tensor rank 0 of data replica 0 of each stage; the others are
                             * its replicas (work-stream.h) */
    uint64_t bucket_params; /* 0: Megatron-Core's max(40 M, 1 M x dp) */
    /* Compute tasks take the kernel model's time over this share (0: the
     * GPU's training_efficiency when it has one, hw-gpu.h, else
     * WORK_COMPUTE_STEP_EFFICIENCY). */
    double compute_efficiency;
} WorkGenOptions;

/* The share of the kernel model's rate the step's compute tasks take
 * under options on gpu (see compute_efficiency). */
double work_gen_compute_efficiency(const WorkGenOptions *options, const HwGpu *gpu);

/* Defaults: the model's compute defaults, overlap on, symmetric. */
void work_gen_options_init(WorkGenOptions *options, const WorkModel *model);

/* The step of model under layout (which must have passed
 * work_layout_check) on gpu, on a job of tp pp dp GPUs. */
WorkStream *work_gen_stream(const WorkModel *model, const WorkLayout *layout, const HwGpu *gpu,
                            const WorkGenOptions *options);

/* About the memory work_gen_stream's step and its replay take (an upper
 * bound on the tasks, *n_tasks, at the bytes a task holds in the stream
 * and the replayer): for refusing a step before generating it. Saturates
 * at 2^63. */
uint64_t work_gen_stream_bytes(const WorkModel *model, const WorkLayout *layout, const HwGpu *gpu,
                               const WorkGenOptions *options, uint64_t *n_tasks);
