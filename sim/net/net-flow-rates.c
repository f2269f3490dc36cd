/* The flow engine's max-min solver: progressive filling over the links
 * the flows cross (see net-flow.c). Rates in bytes/s.
 */
#include <math.h>
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
        double w = nf->hops[f->hop0 + h].weight;
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

/* The flows with a cap, in increasing cap (ties by index): *n of them. */
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
    for (uint32_t i = 0; i < nf->n_flows; i++)
        if (nf->flows[i].cap_bytes_per_s > 0)
            nf->capped[(*n)++] = i;
    g_qsort_with_data(nf->capped, (gint)*n, sizeof(uint32_t), by_cap, nf->flows);
}

/* Progressive filling over the links the flows cross. Every flow weighs
 * at least 1 on each link it crosses, so a weight sum under 0.5 means no
 * unfrozen flow is left there. A paced flow's cap is a link of its own:
 * when the fill level reaches it, the flow stays at its cap and leaves the
 * rest to the others. */
static void
max_min(NetFlow *nf)
{
    const TopoGraph *graph = nf->base.graph;
    uint32_t n_active = nf->n_touched;
    for (uint32_t k = 0; k < n_active; k++) {
        nf->weight_sum[k] = 0;
        nf->rem_bytes_per_s[k] = (double)topo_graph_link(graph, nf->touched[k])->bytes_per_s;
        nf->active_links[k] = k;
    }
    nf->frozen = g_renew(uint8_t, nf->frozen, MAX(nf->n_flows, 1));
    memset(nf->frozen, 0, MAX(nf->n_flows, 1));
    for (uint32_t i = 0; i < nf->n_flows; i++)
        for (uint32_t h = 0; h < nf->flows[i].n_hops; h++) {
            const FlowHop *hop = &nf->hops[nf->flows[i].hop0 + h];
            nf->weight_sum[hop->local] += hop->weight;
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

void
net_flow_solve_rates(NetFlow *nf)
{
    build_csr(nf);
    max_min(nf);
    nf->stats.n_rate_updates++;
}
