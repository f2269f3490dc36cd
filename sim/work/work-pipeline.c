/* SPDX-License-Identifier: Apache-2.0 */
/* Pipeline stages (see work-pipeline.h): Megatron-LM's split of the layers
 * over stages and model chunks, its checks with the values that would
 * pass, and the order of a stage's passes. Counts only; the generator
 * (work-gen) emits what they say, and work-memory stores what they keep.
 * Sources: NVIDIA/Megatron-LM, megatron/core/transformer/transformer_block.py
 * (get_num_layers_to_build) and transformer_config.py (its "Uneven PP"
 * checks), megatron/core/pipeline_parallel/schedules.py (the schedules).
 */
#include "work/work-pipeline.h"

#include "hw/hw-keys.h"

static bool
uneven(const WorkLayout *l)
{
    return l->first_stage_layers > 0 || l->last_stage_layers > 0;
}

/* The layers the even split shares out: the model's, and the embedding
 * and the loss where they count as layers. */
static uint64_t
counted_layers(const WorkLayout *l, const WorkModel *m)
{
    return m->n_layers + l->account_for_embedding + l->account_for_loss;
}

/* Megatron's num_layers_per_pipeline_rank: a stage's layers before the
 * counted embedding and loss come off its end chunks. */
static uint64_t
rank_layers(const WorkLayout *l, const WorkModel *m, uint32_t stage)
{
    bool first = l->first_stage_layers > 0, last = l->last_stage_layers > 0;
    if (first && stage == 0)
        return l->first_stage_layers;
    if (last && stage == l->pp - 1)
        return l->last_stage_layers;
    if (!first && !last)
        return counted_layers(l, m) / l->pp;
    uint32_t others = l->pp - first - last;
    uint64_t given = (uint64_t)l->first_stage_layers + l->last_stage_layers;
    return others > 0 && given <= m->n_layers ? (m->n_layers - given) / others : 0;
}

uint64_t
work_pipeline_chunk_layers(const WorkLayout *l, const WorkModel *m, uint32_t stage, uint32_t chunk)
{
    g_return_val_if_fail(l != NULL && m != NULL && l->vp >= 1, 0);
    g_return_val_if_fail(stage < l->pp && chunk < l->vp, 0);
    uint64_t n = rank_layers(l, m, stage) / l->vp;
    if (l->account_for_embedding && stage == 0 && chunk == 0 && n > 0)
        n--;
    if (l->account_for_loss && stage == l->pp - 1 && chunk == l->vp - 1 && n > 0)
        n--;
    return n;
}

uint64_t
work_pipeline_stage_layers(const WorkLayout *l, const WorkModel *m, uint32_t stage)
{
    g_return_val_if_fail(l != NULL && m != NULL && stage < l->pp, 0);
    uint64_t n = 0;
    for (uint32_t c = 0; c < l->vp; c++)
        n += work_pipeline_chunk_layers(l, m, stage, c);
    return n;
}

bool
work_pipeline_even(const WorkLayout *l, const WorkModel *m)
{
    g_return_val_if_fail(l != NULL && m != NULL && l->pp >= 1, true);
    uint64_t first = work_pipeline_chunk_layers(l, m, 0, 0);
    for (uint32_t p = 0; p < l->pp; p++)
        if (work_pipeline_chunk_layers(l, m, p, 0) != first ||
            work_pipeline_chunk_layers(l, m, p, l->vp - 1) != first)
            return false;
    return true;
}

/* ---- Checks. ---- */

/* First and last stage layers that leave each of the pp - 2 middle stages
 * the same count, each a multiple of vp, for a message: the middle stages'
 * share rounded up (lighter ends, which also run the embedding and the
 * loss), else down. False when none exists (fewer layers than stages, or
 * layers that vp does not divide). */
static bool
suggest_uneven(uint64_t layers, uint32_t pp, uint32_t vp, uint64_t out[3])
{
    if (pp < 2 || layers % vp != 0)
        return false;
    uint64_t n = layers / vp, middle_stages = pp - 2, middle = 0, ends;
    if (middle_stages > 0) {
        middle = (n + pp - 1) / pp;
        if (middle_stages * middle + 2 > n)
            middle = n / pp;
        if (middle == 0)
            return false;
    }
    ends = n - middle_stages * middle;
    if (ends < 2)
        return false;
    out[0] = (ends + 1) / 2 * vp;
    out[1] = ends / 2 * vp;
    out[2] = middle * vp;
    return true;
}

static const char *
accounting_name(bool embedding, bool loss)
{
    return embedding && loss ? "account_for_embedding and account_for_loss"
           : embedding       ? "account_for_embedding"
           : loss            ? "account_for_loss"
                             : "neither account_for_embedding nor account_for_loss";
}

/* Megatron's first and last stage layer counts that would split the
 * layers, appended to hint; none when the plain split would. */
