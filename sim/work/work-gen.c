/* SPDX-License-Identifier: Apache-2.0 */
/* The generator (see work-gen.h): every detailed rank's schedule laid out
 * as tasks, from a block's kernels cut at its collectives into items
 * (work-gen-items.c). */
#include "work/work-gen-state.h"

#include <math.h>
#include <string.h>

#include "work/work-memory.h"
#include "work/work-pipeline.h"

/* A gradient collective, and for ZeRO 1 and 2 the parameter all-gather
 * that follows the optimizer step. */
typedef struct Bucket {
    uint32_t task;
    bool expert;
    uint64_t gather_bytes;
} Bucket;

/* Where the first forward of a chunk waits for a parameter all-gather:
 * before its block `block` (0: before its embedding or its receive too). */
typedef struct EarlyGather {
    uint32_t task, chunk;
    uint64_t block;
} EarlyGather;

/* A rank's place and its emission state. */
typedef struct Rank {
    uint32_t t, c, d, p, gpu;
    uint32_t kv_recv, dkv_recv; /* ring attention's last receives (tasks) */
    uint32_t last_compute;      /* task */
    uint32_t first_of_block;    /* the first compute task of the block being emitted */
    GArray *pending;            /* tasks the next compute task waits for */
    GArray *deferred;           /* tasks the compute task after next waits for */
    GArray *buckets;            /* Bucket: the gradient collectives, for the optimizer */
    GArray *early_gathers;      /* EarlyGather: the parameter all-gathers the step starts with */
    uint64_t bucket, expert_bucket; /* parameters waiting for a bucket */
    uint32_t groups[5];             /* RankGroup: its groups once made, else WORK_NONE */
} Rank;

/* The groups a rank's collectives use, made on first use. */
typedef enum RankGroup {
    GROUP_TP,        /* its tensor group, for TP collectives */
    GROUP_TP_PP,     /* the same ranks, for the all-gather after a pipeline receive */
    GROUP_EP,        /* its expert group */
    GROUP_DP,        /* its data-parallel group */
    GROUP_DP_EXPERT, /* the replicas holding the same experts */
} RankGroup;

/* Megatron-Core's rank order, tp fastest, then cp, dp and pp. */
static uint32_t
gpu_of(const Gen *g, uint32_t t, uint32_t c, uint32_t d, uint32_t p)
{
    return t + g->l->tp * (c + g->l->cp * (d + g->l->dp * p));
}

/* ---- Emission. ---- */

/* proto as r's task after the n_deps tasks deps. */
static uint32_t
add_after(Gen *g, Rank *r, const WorkTask *proto, const uint32_t *deps, uint32_t n_deps,
          const char *label)
{
    WorkTask t = *proto;
    t.rank = r->gpu;
    if (t.kind != WORK_TASK_COLL)
        t.group = WORK_NONE;
    if (t.kind != WORK_TASK_SEND && t.kind != WORK_TASK_RECV)
        t.peer = WORK_NONE;
    return work_stream_add(g->s, &t, deps, n_deps, label);
}

static uint32_t
add(Gen *g, Rank *r, const WorkTask *proto, GArray *deps, const char *label)
{
    return add_after(g, r, proto, deps ? (uint32_t *)(void *)deps->data : NULL,
                     deps ? deps->len : 0, label);
}

/* memory_ps of duration_ps as a task's memory_share. */
static uint16_t
memory_share(uint64_t memory_ps, uint64_t duration_ps)
{
    if (duration_ps == 0)
        return 0;
    return (uint16_t)llround((double)MIN(memory_ps, duration_ps) * WORK_SHARE_ONE /
                             (double)duration_ps);
}

static void
compute(Gen *g, Rank *r, const Item *it, const char *label)
{
    WorkTask t = {.kind = WORK_TASK_COMPUTE,
                  .category = WORK_CAT_COMPUTE,
                  .duration_ps = it->duration_ps,
                  .flops = it->flops,
                  .memory_share = memory_share(it->memory_ps, it->duration_ps)};
    r->last_compute = add(g, r, &t, r->pending, label);
    if (r->first_of_block == WORK_NONE)
        r->first_of_block = r->last_compute;
    g_array_set_size(r->pending, 0);
    g_array_append_vals(r->pending, r->deferred->data, r->deferred->len);
    g_array_set_size(r->deferred, 0);
}

