/* SPDX-License-Identifier: Apache-2.0 */
/* A pass's kernels cut at its collectives (see work-gen-state.h): the
 * tensor-parallel collectives of Megatron-LM's linear layers, with
 * Transformer Engine's userbuffers overlap where asked, the experts'
 * all-to-alls and ring attention's exchanges, between runs of kernels at
 * the step's efficiency. */
#include "work/work-gen-state.h"

#include <math.h>

#include "core/core-time.h"

typedef enum Cut { CUT_NONE, CUT_BEFORE, CUT_AFTER } Cut;

/* How Transformer Engine's userbuffers overlap a tensor-parallel
 * collective with its GEMM (transformer_engine/pytorch/module/base.py,
 * initialize_ub: the methods of each GEMM and their defaults, which
 * NeMo's H100 configurations keep or set near: num_sm 16 to 24 pipelined,
 * 2 to 16 bulk; NeMo-Framework-Launcher conf/training/gpt3/ub-confs):
 *   ring exchange (the all-gather before the QKV's and the FFN's first
 *     GEMM, and before the projection's and the FFN's second GEMM's input
 *     gradient): the GEMM runs in tp chunks, the first on the rank's own
 *     rows while each next chunk arrives from its neighbour over copy
 *     engines; one SM;
 *   pipeline (the reduce-scatter after the projection and the FFN's
 *     second GEMM): the GEMM runs in 4 splits, each split's reduce-scatter
 *     while the next computes, the last one's after the GEMM; 16 SMs;
 *   bulk (the reduce-scatter of the QKV's and the FFN's first GEMM's input
 *     gradient): the whole collective beside the weight-gradient GEMM; 16
 *     SMs. */
typedef enum Userbuffers { UB_NONE, UB_RING, UB_PIPELINE, UB_BULK } Userbuffers;

#define UB_RING_SMS 1
#define UB_SMS 16
#define UB_PIPELINE_SPLITS 4

typedef struct Rule {
    Cut where;
    WorkCategory category;
    CollOp op;
    bool overlap;
    Userbuffers ub;
} Rule;

/* The collectives around a kernel of a pass, at most two: Megatron-LM's
 * tensor-parallel linear layers (an all-reduce after the row-parallel
 * output, or with sequence parallelism an all-gather before the
 * column-parallel input and a reduce-scatter after; backward the
 * mirror, the input gradient's reduction overlapping the weight
 * gradient), each with its userbuffers method under tp_overlap, and the
 * experts' all-to-alls around their FFN. */
static unsigned
rules_for(const Gen *g, const WorkOp *op, bool backward, Rule *out)
{
    unsigned n = 0;
    bool tp = g->l->tp > 1, sp = g->l->sp, ep = g->l->ep > 1;
    bool ub = g->o->tp_overlap && tp && sp;
    bool moe = g->model->n_experts > 0;
    WorkKernel k = op->kernel;
    bool main = op->part == WORK_PART_MAIN, grad = op->part == WORK_PART_GRAD;
    CollOp reduce = sp ? COLL_OP_REDUCE_SCATTER : COLL_OP_ALL_REDUCE;
    bool column_in = k == WORK_KERNEL_QKV || k == WORK_KERNEL_FFN_IN;
    bool row_out =
        k == WORK_KERNEL_PROJ || k == WORK_KERNEL_FFN_OUT || k == WORK_KERNEL_MOE_UNPERMUTE;
    /* The GEMMs userbuffers overlap: the dense layers' (the experts'
     * grouped GEMMs keep NCCL's collectives). */
    bool dense = k == WORK_KERNEL_QKV || k == WORK_KERNEL_PROJ || k == WORK_KERNEL_FFN_IN ||
                 k == WORK_KERNEL_FFN_OUT;
    Userbuffers ring = ub && dense ? UB_RING : UB_NONE;
    Userbuffers pipe = ub && dense ? UB_PIPELINE : UB_NONE;
    if (tp && !backward && main) {
        if (sp && (column_in || k == WORK_KERNEL_MOE_ROUTER))
            out[n++] = (Rule){CUT_BEFORE, WORK_CAT_TP, COLL_OP_ALL_GATHER, ring != UB_NONE, ring};
        if (row_out && pipe != UB_NONE)
            out[n++] = (Rule){CUT_BEFORE, WORK_CAT_TP, reduce, true, pipe};
        if (row_out)
            out[n++] = (Rule){CUT_AFTER, WORK_CAT_TP, reduce, false, pipe};
    }
    if (tp && backward && grad) {
        if (sp && row_out)
            out[n++] = (Rule){CUT_BEFORE, WORK_CAT_TP, COLL_OP_ALL_GATHER, ring != UB_NONE, ring};
        if (column_in)
            out[n++] = (Rule){CUT_AFTER, WORK_CAT_TP, reduce, true, ub ? UB_BULK : UB_NONE};
        if (moe && k == WORK_KERNEL_FFN_NORM)
            out[n++] = (Rule){CUT_BEFORE, WORK_CAT_TP, reduce, false, UB_NONE};
    }
    bool ep_kernel = k == WORK_KERNEL_MOE_PERMUTE || k == WORK_KERNEL_MOE_DOWN;
    if (ep && ep_kernel && !backward && main)
        out[n++] = (Rule){CUT_AFTER, WORK_CAT_EP, COLL_OP_ALLTOALL, false, UB_NONE};
    if (ep && ep_kernel && backward && grad)
        out[n++] = (Rule){CUT_BEFORE, WORK_CAT_EP, COLL_OP_ALLTOALL, false, UB_NONE};
    return n;
}

