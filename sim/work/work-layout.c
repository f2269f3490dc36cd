/* SPDX-License-Identifier: Apache-2.0 */
/* Checks of a parallel layout against a model: every count positive, and
 * every split one Megatron-LM can make before it builds a model (its
 * training/arguments.py and core TransformerConfig checks): even over the
 * tensor-parallel ranks, and over the pipeline stages evenly or as its
 * uneven rules allow (work-pipeline.h). A layout that fails names the key
 * to change, the values and the model; one that passes splits without a
 * remainder, so later stages never round.
 * Sources: Narayanan et al., SC21 (the interleaved schedule's conditions);
 * NVIDIA/Megatron-LM commit f7dfb99 (2025: tp larger than the key/value
 * heads by sub-sharding them).
 */
#include "work/work-layout.h"

#include "hw/hw-keys.h"
#include "work/work-pipeline.h"

static bool
check_positive(const char *key, uint64_t value, GError **error)
{
    if (value >= 1)
        return true;
    return hw_keys_failf(error, "%s: 0; expected at least 1", key);
}

static bool
check_bytes(const char *key, uint32_t value, uint32_t min, uint32_t max, GError **error)
{
    if (value >= min && value <= max)
        return true;
    return hw_keys_failf(error, "%s: %u is out of range; expected %u to %u bytes", key, value, min,
                         max);
}

static bool
check_counts(const WorkLayout *l, GError **error)
{
    return check_positive("tp", l->tp, error) && check_positive("pp", l->pp, error) &&
           check_positive("dp", l->dp, error) && check_positive("vp", l->vp, error) &&
           check_positive("ep", l->ep, error) && check_positive("cp", l->cp, error) &&
           check_positive("global_batch", l->global_batch, error) &&
           check_positive("micro_batch", l->micro_batch, error) &&
           check_positive("seq_len", l->seq_len, error) &&
           check_bytes("param_bytes", l->param_bytes, 1, WORK_LAYOUT_MAX_VALUE_BYTES, error) &&
           check_bytes("grad_bytes", l->grad_bytes, 1, WORK_LAYOUT_MAX_VALUE_BYTES, error) &&
           check_bytes("optimizer_bytes", l->optimizer_bytes, 0, WORK_LAYOUT_MAX_OPTIMIZER_BYTES,
                       error) &&
           check_bytes("activation_bytes", l->activation_bytes, 1, WORK_LAYOUT_MAX_VALUE_BYTES,
                       error);
}

/* A learned position table has one row per position the model was built
 * for; rotary positions extend to any length. */
static bool
check_seq_len(const WorkLayout *l, const WorkModel *m, GError **error)
{
    if (l->seq_len > WORK_MODEL_MAX_SEQ_LEN)
        return hw_keys_failf(error, "seq_len: %" G_GUINT64_FORMAT " exceeds %d tokens", l->seq_len,
                             WORK_MODEL_MAX_SEQ_LEN);
    if (m->positions == WORK_POSITIONS_LEARNED && l->seq_len > m->seq_len)
        return hw_keys_failf(error,
                             "seq_len: %" G_GUINT64_FORMAT " exceeds the %" G_GUINT64_FORMAT
                             " learned positions of %s",
                             l->seq_len, m->seq_len, m->name);
    return true;
}

/* Megatron splits heads and the FFN's columns evenly over the tensor-
 * parallel ranks (core/utils.divide asserts). Key/value heads: a multiple
 * of tp is sharded, a divisor of tp sub-sharded (each rank gathers its
 * group's heads); anything else is refused by TransformerConfig. */
static bool
check_tp(const WorkLayout *l, const WorkModel *m, GError **error)
{
    uint64_t tp = l->tp;
    if (m->n_heads % tp != 0)
        return hw_keys_failf(error, "tp: %u does not divide the %" G_GUINT64_FORMAT " heads of %s",
                             l->tp, m->n_heads, m->name);
    if (m->n_kv_heads % tp != 0 && tp % m->n_kv_heads != 0)
        return hw_keys_failf(error,
                             "tp: %u is neither a divisor nor a multiple of the %" G_GUINT64_FORMAT
                             " key/value heads of %s",
                             l->tp, m->n_kv_heads, m->name);
    if (m->ffn_hidden_size % tp != 0)
        return hw_keys_failf(error,
                             "tp: %u does not divide the %" G_GUINT64_FORMAT "-wide FFN of %s",
                             l->tp, m->ffn_hidden_size, m->name);
    if (m->n_experts > 0 && m->moe_ffn_hidden_size % tp != 0)
        return hw_keys_failf(error,
                             "tp: %u does not divide the %" G_GUINT64_FORMAT "-wide experts of %s",
                             l->tp, m->moe_ffn_hidden_size, m->name);
    if (l->sp && l->seq_len % tp != 0)
        return hw_keys_failf(error,
                             "sp: the %" G_GUINT64_FORMAT
                             "-token sequence does not split over tp %u "
                             "(sequence parallelism gives each rank seq_len / tp tokens)",
                             l->seq_len, l->tp);
    return true;
}

/* Context parallelism as Megatron-Core runs it (Transformer Engine's
 * AttnFuncWithCPAndKVP2P): the sequence in 2 cp chunks, two a rank, so
 * every rank's queries see as many unmasked keys; only in TE's fused
 * attention; with sp each rank's s / cp tokens split again over tp. */