/* Every task r has not yet made something wait for, and its last compute. */
static GArray *
all_waits(const Rank *r)
{
    GArray *deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_array_append_vals(deps, r->pending->data, r->pending->len);
    g_array_append_vals(deps, r->deferred->data, r->deferred->len);
    if (r->last_compute != WORK_NONE)
        g_array_append_val(deps, r->last_compute);
    return deps;
}

static uint32_t
coll(Gen *g, Rank *r, WorkCategory cat, uint32_t group, CollOp op, uint64_t bytes, GArray *deps,
     const char *label)
{
    WorkTask t = {
        .kind = WORK_TASK_COLL, .category = cat, .group = group, .op = op, .bytes = bytes};
    return add(g, r, &t, deps, label);
}

/* Group which of rank r: its ranks, laid out in Megatron's order, made into
 * a stream group the first time it is asked for. */
static uint32_t
rank_group(Gen *g, Rank *r, RankGroup which)
{
    if (r->groups[which] != WORK_NONE)
        return r->groups[which];
    const WorkLayout *l = g->l;
    uint32_t n = 0, ranks[MAX(MAX(l->tp, l->ep), (uint64_t)l->dp * l->cp)];
    WorkCategory cat = WORK_CAT_DP;
    if (which == GROUP_TP || which == GROUP_TP_PP) {
        for (uint32_t t = 0; t < l->tp; t++)
            ranks[n++] = gpu_of(g, t, r->c, r->d, r->p);
        cat = which == GROUP_TP ? WORK_CAT_TP : WORK_CAT_PP;
    } else if (which == GROUP_EP) {
        uint32_t base = r->d / l->ep * l->ep;
        for (uint32_t e = 0; e < l->ep; e++)
            ranks[n++] = gpu_of(g, r->t, r->c, base + e, r->p);
        cat = WORK_CAT_EP;
    } else {
        /* Gradients are reduced over the data- and context-parallel ranks
         * together, which hold the same weights. */
        uint32_t step = which == GROUP_DP_EXPERT ? l->ep : 1;
        for (uint32_t c = 0; c < l->cp; c++)
            for (uint32_t k = 0; k < l->dp / step; k++)
                ranks[n++] = gpu_of(g, r->t, c, r->d % step + k * step, r->p);
    }
    r->groups[which] = work_stream_group(g->s, cat, ranks, n);
    return r->groups[which];
}

/* A transfer of ring attention to the next context-parallel rank after
 * deps, and the matching receive from the previous one; returns the
 * receive. */
static uint32_t
cp_shift(Gen *g, Rank *r, uint64_t bytes, GArray *deps, const char *label)
{
    uint32_t cp = g->l->cp;
    WorkTask t = {.kind = WORK_TASK_SEND,
                  .category = WORK_CAT_CP,
                  .peer = gpu_of(g, r->t, (r->c + 1) % cp, r->d, r->p),
                  .bytes = bytes};
    add(g, r, &t, deps, label);
    t.kind = WORK_TASK_RECV;
    t.peer = gpu_of(g, r->t, (r->c + cp - 1) % cp, r->d, r->p);
    return add(g, r, &t, NULL, label);
}

/* Ring attention's exchanges (Transformer Engine's AttnFuncWithCPAndKVP2P):
 * before kernel 0 a rank passes its keys and values on and receives the
 * previous rank's; kernel s > 0 waits for what arrived, which is passed on
 * while it runs, up to kernel cp - 1. Backward the keys and values go round
 * the same way, and after each kernel the gradient of the block it met,
 * accumulated along the ring, goes to the next rank; after cp kernels
 * each rank's own block's gradient has come back to it, and the kernel
 * after attention waits for it. */
static void
emit_cp(Gen *g, Rank *r, const Item *it, const char *label)
{
    uint32_t last = g->l->cp - 1;
    GArray *deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (it->cp == CP_KV) {
        if (it->step == 0 && r->last_compute != WORK_NONE)
            g_array_append_val(deps, r->last_compute);
        if (it->step > 0) {
            g_array_append_val(r->pending, r->kv_recv);
            g_array_append_val(deps, r->kv_recv);
        }
        if (it->step < last)
            r->kv_recv = cp_shift(g, r, it->bytes, deps, label);
    } else {
        g_array_append_val(deps, r->last_compute);
        if (it->step > 0)
            g_array_append_val(deps, r->dkv_recv);
        r->dkv_recv = cp_shift(g, r, it->bytes, deps, label);
        if (it->step == last)
            g_array_append_val(r->pending, r->dkv_recv);
    }
    g_array_unref(deps);
}

