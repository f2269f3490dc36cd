/* SPDX-License-Identifier: Apache-2.0 */
/* Link-level credits: the sender's count per link direction and the returns
 * on their way back (a time-ordered ring plus an unordered bag for the few
 * that come out of order; see net-credit.h). Credits are counted in units
 * of the link's credit_bytes; times in ps.
 */
#include "net/net-credit.h"

#include <glib.h>

void
net_credits_init(NetCredits *credits, uint32_t n_links)
{
    *credits = (NetCredits){
        .n_links = n_links,
        .unit_bytes = g_new0(uint64_t, n_links),
        .total = g_new0(int64_t, n_links),
        .held = g_new0(int64_t, n_links),
        .min_held = g_new0(int64_t, n_links),
        .blocked = g_new0(bool, n_links),
        .returns = g_new0(NetCreditReturns, n_links),
    };
    for (uint32_t l = 0; l < n_links; l++) {
        credits->unit_bytes[l] = 1;
        credits->returns[l].bag_min_ps = SIM_TIME_NEVER;
    }
}

void
net_credits_clear(NetCredits *credits)
{
    for (uint32_t l = 0; l < credits->n_links; l++) {
        g_free(credits->returns[l].ring);
        g_free(credits->returns[l].bag);
    }
    g_free(credits->returns);
    g_free(credits->blocked);
    g_free(credits->min_held);
    g_free(credits->held);
    g_free(credits->total);
    g_free(credits->unit_bytes);
    *credits = (NetCredits){0};
}

void
net_credits_set_buffer(NetCredits *credits, uint32_t link, uint64_t rx_buffer_bytes,
                       uint64_t credit_bytes)
{
    g_return_if_fail(link < credits->n_links);
    uint64_t unit = credit_bytes > 0 ? credit_bytes : 1;
    uint64_t total = rx_buffer_bytes / unit;
    /* A buffer smaller than one credit still takes one packet at a time. */
    if (rx_buffer_bytes > 0 && total == 0)
        total = 1;
    g_return_if_fail(total <= INT64_MAX);
    credits->unit_bytes[link] = unit;
    credits->total[link] = credits->held[link] = credits->min_held[link] = (int64_t)total;
}

void
net_credits_absorb(NetCredits *credits, uint32_t link, uint64_t time_ps)
{
    NetCreditReturns *r = &credits->returns[link];
    int64_t *held = &credits->held[link];
    while (r->n > 0 && r->ring[r->head].time_ps <= time_ps) {
        *held += (int64_t)r->ring[r->head].n_credits;
        r->head = (r->head + 1) & (r->cap - 1);
        r->n--;
    }
    if (r->bag_min_ps <= time_ps) {
        uint32_t kept = 0;
        r->bag_min_ps = SIM_TIME_NEVER;
        for (uint32_t i = 0; i < r->n_bag; i++) {
            if (r->bag[i].time_ps <= time_ps) {
                *held += (int64_t)r->bag[i].n_credits;
            } else {
                r->bag_min_ps = MIN(r->bag_min_ps, r->bag[i].time_ps);
                r->bag[kept++] = r->bag[i];
            }
        }
        r->n_bag = kept;
    }
    SIM_HOT_ASSERT(*held <= credits->total[link]);
}

static void
ring_grow(NetCreditReturns *r)
{
    uint32_t cap = r->cap ? 2 * r->cap : 16;
    NetCreditReturn *ring = g_new(NetCreditReturn, cap);
    for (uint32_t i = 0; i < r->n; i++)
        ring[i] = r->ring[(r->head + i) & (r->cap - 1)];
    g_free(r->ring);
    r->ring = ring;
    r->head = 0;
    r->cap = cap;
}

void
net_credits_give_slow(NetCreditReturns *r, uint64_t time_ps, uint64_t n_credits)
{
    if (r->n == 0 || r->ring[(r->head + r->n - 1) & (r->cap - 1)].time_ps < time_ps) {
        if (r->n == r->cap)
            ring_grow(r);
        r->ring[(r->head + r->n++) & (r->cap - 1)] = (NetCreditReturn){time_ps, n_credits};
        return;
    }
    if (r->n_bag == r->cap_bag) {
        r->cap_bag = r->cap_bag ? 2 * r->cap_bag : 16;
        r->bag = g_renew(NetCreditReturn, r->bag, r->cap_bag);
    }
    r->bag[r->n_bag++] = (NetCreditReturn){time_ps, n_credits};
    r->bag_min_ps = MIN(r->bag_min_ps, time_ps);
}

void
net_credits_count(const NetCredits *credits, uint32_t link, uint64_t now_ps, int64_t *held,
                  int64_t *returning)
{
    const NetCreditReturns *r = &credits->returns[link];
    *held = credits->held[link];
    *returning = 0;
    for (uint32_t i = 0; i < r->n + r->n_bag; i++) {
        const NetCreditReturn *ret =
            i < r->n ? &r->ring[(r->head + i) & (r->cap - 1)] : &r->bag[i - r->n];
        if (ret->time_ps <= now_ps)
            *held += (int64_t)ret->n_credits;
        else
            *returning += (int64_t)ret->n_credits;
    }
}
