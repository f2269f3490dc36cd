/* SPDX-License-Identifier: Apache-2.0 */
/* The flow engine's max-min solver: progressive filling over the links
 * the flows cross (see net-flow.c), one component at a time. Max-min
 * shares of flows that share no link, directly or through other flows,
 * are independent: a change re-solves the components, in the graph of
 * links and flows, of the links a flow started or ended on, and the other
 * flows keep their rates. Each component is filled alone, with its own
 * levels, also when every one is solved: filling all at once would freeze
 * a link whose level comes within the 1e-9 tie tolerance of another
 * component's at that lower level, which ties the rates of independent
 * flows to one another. A component is solved in the order a solve of
 * every flow takes (flows by index, links by first crossing), so its rates
 * are the same doubles whichever recomputation solves it. Rates in bytes/s.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "net/net-flow-state.h"

static void
build_csr(NetFlow *nf)
{
    for (uint32_t k = 0; k < nf->n_touched; k++)
        nf->link_local[nf->touched[k]] = DEAD;
    nf->n_touched = 0;
    uint32_t *start = nf->csr_start;
    start[0] = 0;
    for (uint32_t i = 0; i < nf->n_flows; i++)
        for (uint32_t h = 0; h < nf->flows[i].n_hops; h++) {
            FlowHop *hop = &nf->hops[nf->flows[i].hop0 + h];
            uint32_t k = nf->link_local[hop->link];
            if (k == DEAD) {
                k = nf->link_local[hop->link] = nf->n_touched++;
                nf->touched[k] = hop->link;
                start[k + 1] = 0;
            }
            hop->local = k;
            start[k + 1]++;
        }
    for (uint32_t k = 0; k < nf->n_touched; k++)
        start[k + 1] += start[k];
    nf->csr_flow = g_renew(uint32_t, nf->csr_flow, MAX(nf->n_hops, 1));
    for (uint32_t i = 0; i < nf->n_flows; i++)
        for (uint32_t h = 0; h < nf->flows[i].n_hops; h++)
            nf->csr_flow[start[nf->hops[nf->flows[i].hop0 + h].local]++] = i;
    for (uint32_t k = nf->n_touched; k > 0; k--)
        start[k] = start[k - 1];
    start[0] = 0;
}

static inline void
freeze(NetFlow *nf, uint32_t i, double rate)
{
    Flow *f = &nf->flows[i];
    nf->frozen[i] = 1;
    f->rate_bytes_per_s = rate;
    for (uint32_t h = 0; h < f->n_hops; h++) {
        uint32_t k = nf->hops[f->hop0 + h].local;
        double w = (double)nf->hops[f->hop0 + h].weight * f->copies;
        nf->rem_bytes_per_s[k] -= rate * w;
        nf->weight_sum[k] -= w;
    }
}

static int
by_cap(const void *a, const void *b, void *ctx)
{
    const Flow *flows = ctx;
    double x = flows[*(const uint32_t *)a].cap_bytes_per_s;
    double y = flows[*(const uint32_t *)b].cap_bytes_per_s;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* The picked flows with a cap, in increasing cap (ties by index): *n of
 * them. */
static void
sort_capped(NetFlow *nf, uint32_t *n)
{
    if (nf->cap_capped < nf->n_flows) {
        nf->cap_capped = MAX(nf->n_flows, 64);
        nf->capped = g_renew(uint32_t, nf->capped, nf->cap_capped);
    }
    *n = 0;
    if (nf->n_capped_flows == 0)
        return;
    for (uint32_t p = 0; p < nf->n_picked_flows; p++)
        if (nf->flows[nf->picked_flows[p]].cap_bytes_per_s > 0)
            nf->capped[(*n)++] = nf->picked_flows[p];
    g_qsort_with_data(nf->capped, (gint)*n, sizeof(uint32_t), by_cap, nf->flows);
}