static void
emit_items(Gen *g, Rank *r, const GArray *items, const char *label)
{
    for (guint i = 0; i < items->len; i++) {
        const Item *it = &g_array_index(items, Item, i);
        if (!it->comm) {
            compute(g, r, it, label);
            continue;
        }
        if (it->category == WORK_CAT_CP) {
            emit_cp(g, r, it, label);
            continue;
        }
        uint32_t group =
            it->category == WORK_CAT_EP ? rank_group(g, r, GROUP_EP) : rank_group(g, r, GROUP_TP);
        WorkTask t = {.kind = WORK_TASK_COLL,
                      .category = it->category,
                      .group = group,
                      .op = it->op,
                      .bytes = it->bytes,
                      .sms = it->sms};
        uint32_t c = add_after(g, r, &t, &r->last_compute, r->last_compute != WORK_NONE, label);
        g_array_append_val(it->overlap ? r->deferred : r->pending, c);
    }
}

/* Gradient buckets: params more parameters are ready after task `after`. */
static void
bucket_add(Gen *g, Rank *r, uint64_t params, bool expert, bool force)
{
    if (work_layout_grad_ranks(g->l) / (expert ? g->l->ep : 1) < 2)
        return;
    uint64_t *bucket = expert ? &r->expert_bucket : &r->bucket;
    *bucket += params;
    if (*bucket == 0 || (!force && *bucket < g->bucket_params))
        return;
    GArray *deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (r->last_compute != WORK_NONE)
        g_array_append_val(deps, r->last_compute);
    CollOp op = g->l->zero == WORK_ZERO_0 ? COLL_OP_ALL_REDUCE : COLL_OP_REDUCE_SCATTER;
    uint32_t c =
        coll(g, r, WORK_CAT_DP, rank_group(g, r, expert ? GROUP_DP_EXPERT : GROUP_DP), op,
             *bucket * g->l->grad_bytes, deps, expert ? "grad bucket experts" : "grad bucket");
    g_array_unref(deps);
    Bucket b = {.task = c, .expert = expert, .gather_bytes = *bucket * g->l->param_bytes};
    g_array_append_val(r->buckets, b);
    *bucket = 0;
}

static bool
zero3(const Gen *g)
{
    return g->l->zero == WORK_ZERO_3 && work_layout_grad_ranks(g->l) > 1;
}

/* ZeRO 3: the all-gather of a block's parameters, after task `after`
 * (WORK_NONE: none); WORK_NONE without ZeRO 3. */
static uint32_t
gather_block(Gen *g, Rank *r, uint32_t after)
{
    if (!zero3(g))
        return WORK_NONE;
    GArray *deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (after != WORK_NONE)
        g_array_append_val(deps, after);
    uint32_t c = coll(g, r, WORK_CAT_DP, rank_group(g, r, GROUP_DP), COLL_OP_ALL_GATHER,
                      g->block_dense * g->l->param_bytes, deps, "param gather");
    g_array_unref(deps);
    return c;
}

/* The next compute task waits for `task` (WORK_NONE: nothing). */
static void
wait_for(Rank *r, uint32_t task)
{
    if (task != WORK_NONE)
        g_array_append_val(r->pending, task);
}

static void
transfer(Gen *g, Rank *r, WorkTaskKind kind, uint32_t peer_stage, const char *label)
{
    uint32_t peer = gpu_of(g, r->t, r->c, r->d, peer_stage);
    uint64_t bytes = g->act_bytes / g->l->tp;
    WorkTask t = {.kind = kind, .category = WORK_CAT_PP, .peer = peer, .bytes = bytes};
    if (kind == WORK_TASK_SEND) {
        GArray *deps = all_waits(r);
        add(g, r, &t, deps, label);
        g_array_unref(deps);
        return;
    }
    uint32_t recv = add(g, r, &t, NULL, label);
    if (g->l->tp > 1 && !g->l->sp) {
        GArray *deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        g_array_append_val(deps, recv);
        recv = coll(g, r, WORK_CAT_PP, rank_group(g, r, GROUP_TP_PP), COLL_OP_ALL_GATHER,
                    g->act_bytes, deps, label);
        g_array_unref(deps);
    }
    g_array_append_val(r->pending, recv);
}