static void
flush(GArray *items, Item *run)
{
    if (run->duration_ps > 0 || run->flops > 0)
        g_array_append_val(items, *run);
    *run = (Item){0};
}

static uint64_t
comm_bytes(const Gen *g, const Rule *r)
{
    if (r->category == WORK_CAT_EP) {
        uint64_t tokens =
            g->l->micro_batch * work_layout_local_seq(g->l) / (g->l->sp ? g->l->tp : 1);
        /* The busiest rank's share: the exchange ends when it has. */
        uint64_t rows = (uint64_t)ceil((double)(tokens * g->model->top_k) * g->compute.moe_load);
        return rows * g->model->hidden_size * g->l->activation_bytes;
    }
    return g->act_bytes;
}

/* A collective cut into the pass. Userbuffers' pipelined reduce-scatter is
 * two: the splits but the last beside the GEMM (a CUT_BEFORE rule), the
 * last split's after it (CUT_AFTER). */
static void
push_comm(const Gen *g, GArray *items, Item *run, const Rule *r)
{
    flush(items, run);
    uint64_t bytes = comm_bytes(g, r);
    if (r->ub == UB_PIPELINE) {
        uint64_t last = bytes / UB_PIPELINE_SPLITS;
        bytes = r->where == CUT_AFTER ? last : bytes - last;
    }
    Item c = {.comm = true,
              .category = r->category,
              .op = r->op,
              .bytes = bytes,
              .overlap = r->overlap,
              .sms = r->ub == UB_NONE   ? 0
                     : r->ub == UB_RING ? UB_RING_SMS
                                        : UB_SMS};
    g_array_append_val(items, c);
}

/* A kernel's time at the step's efficiency, and a sum of times; both stop
 * at SIM_TIME_NEVER (the replayer refuses a rank that computes that long)
 * instead of wrapping around. */
uint64_t
gen_efficient_ps(const Gen *g, uint64_t ps)
{
    double scaled = (double)ps / g->efficiency;
    return scaled >= (double)SIM_TIME_NEVER ? SIM_TIME_NEVER : (uint64_t)scaled;
}

static uint64_t
add_ps(uint64_t a, uint64_t b)
{
    return b > SIM_TIME_NEVER - a ? SIM_TIME_NEVER : a + b;
}

static void
push_cp(const Gen *g, GArray *items, Item *run, CpExchange what, uint32_t step)
{
    flush(items, run);
    Item c = {.comm = true,
              .category = WORK_CAT_CP,
              .op = COLL_OP_SENDRECV,
              .bytes = g->kv_bytes,
              .cp = what,
              .step = step};
    g_array_append_val(items, c);
}

/* A GEMM that userbuffers split into chunks along its rows (the tokens
 * the collective gathers or scatters): Transformer Engine launches the
 * chunks round-robin on several compute streams (comm_gemm_overlap's
 * num_max_streams, 3), so one chunk's last wave runs beside the next
 * one's first and the chunks fill the GPU as the whole GEMM does; what the
 * split adds is a launch a chunk. */
static uint64_t
chunked_ps(const Gen *g, const WorkOp *op, uint32_t chunks)
{
    return add_ps(work_compute_op_ps(op, g->gpu), (uint64_t)(chunks - 1) * WORK_COMPUTE_LAUNCH_PS);
}

static GArray *
items_of(const Gen *g, const GArray *ops, bool cut, bool backward)
{
    GArray *items = g_array_new(FALSE, TRUE, sizeof(Item));
    Item run = {0};
    for (guint i = 0; i < ops->len; i++) {
        const WorkOp *op = &g_array_index(ops, WorkOp, i);
        Rule rules[2];
        unsigned n = cut ? rules_for(g, op, backward, rules) : 0;
        bool ring = cut && g->l->cp > 1 && op->kind == WORK_OP_ATTENTION;
        uint32_t step = op->ring_step;
        uint32_t chunks = 0; /* a collective runs beside this kernel alone, in chunks */
        for (unsigned k = 0; k < n; k++)
            if (rules[k].where == CUT_BEFORE) {
                push_comm(g, items, &run, &rules[k]);
                if (rules[k].ub == UB_RING)
                    chunks = g->l->tp;
                else if (rules[k].ub == UB_PIPELINE)
                    chunks = UB_PIPELINE_SPLITS;
            }
        if (ring)
            push_cp(g, items, &run, CP_KV, step);
        uint64_t ps = chunks > 0 ? chunked_ps(g, op, chunks) : work_compute_op_ps(op, g->gpu);
        run.duration_ps = add_ps(run.duration_ps, gen_efficient_ps(g, ps));
        if (work_compute_op_memory_bound(op, g->gpu))
            run.memory_ps = add_ps(run.memory_ps, gen_efficient_ps(g, ps));
        run.flops += op->flops;
        if (chunks > 0)
            flush(items, &run);
        if (ring && backward)
            push_cp(g, items, &run, CP_DKV, step);
        for (unsigned k = 0; k < n; k++)
            if (rules[k].where == CUT_AFTER)
                push_comm(g, items, &run, &rules[k]);
    }
    flush(items, &run);
    return items;
}

GArray *
gen_pass_items(const Gen *g, GenOpsFn fn, WorkPass pass, bool cut)
{
    GArray *ops = work_compute_ops_new();
    fn(ops, pass, g->model, g->l, &g->compute);
    GArray *items = items_of(g, ops, cut, pass == WORK_PASS_BACKWARD);
    g_array_unref(ops);
    return items;
}