static void
hint_uneven(const WorkLayout *l, const WorkModel *m, GString *hint)
{
    uint64_t layers = m->n_layers, s[3];
    if ((layers % l->pp == 0 && layers / l->pp % l->vp == 0) ||
        !suggest_uneven(layers, l->pp, l->vp, s))
        return;
    g_string_append_printf(hint,
                           "first_stage_layers and last_stage_layers (such as %" G_GUINT64_FORMAT
                           " and %" G_GUINT64_FORMAT,
                           s[0], s[1]);
    if (l->pp > 2)
        g_string_append_printf(hint, ", leaving %" G_GUINT64_FORMAT " to %s", s[2],
                               l->pp > 3 ? "each middle stage" : "the middle stage");
    g_string_append(hint, ")");
    if (l->account_for_embedding || l->account_for_loss)
        g_string_append_printf(hint, " instead of %s",
                               accounting_name(l->account_for_embedding, l->account_for_loss));
}

/* The embedding and loss counted some other way, appended to hint when
 * that splits the layers: the first of both, one, the other, none. */
static void
hint_accounting(const WorkLayout *l, const WorkModel *m, GString *hint)
{
    static const bool ways[4][2] = {{true, true}, {true, false}, {false, true}, {false, false}};
    for (unsigned i = 0; i < G_N_ELEMENTS(ways); i++) {
        bool e = ways[i][0], lo = ways[i][1];
        uint64_t counted = m->n_layers + e + lo;
        if ((e == l->account_for_embedding && lo == l->account_for_loss) || counted % l->pp != 0 ||
            counted / l->pp % l->vp != 0)
            continue;
        g_string_append_printf(hint, "%s%s (%" G_GUINT64_FORMAT, hint->len > 0 ? ", or " : "",
                               accounting_name(e, lo), m->n_layers);
        if (e || lo)
            g_string_append_printf(hint, " + %d", e + lo);
        g_string_append_printf(hint, " = %u x %" G_GUINT64_FORMAT ")", l->pp, counted / l->pp);
        return;
    }
}

/* The pp does not split the layers: the ways that would, from Megatron's. */
static bool
fail_even(const WorkLayout *l, const WorkModel *m, GError **error)
{
    GString *hint = g_string_new(NULL);
    hint_uneven(l, m, hint);
    hint_accounting(l, m, hint);
    if (hint->len == 0)
        g_string_append_printf(hint,
                               "a pp that divides them (no first_stage_layers, last_stage_layers "
                               "or account_for_embedding and account_for_loss split them%s)",
                               l->vp > 1 ? " into vp chunks a stage" : "");
    uint64_t n = counted_layers(l, m);
    g_autofree char *counted =
        n == m->n_layers
            ? g_strdup("")
            : g_strdup_printf(" with the %s counted (%" G_GUINT64_FORMAT ")",
                              l->account_for_embedding && l->account_for_loss ? "embedding and loss"
                              : l->account_for_embedding                      ? "embedding"
                                                                              : "loss",
                              n);
    bool ok = hw_keys_failf(
        error, "pp: %u does not divide the %" G_GUINT64_FORMAT " layers of %s%s; expected %s",
        l->pp, m->n_layers, m->name, counted, hint->str);
    g_string_free(hint, TRUE);
    return ok;
}

/* Megatron's plain and accounted splits: pp divides the counted layers, vp
 * each stage's share. */
static bool
check_even(const WorkLayout *l, const WorkModel *m, GError **error)
{
    uint64_t n = counted_layers(l, m);
    if (n % l->pp != 0)
        return fail_even(l, m, error);
    uint64_t stage_layers = n / l->pp;
    if (stage_layers % l->vp != 0)
        return hw_keys_failf(error,
                             "vp: %u does not divide the %" G_GUINT64_FORMAT
                             " layers%s of each of the %u pipeline stages of %s",
                             l->vp, stage_layers,
                             n == m->n_layers ? "" : " (the embedding and loss counted)", l->pp,
                             m->name);
    return true;
}

/* What the given stage layer counts are, for messages: "first_stage_layers:
 * 9" or "first_stage_layers + last_stage_layers: 9 + 10 = 19". */
static char *
given_text(const WorkLayout *l)
{
    if (l->first_stage_layers > 0 && l->last_stage_layers > 0)
        return g_strdup_printf(
            "first_stage_layers + last_stage_layers: %u + %u = %" G_GUINT64_FORMAT,
            l->first_stage_layers, l->last_stage_layers,
            (uint64_t)l->first_stage_layers + l->last_stage_layers);
    if (l->first_stage_layers > 0)
        return g_strdup_printf("first_stage_layers: %u", l->first_stage_layers);
    return g_strdup_printf("last_stage_layers: %u", l->last_stage_layers);
}