/* The first forward of chunk waits, before its block `block`, for the
 * parameter all-gathers that end there (plan_early_gathers). */
static void
wait_early_gathers(Rank *r, uint32_t chunk, uint64_t block)
{
    for (guint i = 0; i < r->early_gathers->len; i++) {
        const EarlyGather *e = &g_array_index(r->early_gathers, EarlyGather, i);
        if (e->chunk == chunk && e->block == block)
            g_array_append_val(r->pending, e->task);
    }
}

static void
forward(Gen *g, Rank *r, uint32_t mb, uint32_t chunk)
{
    uint32_t vs = chunk * g->l->pp + r->p;
    char label[64];
    g_snprintf(label, sizeof label, "fwd mb%u chunk%u", mb, chunk);
    if (mb == 0)
        wait_early_gathers(r, chunk, 0); /* the embedding's too */
    if (vs > 0)
        transfer(g, r, WORK_TASK_RECV, (vs - 1) % g->l->pp, label);
    else
        emit_items(g, r, g->embed_fwd, label);
    uint32_t prev_first = WORK_NONE;
    uint64_t blocks = work_pipeline_chunk_layers(g->l, g->model, r->p, chunk);
    for (uint64_t b = 0; b < blocks; b++) {
        /* Forward, a block's gather starts with the block before it. */
        wait_for(r, gather_block(g, r, prev_first));
        if (mb == 0 && b > 0)
            wait_early_gathers(r, chunk, b);
        r->first_of_block = WORK_NONE;
        emit_items(g, r, g->fwd, label);
        prev_first = r->first_of_block;
    }
    if (vs == g->n_chunks - 1)
        emit_items(g, r, g->head_fwd, label);
    else
        transfer(g, r, WORK_TASK_SEND, (vs + 1) % g->l->pp, label);
}

static void
backward(Gen *g, Rank *r, uint32_t mb, uint32_t chunk, bool last)
{
    uint32_t vs = chunk * g->l->pp + r->p;
    char label[64];
    g_snprintf(label, sizeof label, "bwd mb%u chunk%u", mb, chunk);
    if (vs < g->n_chunks - 1) {
        transfer(g, r, WORK_TASK_RECV, (vs + 1) % g->l->pp, label);
    } else {
        emit_items(g, r, g->head_bwd, label);
        /* The output layer's gradient (none of its own when tied on one
         * stage), then the final norm's. */
        if (last) {
            bucket_add(g, r, work_memory_output_params(g->l, g->model), false, false);
            bucket_add(g, r, work_memory_final_norm_params(g->model), false, false);
        }
    }
    uint64_t blocks = work_pipeline_chunk_layers(g->l, g->model, r->p, chunk);
    /* Backward, the next block's gather is issued before this block's
     * gradients are reduced (PyTorch FSDP's BACKWARD_PRE prefetch,
     * Megatron-FSDP's alike): on the data-parallel communicator, whose
     * calls run in the order issued, it follows the reduce-scatter of the
     * block before, not this one's. */
    uint32_t next_gather = gather_block(g, r, WORK_NONE);
    for (uint64_t b = 0; b < blocks; b++) {
        uint32_t gather = next_gather;
        next_gather = b + 1 < blocks ? gather_block(g, r, WORK_NONE) : WORK_NONE;
        wait_for(r, gather);
        r->first_of_block = WORK_NONE;
        emit_items(g, r, g->rec, label);
        emit_items(g, r, g->bwd, label);
        if ((last || g->l->fsdp) && zero3(g)) {
            bucket_add(g, r, g->block_dense, false, true);
        } else if (last) {
            bucket_add(g, r, g->block_dense, false, false);
        }
        if (last && g->block_expert > 0)
            bucket_add(g, r, g->block_expert, true, false);
    }
    if (vs == 0) {
        emit_items(g, r, g->embed_bwd, label);
        if (last)
            bucket_add(g, r, work_memory_embedding_params(g->l, g->model), false, false);
    } else {
        transfer(g, r, WORK_TASK_SEND, (vs - 1) % g->l->pp, label);
    }
}

