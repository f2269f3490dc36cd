/* SPDX-License-Identifier: Apache-2.0 */
/* Event slots: fixed-size SimEvent records from chunks, with a free list.
 *
 * Scheduling takes a slot and dispatch returns it, so a steady-state run
 * allocates nothing. Slots live in chunks that never move, so a SimEvent
 * pointer stays valid while its event is pending, even when the pool grows.
 * Internal to sim/core.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "core/core-event.h"

#define SIM_POOL_CHUNK_BITS 10
#define SIM_POOL_CHUNK_SLOTS (1u << SIM_POOL_CHUNK_BITS)

typedef struct SimPool {
    SimEvent **chunks; /* each SIM_POOL_CHUNK_SLOTS slots */
    uint32_t n_chunks;
    uint32_t n_slots;   /* slots in all chunks */
    uint32_t free_head; /* first free slot, or SIM_POOL_NONE */
    uint32_t n_in_use;
    uint32_t high_water; /* most slots ever in use at once */
    uint32_t n_grows;    /* chunk allocations */
} SimPool;

#define SIM_POOL_NONE UINT32_MAX

void sim_pool_init(SimPool *pool);
void sim_pool_clear(SimPool *pool);

/* Adds a chunk; called by sim_pool_take when the free list is empty. */
void sim_pool_grow(SimPool *pool);

static inline SimEvent *
sim_pool_at(const SimPool *pool, uint32_t slot)
{
    return &pool->chunks[slot >> SIM_POOL_CHUNK_BITS][slot & (SIM_POOL_CHUNK_SLOTS - 1)];
}

/* Takes a free slot and returns its index. */
static inline uint32_t
sim_pool_take(SimPool *pool)
{
    if (pool->free_head == SIM_POOL_NONE)
        sim_pool_grow(pool);
    uint32_t slot = pool->free_head;
    /* A free slot's target field links it to the next free slot. */
    pool->free_head = sim_pool_at(pool, slot)->target;
    if (++pool->n_in_use > pool->high_water)
        pool->high_water = pool->n_in_use;
    return slot;
}

/* Returns a slot to the free list; it is the next one taken (LIFO keeps the
 * hot slots in cache). */
static inline void
sim_pool_give(SimPool *pool, uint32_t slot)
{
    sim_pool_at(pool, slot)->target = pool->free_head;
    pool->free_head = slot;
    pool->n_in_use--;
}