/* Progressive filling over the n_active picked links (nf->active_links)
 * and the picked flows, which are every flow crossing them, both in
 * increasing order. Every flow weighs at least 1 on each link it crosses,
 * so a weight sum under 0.5 means no unfrozen flow is left there. A paced
 * flow's cap is a link of its own: when the fill level reaches it, the
 * flow stays at its cap and leaves the rest to the others.
 * g_qsort_with_data is stable (GLib >= 2.32), so the caps of a component
 * come in the order a solve of every flow takes. */
static void
max_min(NetFlow *nf, uint32_t n_active)
{
    for (uint32_t a = 0; a < n_active; a++) {
        uint32_t k = nf->active_links[a];
        nf->weight_sum[k] = 0;
        nf->rem_bytes_per_s[k] = net_flow_res_bytes_per_s(nf, nf->touched[k]);
    }
    for (uint32_t p = 0; p < nf->n_picked_flows; p++) {
        const Flow *f = &nf->flows[nf->picked_flows[p]];
        nf->frozen[nf->picked_flows[p]] = 0;
        for (uint32_t h = 0; h < f->n_hops; h++) {
            const FlowHop *hop = &nf->hops[f->hop0 + h];
            nf->weight_sum[hop->local] += (double)hop->weight * f->copies;
        }
    }
    uint32_t n_capped, next_cap = 0;
    sort_capped(nf, &n_capped);
    while (n_active > 0) {
        double level = INFINITY;
        for (uint32_t k = 0; k < n_active; k++) {
            uint32_t l = nf->active_links[k];
            level = fmin(level, fmax(nf->rem_bytes_per_s[l], 0) / nf->weight_sum[l]);
        }
        while (next_cap < n_capped && nf->frozen[nf->capped[next_cap]])
            next_cap++;
        if (next_cap < n_capped &&
            nf->flows[nf->capped[next_cap]].cap_bytes_per_s < level * (1 + 1e-9)) {
            /* Caps come first: those at the lowest level stay at their caps. */
            double cap_level = nf->flows[nf->capped[next_cap]].cap_bytes_per_s * (1 + 1e-9);
            for (; next_cap < n_capped; next_cap++) {
                uint32_t i = nf->capped[next_cap];
                if (nf->frozen[i])
                    continue;
                if (nf->flows[i].cap_bytes_per_s > cap_level)
                    break;
                freeze(nf, i, nf->flows[i].cap_bytes_per_s);
            }
            uint32_t kept = 0;
            for (uint32_t k = 0; k < n_active; k++)
                if (nf->weight_sum[nf->active_links[k]] >= 0.5)
                    nf->active_links[kept++] = nf->active_links[k];
            n_active = kept;
            continue;
        }
        double threshold = level * (1 + 1e-9);
        for (uint32_t k = 0; k < n_active; k++) {
            uint32_t l = nf->active_links[k];
            if (nf->weight_sum[l] < 0.5 ||
                fmax(nf->rem_bytes_per_s[l], 0) / nf->weight_sum[l] > threshold)
                continue;
            for (uint32_t j = nf->csr_start[l]; j < nf->csr_start[l + 1]; j++)
                if (!nf->frozen[nf->csr_flow[j]])
                    freeze(nf, nf->csr_flow[j], level);
        }
        uint32_t kept = 0;
        for (uint32_t k = 0; k < n_active; k++)
            if (nf->weight_sum[nf->active_links[k]] >= 0.5)
                nf->active_links[kept++] = nf->active_links[k];
        n_active = kept;
    }
}

/* Grows the per-flow scratch arrays to the flows there are. */
static void
reserve_flow_scratch(NetFlow *nf)
{
    if (nf->cap_flow_scratch >= MAX(nf->n_flows, 1))
        return;
    nf->cap_flow_scratch = MAX(MAX(nf->n_flows, 64), 2 * nf->cap_flow_scratch);
    nf->frozen = g_renew(uint8_t, nf->frozen, nf->cap_flow_scratch);
    nf->flow_picked = g_renew(uint8_t, nf->flow_picked, nf->cap_flow_scratch);
    nf->picked_flows = g_renew(uint32_t, nf->picked_flows, nf->cap_flow_scratch);
    nf->check_rates = g_renew(double, nf->check_rates, nf->cap_flow_scratch);
}