/* ZeRO 1 and 2 with dp_overlap (Megatron-Core's --overlap-param-gather):
 * the parameter all-gathers after one step's optimizer run under the next
 * step's forward, each bucket's before the layers that need it. */
static bool
early_gathers(const Gen *g)
{
    return g->o->dp_overlap && (g->l->zero == WORK_ZERO_1 || g->l->zero == WORK_ZERO_2) &&
           work_layout_grad_ranks(g->l) > 1;
}

/* The all-gather of a bucket of params parameters that starts at block
 * `first` of chunk, after the one before (*prev, updated); the first
 * forward of that block waits for it. */
static void
early_gather(Gen *g, Rank *r, bool expert, uint64_t params, uint32_t chunk, uint64_t first,
             uint32_t *prev)
{
    if (params == 0)
        return;
    GArray *deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    if (*prev != WORK_NONE)
        g_array_append_val(deps, *prev);
    *prev = coll(g, r, WORK_CAT_DP, rank_group(g, r, expert ? GROUP_DP_EXPERT : GROUP_DP),
                 COLL_OP_ALL_GATHER, params * g->l->param_bytes, deps, "param gather");
    g_array_unref(deps);
    EarlyGather e = {.task = *prev, .chunk = chunk, .block = first};
    g_array_append_val(r->early_gathers, e);
}

/* In the steady state the step starts with the last one's parameter
 * all-gathers (early_gathers): bucket by bucket in forward order, one
 * after the other, as Megatron-Core dispatches the next when the forward
 * reaches the one before; the first microbatch's forward of a block waits
 * for the bucket that holds it. Buckets close at bucket_params parameters
 * and at every chunk's end (a chunk's own buffers); the embedding counts
 * in the first chunk's first, the output layer and final norm in the last
 * one's last. */
static void
plan_early_gathers(Gen *g, Rank *r)
{
    if (!early_gathers(g))
        return;
    uint32_t prev = WORK_NONE, prev_expert = WORK_NONE;
    /* Experts held by one replica alone have no gather (bucket_add). */
    bool experts = work_layout_grad_ranks(g->l) / g->l->ep >= 2;
    for (uint32_t chunk = 0; chunk < g->l->vp; chunk++) {
        uint32_t vs = chunk * g->l->pp + r->p;
        uint64_t blocks = work_pipeline_chunk_layers(g->l, g->model, r->p, chunk);
        uint64_t dense = 0, expert = 0, first = 0, first_expert = 0;
        if (vs == 0)
            dense = work_memory_embedding_params(g->l, g->model);
        for (uint64_t b = 0; b < blocks; b++) {
            dense += g->block_dense;
            expert += experts ? g->block_expert : 0;
            if (vs == g->n_chunks - 1 && b == blocks - 1)
                dense += work_memory_output_params(g->l, g->model) +
                         work_memory_final_norm_params(g->model);
            if (dense >= g->bucket_params || b == blocks - 1) {
                early_gather(g, r, false, dense, chunk, first, &prev);
                dense = 0;
                first = b + 1;
            }
            if (expert >= g->bucket_params || b == blocks - 1) {
                early_gather(g, r, true, expert, chunk, first_expert, &prev_expert);
                expert = 0;
                first_expert = b + 1;
            }
        }
    }
}

