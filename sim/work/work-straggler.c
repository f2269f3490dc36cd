/* SPDX-License-Identifier: Apache-2.0 */
/* Stragglers (see work-straggler.h): which count, how to say them, and
 * their compute tasks slowed by the rate and their step delayed. Times in
 * ps; a slowed task's time is rounded to the nearest ps.
 */
#include "work/work-straggler.h"

#include <math.h>

#include "core/core-time.h"
#include "hw/hw-keys.h"

bool
work_stragglers_active(const WorkStragglers *st)
{
    return st != NULL && st->n_gpus > 0 && (st->compute_rate < 1 || st->delay_ps > 0);
}

char *
work_stragglers_describe(const WorkStragglers *st)
{
    GString *s = g_string_new(NULL);
    for (uint32_t i = 0; st != NULL && i < st->n_gpus; i++)
        g_string_append_printf(s, "%s%u", i == 0 ? (st->n_gpus > 1 ? "GPUs " : "GPU ") : ", ",
                               st->gpus[i]);
    if (st != NULL && st->compute_rate < 1)
        g_string_append_printf(s, ": at %g of %s compute rate", st->compute_rate,
                               st->n_gpus > 1 ? "their" : "its");
    if (st != NULL && st->delay_ps > 0)
        g_string_append_printf(s, "%s %g ms late each step", st->compute_rate < 1 ? "," : ":",
                               (double)st->delay_ps / (double)SIM_PS_PER_MS);
    return g_string_free(s, FALSE);
}

bool
work_stragglers_apply(const WorkStragglers *st, const WorkStream *stream, const WorkIndex *x,
                      uint64_t *duration, uint64_t *late_ps, GError **error)
{
    for (uint32_t i = 0; st != NULL && i < st->n_gpus; i++) {
        uint32_t g = st->gpus[i];
        if (g >= stream->n_gpus)
            return hw_keys_failf(error,
                                 "[stragglers] ranks: GPU %u is not one of the job's GPUs; "
                                 "expected 0 to %u",
                                 g, stream->n_gpus - 1);
        if (x->compute0[g] == x->compute0[g + 1])
            return hw_keys_failf(error,
                                 "[stragglers] ranks: GPU %u runs no compute task of its own (a "
                                 "replica of another rank); expected a GPU with tasks",
                                 g);
        late_ps[g] = st->delay_ps;
        for (uint32_t k = x->compute0[g]; k < x->compute0[g + 1]; k++) {
            uint32_t task = x->compute_list[k];
            duration[task] = (uint64_t)llround((double)duration[task] / st->compute_rate);
        }
    }
    return true;
}