/* The rest of the layers over the stages not given: at least one each, and
 * a multiple of their count (Megatron's "Mismatch" and "must be divisible
 * by the middle pipeline model parallel size"). The hint keeps the first
 * value and moves the last one given to the nearest that divide. */
static bool
check_rest(const WorkLayout *l, const WorkModel *m, uint32_t others, GError **error)
{
    uint64_t layers = m->n_layers;
    uint64_t given = (uint64_t)l->first_stage_layers + l->last_stage_layers;
    g_autofree char *what = given_text(l);
    const char *which = l->first_stage_layers > 0 && l->last_stage_layers > 0 ? "middle" : "other";
    if (others == 0 && given != layers)
        return hw_keys_failf(error,
                             "%s is not the %" G_GUINT64_FORMAT " layers of %s; pp %u leaves no "
                             "middle stage, so expected a sum of %" G_GUINT64_FORMAT
                             " (such as %" G_GUINT64_FORMAT " + %" G_GUINT64_FORMAT ")",
                             what, layers, m->name, l->pp, layers, (layers + 1) / 2, layers / 2);
    if (others == 0)
        return true;
    if (given + others > layers)
        return hw_keys_failf(error,
                             "%s leaves %s for the %u %s stage%s of %s (%" G_GUINT64_FORMAT
                             " layers); expected at most %" G_GUINT64_FORMAT
                             " in all, every stage holding at least one layer",
                             what, given >= layers ? "no layer" : "too few layers", others, which,
                             others == 1 ? "" : "s", m->name, layers, layers - others);
    uint64_t rest = layers - given;
    if (rest % others == 0)
        return true;
    /* The last key given moves; the other stays. */
    const char *key = l->last_stage_layers > 0 ? "last_stage_layers" : "first_stage_layers";
    uint64_t value = l->last_stage_layers > 0 ? l->last_stage_layers : l->first_stage_layers;
    uint64_t room = rest + value;   /* what that stage and the others share */
    uint64_t share = rest / others; /* at least 1: given + others <= layers */
    GString *such = g_string_new(NULL);
    if (room > (share + 1) * others)
        g_string_append_printf(such, "%" G_GUINT64_FORMAT " or ", room - (share + 1) * others);
    g_string_append_printf(such, "%" G_GUINT64_FORMAT, room - share * others);
    bool ok = hw_keys_failf(error,
                            "%s leaves %" G_GUINT64_FORMAT
                            " layers of %s, which do not split evenly over the %u %s stages; "
                            "expected %s such as %s",
                            what, rest, m->name, others, which, key, such->str);
    g_string_free(such, TRUE);
    return ok;
}

/* Megatron's uneven split: the given stages' layers, the rest evenly over
 * the others, and each stage's layers a multiple of vp. */
static bool
check_uneven(const WorkLayout *l, const WorkModel *m, GError **error)
{
    bool first = l->first_stage_layers > 0, last = l->last_stage_layers > 0;
    const char *key = first ? "first_stage_layers" : "last_stage_layers";
    if (l->account_for_embedding || l->account_for_loss)
        return hw_keys_failf(
            error,
            "%s: cannot be given with %s (Megatron-LM takes stage layer counts "
            "or the embedding and loss counted as layers, not both); expected "
            "one of the two",
            key, l->account_for_embedding ? "account_for_embedding" : "account_for_loss");
    if (l->pp < 2)
        return hw_keys_failf(
            error, "%s: needs pp > 1 (one stage holds all %" G_GUINT64_FORMAT " layers of %s)", key,
            m->n_layers, m->name);
    uint32_t others = l->pp - first - last;
    if (!check_rest(l, m, others, error))
        return false;
    if (l->vp == 1)
        return true;
    if (first && l->first_stage_layers % l->vp != 0)
        return hw_keys_failf(error,
                             "first_stage_layers: %u layers do not split over the stage's vp "
                             "%u model chunks; expected a multiple of %u",
                             l->first_stage_layers, l->vp, l->vp);
    if (last && l->last_stage_layers % l->vp != 0)
        return hw_keys_failf(error,
                             "last_stage_layers: %u layers do not split over the stage's vp "
                             "%u model chunks; expected a multiple of %u",
                             l->last_stage_layers, l->vp, l->vp);
    uint64_t middle = others > 0 ? rank_layers(l, m, first ? 1 : 0) : 0;
    if (middle % l->vp != 0)
        return hw_keys_failf(error,
                             "vp: %u does not divide the %" G_GUINT64_FORMAT
                             " layers of each of the %u %s stages of %s",
                             l->vp, middle, others, first && last ? "middle" : "other", m->name);
    return true;
}