static void
finish_step(Gen *g, Rank *r)
{
    bucket_add(g, r, 0, false, true);
    bucket_add(g, r, 0, true, true);
    GArray *deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    for (guint i = 0; i < r->buckets->len; i++)
        g_array_append_val(deps, g_array_index(r->buckets, Bucket, i).task);
    if (g->l->pp > 1 && g->model->tied_embeddings && (r->p == 0 || r->p == g->l->pp - 1)) {
        uint32_t ranks[2] = {gpu_of(g, r->t, r->c, r->d, 0),
                             gpu_of(g, r->t, r->c, r->d, g->l->pp - 1)};
        uint32_t group = work_stream_group(g->s, WORK_CAT_DP, ranks, 2);
        GArray *after = all_waits(r);
        uint64_t bytes = work_compute_vocab_padded(g->model, g->l->tp) / g->l->tp *
                         g->model->hidden_size * g->l->grad_bytes;
        uint32_t c =
            coll(g, r, WORK_CAT_DP, group, COLL_OP_ALL_REDUCE, bytes, after, "embedding grads");
        g_array_unref(after);
        g_array_append_val(deps, c);
    }
    GArray *tail = all_waits(r);
    g_array_append_vals(deps, tail->data, tail->len);
    g_array_unref(tail);
    /* The optimizer over what this GPU owns. */
    WorkMemory mem;
    work_memory_stage(g->l, g->model, r->p, &mem);
    uint64_t shard =
        g->l->zero >= WORK_ZERO_1 ? mem.n_params / work_layout_grad_ranks(g->l) : mem.n_params;
    GArray *ops = work_compute_ops_new();
    work_compute_optimizer(ops, g->l, mem.n_params, shard);
    uint64_t ps = work_compute_ops_ps(ops, g->gpu);
    WorkTask t = {.kind = WORK_TASK_COMPUTE,
                  .category = WORK_CAT_COMPUTE,
                  .duration_ps = gen_efficient_ps(g, ps),
                  .flops = work_compute_ops_flops(ops),
                  .memory_share = memory_share(work_compute_ops_memory_ps(ops, g->gpu), ps)};
    g_array_unref(ops);
    uint32_t opt = add(g, r, &t, deps, "optimizer");
    g_array_set_size(deps, 0);
    g_array_append_val(deps, opt);
    if ((g->l->zero == WORK_ZERO_1 || g->l->zero == WORK_ZERO_2) && !early_gathers(g))
        for (guint i = 0; i < r->buckets->len; i++) {
            const Bucket *b = &g_array_index(r->buckets, Bucket, i);
            coll(g, r, WORK_CAT_DP, rank_group(g, r, b->expert ? GROUP_DP_EXPERT : GROUP_DP),
                 COLL_OP_ALL_GATHER, b->gather_bytes, deps, "param gather");
        }
    g_array_unref(deps);
}

static void
emit_rank(Gen *g, Rank *r)
{
    GArray *slots = work_pipeline_schedule(g->l, r->p);
    /* The slot of each chunk's last backward: its gradients are final. */
    uint32_t last_bwd[g->l->vp];
    for (guint i = 0; i < slots->len; i++) {
        const WorkSlot *s = &g_array_index(slots, WorkSlot, i);
        if (!s->forward)
            last_bwd[s->chunk] = i;
    }
    bool overlap = g->o->dp_overlap;
    plan_early_gathers(g, r);
    for (guint i = 0; i < slots->len; i++) {
        const WorkSlot *s = &g_array_index(slots, WorkSlot, i);
        if (s->forward)
            forward(g, r, s->microbatch, s->chunk);
        else
            backward(g, r, s->microbatch, s->chunk, overlap && last_bwd[s->chunk] == i);
    }
    if (!overlap) {
        /* Every gradient at once, after the last backward. */
        uint64_t dense = 0, expert = 0;
        WorkMemory mem;
        work_memory_stage(g->l, g->model, r->p, &mem);
        expert = g->block_expert * mem.n_layers;
        dense = mem.n_params - expert;
        if (zero3(g)) {
            /* FSDP reduced each block after its backward already. */
            for (uint64_t b = 0; !g->l->fsdp && b < mem.n_layers; b++) {
                r->bucket = g->block_dense;
                bucket_add(g, r, 0, false, true);
            }
            dense -= g->block_dense * mem.n_layers;
        }
        while (dense > 0) {
            uint64_t part = MIN(dense, g->bucket_params);
            bucket_add(g, r, part, false, false);
            dense -= part;
        }
        while (expert > 0) {
            uint64_t part = MIN(expert, g->bucket_params);
            bucket_add(g, r, part, true, false);
            expert -= part;
        }
    }
    finish_step(g, r);
    g_array_unref(slots);
}

void
work_gen_options_init(WorkGenOptions *options, const WorkModel *model)
{
    *options = (WorkGenOptions){.dp_overlap = true, .symmetric = true};
    work_compute_config_init(&options->compute, model);
}

