/* The pending-event queue: a calendar of time buckets with an overflow list
 * (a two-rung ladder queue), ordered by the key (time_ps, phase, seq).
 *
 * The order word packs the event's phase (8 bits) above its schedule
 * sequence number (56 bits): no two keys are equal, so the dispatch order is
 * total. The queue relies on the simulation's monotone keys: nothing is
 * pushed before the last entry taken.
 *
 * Layout: a window of n_buckets buckets, each 2^shift ps wide, starting at
 * base_ps; entries later than the window wait, unsorted, in the overflow
 * list. Buckets are sorted only when the clock reaches them, so an entry
 * costs one append, one short sort and one read (plus one move out of the
 * overflow list), whatever the number of pending events. When the window is
 * drained, it is rebuilt around the overflow list. Internal to sim/core;
 * upper layers use SimEngine.
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

typedef struct SimQueue {
    SimQueueBucket *buckets; /* the window; capacity kept across rebuilds */
    uint32_t n_buckets;      /* buckets in the current window */
    uint32_t buckets_capacity;
    uint32_t cur;            /* the bucket being drained; it is sorted */
    uint32_t cur_read;       /* next entry to take from it */
    unsigned shift;          /* bucket width is 2^shift ps */
    uint64_t base_ps;        /* start of bucket 0 */
    uint64_t last_ps;        /* end of the window, inclusive */
    SimQueueBucket overflow; /* entries after last_ps, unsorted */
    uint64_t overflow_max_ps;
    uint64_t taken_ps;       /* time of the last entry taken */
    size_t n_entries;
    uint64_t n_rebuilds;
} SimQueue;

void sim_queue_init(SimQueue *q);
void sim_queue_clear(SimQueue *q);

/* The slow paths of the inline functions below. */
void sim_queue_bucket_grow(SimQueueBucket *b);
void sim_queue_insert_current(SimQueue *q, const SimQueueEntry *entry);
void sim_queue_advance(SimQueue *q);

/* Adds an entry; its time must not be before the last entry taken. */
static inline void
sim_queue_push(SimQueue *q, const SimQueueEntry *entry)
{
    SIM_HOT_ASSERT(entry->time_ps >= q->taken_ps);
    q->n_entries++;
    uint64_t t = entry->time_ps;
    SimQueueBucket *b = &q->overflow;
    if (q->n_buckets > 0 && t <= q->last_ps) {
        /* Before the window's start only if the clock stopped short of it
         * (a time limit): the entry then precedes everything in it. */
        uint64_t idx = t >= q->base_ps ? (t - q->base_ps) >> q->shift : 0;
        if (idx <= q->cur) {
            sim_queue_insert_current(q, entry);
            return;
        }
        b = &q->buckets[idx];
    }
    if (b->n_entries == b->capacity)
        sim_queue_bucket_grow(b);
    b->entries[b->n_entries++] = *entry;
}

/* The smallest entry, without removing it; valid until the next push or
 * pop. The queue must not be empty. */
static inline const SimQueueEntry *
sim_queue_top(SimQueue *q)
{
    SIM_HOT_ASSERT(q->n_entries > 0);
    if (q->n_buckets == 0 || q->cur_read == q->buckets[q->cur].n_entries)
        sim_queue_advance(q);
    return &q->buckets[q->cur].entries[q->cur_read];
}

/* Removes the entry sim_queue_top returned. */
static inline void
sim_queue_pop(SimQueue *q)
{
    q->taken_ps = q->buckets[q->cur].entries[q->cur_read].time_ps;
    q->cur_read++;
    q->n_entries--;
}

/* An entry that will be taken soon after the top (about k entries later),
 * or NULL: a hint for prefetching its event, not an order guarantee. */
static inline const SimQueueEntry *
sim_queue_ahead(const SimQueue *q, uint32_t k)
{
    const SimQueueBucket *b = &q->buckets[q->cur];
    uint32_t i = q->cur_read + k;
    if (i < b->n_entries)
        return &b->entries[i];
    i -= b->n_entries;
    if (q->cur + 1 < q->n_buckets && i < b[1].n_entries)
        return &b[1].entries[i];
    return NULL;
}

/* True when every entry sits where its time puts it, the current bucket is
 * sorted and the counts agree (a test and debug aid; O(n)). */
bool sim_queue_is_valid(const SimQueue *q);