static bool
check_cp(const WorkLayout *l, GError **error)
{
    if (l->cp == 1)
        return true;
    uint64_t chunks = 2 * (uint64_t)l->cp;
    if (l->seq_len % chunks != 0)
        return hw_keys_failf(error,
                             "cp: the %" G_GUINT64_FORMAT
                             "-token sequence does not split into 2 x cp = %" G_GUINT64_FORMAT
                             " chunks (context parallelism gives each rank two of them)",
                             l->seq_len, chunks);
    if (l->sp && l->seq_len % (chunks * l->tp) != 0)
        return hw_keys_failf(error,
                             "cp: the %" G_GUINT64_FORMAT "-token sequence does not split into "
                             "2 x cp x tp = %" G_GUINT64_FORMAT
                             " pieces (sequence parallelism splits each rank's tokens over tp)",
                             l->seq_len, chunks * l->tp);
    if (!l->flash_attention)
        return hw_keys_failf(error,
                             "cp: %u needs flash_attention = yes (context parallelism "
                             "runs in Transformer Engine's fused attention)",
                             l->cp);
    return true;
}

/* Megatron: vp > 1 is the interleaved schedule, which needs pp > 1 (> 2
 * unless p2p overlap is on; we take the looser rule); then the layers split
 * over the stages and their chunks as work-pipeline.h says. */
static bool
check_pipeline(const WorkLayout *l, const WorkModel *m, GError **error)
{
    bool interleaved = l->schedule == WORK_SCHEDULE_INTERLEAVED;
    if (l->vp > 1 && !interleaved)
        return hw_keys_failf(error, "vp: %u needs the interleaved schedule; expected vp 1 with %s",
                             l->vp, l->schedule == WORK_SCHEDULE_GPIPE ? "GPipe" : "1F1B");
    if (interleaved && l->vp < 2)
        return hw_keys_failf(error,
                             "schedule: interleaved needs vp > 1 (with vp 1 it is plain 1F1B)");
    if (interleaved && l->pp < 2)
        return hw_keys_failf(error, "vp: %u needs pp > 1 (there are no stages to interleave)",
                             l->vp);
    return work_pipeline_check(l, m, error);
}

/* The batch splits into dp replicas of micro_batch-sized microbatches.
 * Megatron's interleaved schedule runs microbatches in groups of pp per
 * virtual stage (microbatch_group_size_per_vp_stage, default pp) and
 * refuses a last group smaller than pp, so their number is a multiple of
 * pp. */
static bool
check_batch(const WorkLayout *l, GError **error)
{
    if (l->micro_batch > WORK_LAYOUT_MAX_MICRO_TOKENS / l->seq_len)
        return hw_keys_failf(error,
                             "micro_batch: %" G_GUINT64_FORMAT " sequences of %" G_GUINT64_FORMAT
                             " tokens are more than %" G_GUINT64_FORMAT " tokens a microbatch",
                             l->micro_batch, l->seq_len, WORK_LAYOUT_MAX_MICRO_TOKENS);
    if (l->micro_batch > l->global_batch || l->global_batch / l->micro_batch < l->dp ||
        l->global_batch % ((uint64_t)l->dp * l->micro_batch) != 0)
        return hw_keys_failf(error,
                             "global_batch: %" G_GUINT64_FORMAT
                             " is not a multiple of dp x micro_batch (%u x %" G_GUINT64_FORMAT ")",
                             l->global_batch, l->dp, l->micro_batch);
    uint64_t microbatches = work_layout_microbatches(l);
    if (microbatches > WORK_LAYOUT_MAX_MICROBATCHES)
        return hw_keys_failf(error,
                             "global_batch: %" G_GUINT64_FORMAT
                             " microbatches a pipeline are more than %" G_GUINT64_FORMAT
                             " (raise micro_batch or dp)",
                             microbatches, WORK_LAYOUT_MAX_MICROBATCHES);
    if (l->schedule == WORK_SCHEDULE_INTERLEAVED && microbatches % l->pp != 0)
        return hw_keys_failf(error,
                             "global_batch: the interleaved schedule needs the microbatches per "
                             "pipeline (%" G_GUINT64_FORMAT ") to be a multiple of pp (%u)",
                             microbatches, l->pp);
    return true;
}

static bool
check_experts(const WorkLayout *l, const WorkModel *m, GError **error)
{
    if (m->n_experts == 0) {
        if (l->ep > 1)
            return hw_keys_failf(error, "ep: %u needs a mixture-of-experts model; %s is dense",
                                 l->ep, m->name);
        return true;
    }
    if (m->n_experts % l->ep != 0)
        return hw_keys_failf(error,
                             "ep: %u does not divide the %" G_GUINT64_FORMAT " experts of %s",
                             l->ep, m->n_experts, m->name);
    if (l->dp % l->ep != 0)
        return hw_keys_failf(error,
                             "ep: %u does not divide dp (%u); expert-parallel ranks lie inside the "
                             "data-parallel group",
                             l->ep, l->dp);
    return true;
}

/* FSDP shards what ZeRO 3 shards. */
static bool
check_fsdp(const WorkLayout *l, GError **error)
{
    if (l->fsdp && l->zero != WORK_ZERO_3)
        return hw_keys_failf(error,
                             "fsdp: shards parameters, gradients and optimizer states (ZeRO 3); "
                             "expected zero 3 with it, or none given (zero is %d)",
                             (int)l->zero);
    return true;
}

bool
work_layout_check(const WorkLayout *layout, const WorkModel *model, GError **error)
{
    g_return_val_if_fail(layout != NULL && model != NULL, false);
    g_return_val_if_fail(layout->zero <= WORK_ZERO_3, false);
    g_return_val_if_fail(layout->recompute <= WORK_RECOMPUTE_FULL, false);
    g_return_val_if_fail(layout->schedule <= WORK_SCHEDULE_INTERLEAVED, false);
    return check_counts(layout, error) && check_seq_len(layout, model, error) &&
           check_tp(layout, model, error) && check_cp(layout, error) &&
           check_pipeline(layout, model, error) && check_batch(layout, error) &&
           check_experts(layout, model, error) && check_fsdp(layout, error);
}