double
work_gen_compute_efficiency(const WorkGenOptions *options, const HwGpu *gpu)
{
    g_return_val_if_fail(options != NULL && gpu != NULL, WORK_COMPUTE_STEP_EFFICIENCY);
    return options->compute_efficiency > 0 ? options->compute_efficiency
           : gpu->training_efficiency > 0  ? gpu->training_efficiency
                                           : WORK_COMPUTE_STEP_EFFICIENCY;
}

/* The generator's items and constants for model on layout. */
static void
gen_init(Gen *g, const WorkModel *model, const WorkLayout *layout, const HwGpu *gpu,
         const WorkGenOptions *options)
{
    *g = (Gen){.model = model, .l = layout, .gpu = gpu, .o = options};
    g->efficiency = work_gen_compute_efficiency(options, gpu);
    g->compute = options->compute;
    work_compute_config_on(&g->compute, gpu);
    g->m = (uint32_t)work_layout_microbatches(layout);
    g->n_chunks = layout->pp * layout->vp;
    uint64_t tokens = layout->micro_batch * work_layout_local_seq(layout);
    g->act_bytes = tokens * model->hidden_size * layout->activation_bytes;
    g->kv_bytes = tokens * 2 * work_compute_kv_width(model, layout) * layout->activation_bytes;
    g->fwd = gen_pass_items(g, work_compute_block, WORK_PASS_FORWARD, true);
    g->bwd = gen_pass_items(g, work_compute_block, WORK_PASS_BACKWARD, true);
    g->rec = gen_pass_items(g, work_compute_block, WORK_PASS_RECOMPUTE, true);
    g->embed_fwd = gen_pass_items(g, work_compute_embedding, WORK_PASS_FORWARD, false);
    g->embed_bwd = gen_pass_items(g, work_compute_embedding, WORK_PASS_BACKWARD, false);
    g->head_fwd = gen_pass_items(g, work_compute_head, WORK_PASS_FORWARD, false);
    g->head_bwd = gen_pass_items(g, work_compute_head, WORK_PASS_BACKWARD, false);
    work_memory_block_params(layout, model, &g->block_dense, &g->block_expert);
    g->bucket_params = options->bucket_params;
    if (g->bucket_params == 0)
        g->bucket_params =
            MAX(UINT64_C(40000000), UINT64_C(1000000) * work_layout_grad_ranks(layout));
}

static void
gen_clear(Gen *g)
{
    GArray *lists[] = {g->fwd,       g->bwd,      g->rec,     g->embed_fwd,
                       g->embed_bwd, g->head_fwd, g->head_bwd};
    for (unsigned i = 0; i < G_N_ELEMENTS(lists); i++)
        g_array_unref(lists[i]);
}

/* The ranks of a stage work_gen_stream details: every context-parallel
 * rank (ring attention passes between them), of one tensor rank and one
 * replica, or of every one. */
static uint64_t
detailed_per_stage(const WorkLayout *l, const WorkGenOptions *o)
{
    return (o->symmetric ? 1 : (uint64_t)l->dp) * (o->symmetric ? 1 : (uint64_t)l->tp) * l->cp;
}

/* The tasks a pass's items emit at most: one each, two (a transfer and its
 * receive) for a ring-attention exchange. */
static double
item_tasks(const GArray *items)
{
    double n = 0;
    for (guint i = 0; i < items->len; i++)
        n += g_array_index(items, Item, i).cp != CP_NONE ? 2 : 1;
    return n;
}