static int
by_index(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

/* Solves the component of local link k0 unless an earlier call of this
 * recomputation did: picks it (a breadth-first walk, with active_links as
 * its queue), sorts what it picked into the order a solve of all flows
 * takes, and fills it. Adds the flows and links solved to *n_flows and
 * *n_links. */
static void
solve_component(NetFlow *nf, uint32_t k0, uint64_t *n_flows, uint64_t *n_links)
{
    if (nf->link_picked[k0])
        return;
    nf->link_picked[k0] = 1;
    nf->active_links[0] = k0;
    uint32_t n = 1;
    nf->n_picked_flows = 0;
    for (uint32_t head = 0; head < n; head++) {
        uint32_t k = nf->active_links[head];
        for (uint32_t j = nf->csr_start[k]; j < nf->csr_start[k + 1]; j++) {
            uint32_t i = nf->csr_flow[j];
            if (nf->flow_picked[i])
                continue;
            nf->flow_picked[i] = 1;
            nf->picked_flows[nf->n_picked_flows++] = i;
            const Flow *f = &nf->flows[i];
            for (uint32_t h = 0; h < f->n_hops; h++) {
                uint32_t kk = nf->hops[f->hop0 + h].local;
                if (!nf->link_picked[kk]) {
                    nf->link_picked[kk] = 1;
                    nf->active_links[n++] = kk;
                }
            }
        }
    }
    qsort(nf->active_links, n, sizeof(uint32_t), by_index);
    qsort(nf->picked_flows, nf->n_picked_flows, sizeof(uint32_t), by_index);
    *n_flows += nf->n_picked_flows;
    *n_links += n;
    max_min(nf, n);
}

/* Solves the components of the changed links, or of every link crossed
 * (all); adds the flows and links solved to *n_flows and *n_links. */
static void
solve_components(NetFlow *nf, bool all, uint64_t *n_flows, uint64_t *n_links)
{
    memset(nf->link_picked, 0, nf->n_touched);
    memset(nf->flow_picked, 0, nf->n_flows);
    if (all) {
        for (uint32_t k = 0; k < nf->n_touched; k++)
            solve_component(nf, k, n_flows, n_links);
        return;
    }
    for (uint32_t c = 0; c < nf->n_changed; c++) {
        uint32_t k = nf->link_local[nf->changed[c]];
        if (k != DEAD)
            solve_component(nf, k, n_flows, n_links);
    }
}

/* NET_FLOW_RATES_CHECKED: solves every flow again and aborts when one's
 * incremental rate is not the same double, then puts the incremental
 * rates back, so that the run is the incremental one. */
static void
check_rates(NetFlow *nf)
{
    for (uint32_t i = 0; i < nf->n_flows; i++)
        nf->check_rates[i] = nf->flows[i].rate_bytes_per_s;
    uint64_t n_flows = 0, n_links = 0;
    solve_components(nf, true, &n_flows, &n_links);
    for (uint32_t i = 0; i < nf->n_flows; i++) {
        double full = nf->flows[i].rate_bytes_per_s, incremental = nf->check_rates[i];
        if (full != incremental)
            g_error("net-flow: at %" G_GUINT64_FORMAT " ps flow %u of %u: incremental rate %.17g "
                    "B/s, full %.17g B/s",
                    sim_engine_now(nf->base.engine), i, nf->n_flows, incremental, full);
        nf->flows[i].rate_bytes_per_s = incremental;
    }
}

void
net_flow_solve_rates(NetFlow *nf)
{
    build_csr(nf);
    reserve_flow_scratch(nf);
    solve_components(nf, nf->rates_mode == NET_FLOW_RATES_FULL, &nf->stats.n_rate_flows,
                     &nf->stats.n_rate_links);
    nf->stats.n_rate_updates++;
    if (nf->rates_mode == NET_FLOW_RATES_CHECKED)
        check_rates(nf);
    for (uint32_t c = 0; c < nf->n_changed; c++)
        nf->link_changed[nf->changed[c]] = 0;
    nf->n_changed = 0;
}
