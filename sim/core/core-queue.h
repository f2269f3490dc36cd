/* SPDX-License-Identifier: Apache-2.0 */
/* The pending-event queue: a two-rung ladder of time buckets with an
 * overflow list, ordered by the key (time_ps, phase, seq).
 *
 * The order word packs the event's phase (8 bits) above its schedule
 * sequence number (56 bits): no two keys are equal, so the dispatch order is
 * total. The queue relies on the simulation's monotone keys: nothing is
 * pushed before the last entry taken.
 *
 * Layout (after Tang, Goh and Thng's ladder queue): a coarse rung of buckets
 * over a window of time, each bucket about COARSE entries; the current
 * coarse bucket split into a fine rung of buckets of a few entries each;
 * and, past the window, an unsorted overflow list. A fine bucket is sorted
 * when the clock reaches it. An entry costs a few appends, each to a bucket
 * tail that is in cache because few buckets are live at each level, one
 * short sort and one read, whatever the number of pending events. Internal
 * to sim/core; upper layers use SimEngine.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core-debug.h"

/* Bits of the order word given to the sequence number; the phase takes the
 * rest. 2^56 events is far beyond any run (about 90 years at 25 M
 * events/s). */
#define SIM_QUEUE_SEQ_BITS 56

typedef struct SimQueueEntry {
    uint64_t time_ps;
    uint64_t order; /* phase << SIM_QUEUE_SEQ_BITS | seq */
    uint32_t slot;  /* the event's slot in the pool */
} SimQueueEntry;

static inline uint64_t
sim_queue_order(uint8_t phase, uint64_t seq)
{
    return (uint64_t)phase << SIM_QUEUE_SEQ_BITS | seq;
}

static inline uint8_t
sim_queue_order_phase(uint64_t order)
{
    return (uint8_t)(order >> SIM_QUEUE_SEQ_BITS);
}

static inline bool
sim_queue_entry_before(const SimQueueEntry *a, const SimQueueEntry *b)
{
    return a->time_ps < b->time_ps || (a->time_ps == b->time_ps && a->order < b->order);
}

typedef struct SimQueueBucket {
    SimQueueEntry *entries;
    uint32_t n_entries;
    uint32_t capacity;
} SimQueueBucket;

/* One rung: n_buckets buckets of 2^shift ps from base_ps; bucket cur and
 * the ones before it are empty or being drained below. */
typedef struct SimQueueRung {
    SimQueueBucket *buckets; /* capacity kept across rebuilds */
    uint32_t n_buckets;
    uint32_t capacity;
    uint32_t cur;
    unsigned shift;
    uint64_t base_ps;
    uint64_t last_ps; /* end of the rung, inclusive */
} SimQueueRung;

typedef struct SimQueue {
    SimQueueRung coarse;     /* the window, over the overflow list's front */
    SimQueueRung fine;       /* coarse bucket coarse.cur, split */
    uint32_t cur_read;       /* next entry of fine bucket fine.cur, which is sorted */
    SimQueueBucket side;     /* entries of fine bucket fine.cur pushed out of order: a min-heap */
    bool top_from_side;      /* the entry sim_queue_top returned is side's */
    SimQueueBucket overflow; /* entries after coarse.last_ps, unsorted */
    uint64_t taken_ps;       /* time of the last entry taken */
    size_t n_entries;
    uint64_t n_rebuilds; /* coarse rungs built from the overflow list */
} SimQueue;

void sim_queue_init(SimQueue *q);
void sim_queue_clear(SimQueue *q);

/* The slow paths of the inline functions below. */
void sim_queue_bucket_grow(SimQueueBucket *b);
void sim_queue_insert_current(SimQueue *q, uint64_t time_ps, uint64_t order, uint32_t slot);
void sim_queue_advance(SimQueue *q);
const SimQueueEntry *sim_queue_top_side(SimQueue *q);
void sim_queue_pop_side(SimQueue *q);

/* The bucket of rung r that time t falls in; a time before the rung (only
 * possible when the clock stopped short of it at a time limit) counts as
 * bucket 0. */
static inline uint64_t
sim_queue_rung_index(const SimQueueRung *r, uint64_t t)
{
    return t >= r->base_ps ? (t - r->base_ps) >> r->shift : 0;
}

/* Adds an entry; time_ps must not be before the last entry taken. The
 * fields are stored one by one: building a SimQueueEntry on the stack and
 * copying it costs a store-forwarding stall on every push. */
static inline void
sim_queue_push(SimQueue *q, uint64_t time_ps, uint64_t order, uint32_t slot)
{
    SIM_HOT_ASSERT(time_ps >= q->taken_ps);
    q->n_entries++;
    SimQueueBucket *b = &q->overflow;
    if (q->coarse.n_buckets > 0 && time_ps <= q->coarse.last_ps) {
        uint64_t coarse = sim_queue_rung_index(&q->coarse, time_ps);
        if (coarse > q->coarse.cur) {
            b = &q->coarse.buckets[coarse];
        } else {
            /* In the current coarse bucket, or before it: the fine rung. */
            uint64_t fine = sim_queue_rung_index(&q->fine, time_ps);
            if (fine <= q->fine.cur) {
                sim_queue_insert_current(q, time_ps, order, slot);
                return;
            }
            b = &q->fine.buckets[fine];
        }
    }
    if (b->n_entries == b->capacity)
        sim_queue_bucket_grow(b);
    SimQueueEntry *e = &b->entries[b->n_entries++];
    e->time_ps = time_ps;
    e->order = order;
    e->slot = slot;
}

/* The smallest entry, without removing it; valid until the next push or
 * pop. The queue must not be empty. */
static inline const SimQueueEntry *
sim_queue_top(SimQueue *q)
{
    SIM_HOT_ASSERT(q->n_entries > 0);
    if (q->side.n_entries > 0)
        return sim_queue_top_side(q);
    const SimQueueRung *fine = &q->fine;
    if (fine->n_buckets == 0 || q->cur_read == fine->buckets[fine->cur].n_entries)
        sim_queue_advance(q);
    return &fine->buckets[fine->cur].entries[q->cur_read];
}

/* Removes the entry sim_queue_top returned. */
static inline void
sim_queue_pop(SimQueue *q)
{
    if (q->side.n_entries > 0) {
        sim_queue_pop_side(q);
        return;
    }
    q->taken_ps = q->fine.buckets[q->fine.cur].entries[q->cur_read].time_ps;
    q->cur_read++;
    q->n_entries--;
}

/* An entry that will be taken soon after the top (about k entries later),
 * or NULL: a hint for prefetching its event, not an order guarantee. */
static inline const SimQueueEntry *
sim_queue_ahead(const SimQueue *q, uint32_t k)
{
    const SimQueueBucket *b = &q->fine.buckets[q->fine.cur];
    uint32_t i = q->cur_read + k;
    if (i < b->n_entries)
        return &b->entries[i];
    i -= b->n_entries;
    if (q->fine.cur + 1 < q->fine.n_buckets && i < b[1].n_entries)
        return &b[1].entries[i];
    return NULL;
}

/* True when every entry sits where its time puts it, the current bucket is
 * sorted and the counts agree (a test and debug aid; O(n)). */
bool sim_queue_is_valid(const SimQueue *q);
