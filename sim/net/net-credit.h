/* SPDX-License-Identifier: Apache-2.0 */
/* Link-level credit flow control for the packet engine: for every link
 * direction, the credits its sender holds for the receiver's buffer and the
 * returns on their way back. Internal to sim/net.
 *
 * A credit covers credit_bytes of buffer (a flit; one byte when the link
 * model gives 0). A packet takes ceil(wire bytes / credit_bytes) credits to
 * start, capped at the whole buffer (a packet larger than the buffer goes
 * when the buffer is empty); a link with no receive buffer has no flow
 * control. Returns are kept with the time they reach the sender and taken
 * in lazily, only when the sender falls short: most packets never look.
 * Most returns arrive in time order and queue in a ring; the links out of a
 * switch decide ahead of the clock, each in time order, so the returns they
 * send one input link interleave, and one earlier than the ring's last goes
 * to an unordered bag, read whole when its earliest is due.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "core/core-debug.h"
#include "core/core-time.h"

typedef struct NetCreditReturn {
    uint64_t time_ps;
    uint64_t n_credits;
} NetCreditReturn;

typedef struct NetCreditReturns {
    NetCreditReturn *ring;
    uint32_t head, n, cap; /* cap a power of two */
    NetCreditReturn *bag;
    uint32_t n_bag, cap_bag;
    uint64_t bag_min_ps; /* earliest in the bag, SIM_TIME_NEVER when empty */
} NetCreditReturns;

/* Parallel arrays indexed by link id. */
typedef struct NetCredits {
    uint32_t n_links;
    uint64_t *unit_bytes; /* bytes one credit covers */
    int64_t *total;       /* the empty buffer; 0: no flow control */
    int64_t *held;        /* by the sender, returns taken in so far */
    int64_t *min_held;    /* fewest ever held after taking */
    bool *blocked;        /* the sender waits for a return */
    NetCreditReturns *returns;
} NetCredits;

void net_credits_init(NetCredits *credits, uint32_t n_links);
void net_credits_clear(NetCredits *credits);

/* Gives link a receive buffer of rx_buffer_bytes (0: no flow control) in
 * credits of credit_bytes (0: one byte), all held by the sender. */
void net_credits_set_buffer(NetCredits *credits, uint32_t link, uint64_t rx_buffer_bytes,
                            uint64_t credit_bytes);

/* Credits a packet of wire_bytes takes on link. */
static inline int64_t
net_credits_for(const NetCredits *credits, uint32_t link, uint64_t wire_bytes)
{
    uint64_t unit = credits->unit_bytes[link];
    int64_t n = (int64_t)((wire_bytes + unit - 1) / unit);
    return n < credits->total[link] ? n : credits->total[link];
}

/* Takes in the returns due by time_ps (the slow path of net_credits_take). */
void net_credits_absorb(NetCredits *credits, uint32_t link, uint64_t time_ps);

/* When the next return reaches link's sender; SIM_TIME_NEVER if none is on
 * its way. */
static inline uint64_t
net_credits_next_ps(const NetCredits *credits, uint32_t link)
{
    const NetCreditReturns *r = &credits->returns[link];
    uint64_t ring_ps = r->n > 0 ? r->ring[r->head].time_ps : SIM_TIME_NEVER;
    return ring_ps < r->bag_min_ps ? ring_ps : r->bag_min_ps;
}

/* Takes need credits of link for a packet starting at time_ps, or marks the
 * sender blocked and says false, with the time the next return is due in
 * *retry_ps (SIM_TIME_NEVER: none is on its way yet; net_credits_give will
 * say when one is). */
static inline bool
net_credits_take(NetCredits *credits, uint32_t link, int64_t need, uint64_t time_ps,
                 uint64_t *retry_ps)
{
    int64_t *held = &credits->held[link];
    if (*held < need) {
        net_credits_absorb(credits, link, time_ps);
        if (*held < need) {
            *retry_ps = net_credits_next_ps(credits, link);
            credits->blocked[link] = true;
            return false;
        }
    }
    credits->blocked[link] = false;
    *held -= need;
    if (*held < credits->min_held[link])
        credits->min_held[link] = *held;
    SIM_HOT_ASSERT(*held >= 0);
    return true;
}

/* Queues an out-of-order return, or grows the ring (the slow path of
 * net_credits_give). */
void net_credits_give_slow(NetCreditReturns *r, uint64_t time_ps, uint64_t n_credits);

/* n_credits of link reach its sender at time_ps. Returns true when the
 * sender is blocked waiting for credits: the caller should have it look
 * again at time_ps. */
static inline bool
net_credits_give(NetCredits *credits, uint32_t link, uint64_t time_ps, uint64_t n_credits)
{
    if (n_credits == 0)
        return false;
    NetCreditReturns *r = &credits->returns[link];
    NetCreditReturn *last = r->n > 0 ? &r->ring[(r->head + r->n - 1) & (r->cap - 1)] : NULL;
    if (last != NULL && last->time_ps == time_ps)
        last->n_credits += n_credits;
    else if ((last == NULL || last->time_ps < time_ps) && r->n < r->cap)
        r->ring[(r->head + r->n++) & (r->cap - 1)] = (NetCreditReturn){time_ps, n_credits};
    else
        net_credits_give_slow(r, time_ps, n_credits);
    return credits->blocked[link];
}

/* Credits of link held at now_ps (returns due by then counted) and still
 * on their way. */
void net_credits_count(const NetCredits *credits, uint32_t link, uint64_t now_ps, int64_t *held,
                       int64_t *returning);