uint64_t
work_gen_stream_bytes(const WorkModel *model, const WorkLayout *layout, const HwGpu *gpu,
                      const WorkGenOptions *options, uint64_t *n_tasks)
{
    Gen g;
    gen_init(&g, model, layout, gpu, options);
    /* At most: a task an item; at each end of a chunk's pass a transfer
     * and its gather, or the embedding's or the head's items and their
     * gradient buckets; a block's parameter gather (ZeRO 3) each way, and
     * in the last backward its two gradient buckets; at the step's end a
     * bucket a bucket_params of the stage's parameters (and a block's
     * under ZeRO 3) and its parameter gather, the optimizer. */
    double tasks = 0, labels;
    double gathers = zero3(&g) ? 2 : 0;
    double block = gathers + (layout->fsdp ? 1 : 0) + item_tasks(g.fwd) + item_tasks(g.rec) +
                   item_tasks(g.bwd);
    for (uint32_t p = 0; p < layout->pp; p++) {
        WorkMemory mem;
        work_memory_stage(layout, model, p, &mem);
        double buckets = (double)mem.n_params / (double)g.bucket_params + 4 + 2.0 * layout->vp +
                         (zero3(&g) ? (double)mem.n_layers : 0);
        double per_rank = 2 * buckets + 1 + 2.0 * (double)mem.n_layers;
        for (uint32_t c = 0; c < layout->vp; c++) {
            uint32_t vs = c * layout->pp + p;
            bool first = vs == 0, last = vs == g.n_chunks - 1;
            double ends = (first ? g.embed_fwd->len : 2) + (last ? g.head_fwd->len : 1) +
                          (last ? g.head_bwd->len + 2 : 2) + (first ? g.embed_bwd->len + 1 : 1);
            double blocks = (double)work_pipeline_chunk_layers(layout, model, p, c);
            per_rank += (double)g.m * (ends + blocks * block);
        }
        tasks += per_rank * (double)detailed_per_stage(layout, options);
    }
    labels = 2.0 * g.m * layout->vp; /* a pass of a microbatch and chunk */
    gen_clear(&g);
    /* A task, two dependencies and two dependents; the replay's state and
     * result (work-replay.c: deps_left, start, end, duration, ready,
     * result->start_ps and end_ps); a label, its copy and its hash entry. */
    double task_bytes = sizeof(WorkTask) + 4 * sizeof(uint32_t) + sizeof(uint32_t) +
                        5 * sizeof(uint64_t) + sizeof(bool);
    double bytes = tasks * task_bytes + labels * 64;
    *n_tasks = tasks < 0x1p63 ? (uint64_t)tasks : UINT64_C(1) << 63;
    return bytes < 0x1p63 ? (uint64_t)bytes : UINT64_C(1) << 63;
}

WorkStream *
work_gen_stream(const WorkModel *model, const WorkLayout *layout, const HwGpu *gpu,
                const WorkGenOptions *options)
{
    Gen g;
    gen_init(&g, model, layout, gpu, options);
    g.s = work_stream_new((uint32_t)work_layout_gpus(layout));
    /* Symmetric: data replica 0's tensor rank 0 of every stage stands for
     * the others, which run the same kernels and calls at the same time;
     * its context-parallel ranks are all detailed, since ring attention's
     * transfers pass between them. */
    uint32_t n_d = layout->dp, n_t = layout->tp;
    if (options->symmetric && layout->dp > 1) {
        g.s->replicas[0] = (WorkReplicas){.count = layout->dp, .stride = layout->tp * layout->cp};
        n_d = 1;
    }
    if (options->symmetric && layout->tp > 1) {
        g.s->replicas[1] = (WorkReplicas){.count = layout->tp, .stride = 1};
        n_t = 1;
    }
    for (uint32_t p = 0; p < layout->pp; p++)
        for (uint32_t d = 0; d < n_d; d++)
            for (uint32_t c = 0; c < layout->cp; c++)
                for (uint32_t t = 0; t < n_t; t++) {
                    Rank r = {.t = t,
                              .c = c,
                              .d = d,
                              .p = p,
                              .gpu = gpu_of(&g, t, c, d, p),
                              .last_compute = WORK_NONE,
                              .first_of_block = WORK_NONE};
                    for (unsigned k = 0; k < G_N_ELEMENTS(r.groups); k++)
                        r.groups[k] = WORK_NONE;
                    r.pending = g_array_new(FALSE, FALSE, sizeof(uint32_t));
                    r.deferred = g_array_new(FALSE, FALSE, sizeof(uint32_t));
                    r.buckets = g_array_new(FALSE, FALSE, sizeof(Bucket));
                    r.early_gathers = g_array_new(FALSE, FALSE, sizeof(EarlyGather));
                    emit_rank(&g, &r);
                    g_array_unref(r.pending);
                    g_array_unref(r.deferred);
                    g_array_unref(r.buckets);
                    g_array_unref(r.early_gathers);
                }
    gen_clear(&g);
    return g.s;
}