bool
work_pipeline_check(const WorkLayout *layout, const WorkModel *model, GError **error)
{
    g_return_val_if_fail(layout != NULL && model != NULL, false);
    g_return_val_if_fail(layout->pp >= 1 && layout->vp >= 1, false);
    return uneven(layout) ? check_uneven(layout, model, error) : check_even(layout, model, error);
}

char *
work_pipeline_describe(const WorkLayout *l, const WorkModel *m)
{
    g_return_val_if_fail(l != NULL && m != NULL && l->pp >= 1, NULL);
    GString *out = g_string_new(NULL);
    for (uint32_t p = 0; p < l->pp;) {
        uint64_t n = work_pipeline_stage_layers(l, m, p);
        bool embedding = p == 0 && l->account_for_embedding;
        bool loss = p == l->pp - 1 && l->account_for_loss;
        uint32_t run = 1;
        while (!embedding && p + run < l->pp - (l->account_for_loss ? 1 : 0) &&
               work_pipeline_stage_layers(l, m, p + run) == n)
            run++;
        if (out->len > 0)
            g_string_append(out, ", ");
        g_string_append_printf(out, "%" G_GUINT64_FORMAT, n);
        if (run > 1)
            g_string_append_printf(out, " x %u", run);
        if (embedding)
            g_string_append(out, " + embedding");
        if (loss)
            g_string_append(out, " + loss");
        p += run;
    }
    return g_string_free(out, FALSE);
}

/* ---- Schedules. ---- */

static uint32_t
passes(const WorkLayout *l)
{
    return (uint32_t)work_layout_microbatches(l) * l->vp;
}

uint32_t
work_pipeline_warmup(const WorkLayout *l, uint32_t stage)
{
    g_return_val_if_fail(l != NULL && stage < l->pp, 0);
    uint32_t total = passes(l), later = l->pp - stage - 1;
    switch (l->schedule) {
    case WORK_SCHEDULE_GPIPE:
        return total;
    case WORK_SCHEDULE_1F1B:
        return MIN(later, total);
    case WORK_SCHEDULE_INTERLEAVED:
        return MIN(2 * later + (l->vp - 1) * l->pp, total);
    }
    g_return_val_if_reached(0);
}

WorkSlot
work_pipeline_pass(const WorkLayout *l, bool forward, uint32_t k)
{
    uint32_t pp = l->pp, vp = l->vp;
    if (l->schedule == WORK_SCHEDULE_GPIPE)
        return (WorkSlot){forward, forward ? k : passes(l) - 1 - k, 0};
    uint32_t chunk = (k / pp) % vp;
    return (WorkSlot){forward, (k / (pp * vp)) * pp + k % pp, forward ? chunk : vp - 1 - chunk};
}

GArray *
work_pipeline_schedule(const WorkLayout *l, uint32_t stage)
{
    g_return_val_if_fail(l != NULL && stage < l->pp, NULL);
    GArray *slots = g_array_new(FALSE, FALSE, sizeof(WorkSlot));
    uint32_t total = passes(l), warmup = work_pipeline_warmup(l, stage);
    for (uint32_t k = 0; k < warmup; k++) {
        WorkSlot f = work_pipeline_pass(l, true, k);
        g_array_append_val(slots, f);
    }
    for (uint32_t i = 0; i < total - warmup; i++) {
        WorkSlot f = work_pipeline_pass(l, true, warmup + i), b = work_pipeline_pass(l, false, i);
        g_array_append_val(slots, f);
        g_array_append_val(slots, b);
    }
    for (uint32_t k = total - warmup; k < total; k++) {
        WorkSlot b = work_pipeline_pass(l, false, k);
        g_array_append_val(slots, b);
    }
    return slots;
}

/* Walks the schedule only where the chunks of the stage differ (the
 * accounted embedding or loss); equal chunks give the closed form. */
uint64_t
work_pipeline_layers_in_flight(const WorkLayout *l, const WorkModel *m, uint32_t stage)
{
    g_return_val_if_fail(l != NULL && m != NULL && stage < l->pp, 0);
    uint32_t total = passes(l), warmup = work_pipeline_warmup(l, stage);
    uint64_t first = work_pipeline_chunk_layers(l, m, stage, 0);
    if (first == work_pipeline_chunk_layers(l, m, stage, l->vp - 1))
        return (uint64_t)MIN(warmup + 1, total) * first;
    uint64_t live = 0, peak;
    for (uint32_t k = 0; k < warmup; k++)
        live += work_pipeline_chunk_layers(l, m, stage, work_pipeline_pass(l, true, k).chunk);
    peak = live;
    for (uint32_t i = 0; i < total - warmup; i++) {
        live +=
            work_pipeline_chunk_layers(l, m, stage, work_pipeline_pass(l, true, warmup + i).chunk);
        peak = MAX(peak, live);
        live -= work_pipeline_chunk_layers(l, m, stage, work_pipeline_pass(l, false, i).chunk);
    }
    return peak;
}
