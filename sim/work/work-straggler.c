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
    return st != NULL && (st->n_gpus > 0 || st->n_hosts > 0) &&
           (st->compute_rate < 1 || st->delay_ps > 0);
}

static gint
compare_u32(gconstpointer a, gconstpointer b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

bool
work_stragglers_place(const WorkStragglers *st, uint32_t n_gpus, uint32_t n_hosts,
                      uint32_t gpus_per_host, WorkStragglers *out, GError **error)
{
    *out = (WorkStragglers){.compute_rate = st->compute_rate, .delay_ps = st->delay_ps};
    g_autoptr(GArray) gpus = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    g_array_append_vals(gpus, st->gpus, st->n_gpus);
    for (uint32_t i = 0; i < st->n_hosts; i++) {
        uint32_t h = st->hosts[i];
        if (h >= n_hosts)
            return hw_keys_failf(error,
                                 "[stragglers] hosts: host %u is not one of the job's %u host%s; "
                                 "expected 0 to %u",
                                 h, n_hosts, n_hosts == 1 ? "" : "s", n_hosts - 1);
        uint64_t first = (uint64_t)h * gpus_per_host;
        for (uint64_t g = first; g < first + gpus_per_host && g < n_gpus; g++) {
            uint32_t x = (uint32_t)g;
            g_array_append_val(gpus, x);
        }
    }
    out->gpus = work_stragglers_distinct(gpus, &out->n_gpus);
    return true;
}

uint32_t *
work_stragglers_distinct(GArray *list, uint32_t *n)
{
    g_array_sort(list, compare_u32);
    *n = 0;
    for (guint i = 0; i < list->len; i++)
        if (i == 0 || g_array_index(list, uint32_t, i) != g_array_index(list, uint32_t, i - 1))
            g_array_index(list, uint32_t, (*n)++) = g_array_index(list, uint32_t, i);
    return g_memdup2(list->data, sizeof(uint32_t) * MAX(*n, 1));
}

char *
work_stragglers_describe(const WorkStragglers *st)
{
    GString *s = g_string_new(NULL);
    for (uint32_t i = 0; st != NULL && i < st->n_gpus; i++)
        g_string_append_printf(s, "%s%u", i == 0 ? (st->n_gpus > 1 ? "GPUs " : "GPU ") : ", ",
                               st->gpus[i]);
    for (uint32_t i = 0; st != NULL && i < st->n_hosts; i++)
        g_string_append_printf(
            s, "%s%u",
            i == 0 ? (st->n_gpus > 0
                          ? (st->n_hosts > 1 ? "; the GPUs of hosts " : "; the GPUs of host ")
                          : (st->n_hosts > 1 ? "the GPUs of hosts " : "the GPUs of host "))
                   : ", ",
            st->hosts[i]);
    if (st != NULL && st->compute_rate < 1)
        g_string_append_printf(s, ": at %g of %s compute rate", st->compute_rate,
                               st->n_gpus > 1 || st->n_hosts > 0 ? "their" : "its");
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
