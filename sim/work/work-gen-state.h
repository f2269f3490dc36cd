/* SPDX-License-Identifier: Apache-2.0 */
/* The generator's state (work-gen.c lays out the tasks, work-gen-items.c
 * cuts a pass's kernels at its collectives): private to the generator's
 * files. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "work/work-gen.h"

/* A step of ring attention's exchange (context parallelism): the keys
 * and values a rank's next attention kernel meets, or the gradient of keys
 * and values its kernel added to (see emit_cp). */
typedef enum CpExchange {
    CP_NONE,
    CP_KV,  /* before attention kernel `step` */
    CP_DKV, /* after backward attention kernel `step` */
} CpExchange;

/* One piece of a block's pass: a run of kernels, or a collective or a
 * ring-attention exchange between two runs. */
typedef struct Item {
    bool comm;
    uint64_t duration_ps, flops; /* compute */
    uint64_t memory_ps;          /* compute: the memory-bound kernels' part of duration_ps */
    WorkCategory category;       /* comm: TP, EP or CP */
    CollOp op;
    uint64_t bytes;
    bool overlap; /* comm: the next run of kernels does not wait for it */
    uint32_t sms; /* comm: the SMs it holds (work-stream.h); 0: NCCL's */
    CpExchange cp;
    uint32_t step; /* CP: the attention kernel, 0 to cp - 1 */
} Item;

typedef struct Gen {
    const WorkModel *model;
    const WorkLayout *l;
    const HwGpu *gpu;
    const WorkGenOptions *o;
    WorkComputeConfig compute; /* o->compute as the GPU runs it (work_compute_config_on) */
    WorkStream *s;
    uint32_t m;                         /* microbatches */
    uint32_t n_chunks;                  /* virtual stages: pp vp */
    GArray *fwd, *bwd, *rec;            /* Item, one block */
    GArray *embed_fwd, *embed_bwd;      /* Item */
    GArray *head_fwd, *head_bwd;        /* Item */
    uint64_t act_bytes;                 /* b s h e: a block's input or output (s = seq_len / cp) */
    uint64_t kv_bytes;                  /* b s 2 g e: a rank's keys and values (g: their width) */
    uint64_t block_dense, block_expert; /* parameters of one block on one GPU */
    uint64_t bucket_params;
    double efficiency; /* the share of the kernel model's rate sustained */
} Gen;

/* A pass's kernels of the compute model (work_compute_block, _embedding,
 * _head). */
typedef void (*GenOpsFn)(GArray *, WorkPass, const WorkModel *, const WorkLayout *,
                         const WorkComputeConfig *);

/* The items of one pass of fn's kernels (Item: runs of kernels, and the
 * collectives and ring-attention exchanges between them when cut; see
 * work-gen-items.c). */
GArray *gen_pass_items(const Gen *g, GenOpsFn fn, WorkPass pass, bool cut);

/* A kernel's time at the step's efficiency; stops at SIM_TIME_NEVER. */
uint64_t gen_efficient_ps(const Gen *g, uint64_t ps);
