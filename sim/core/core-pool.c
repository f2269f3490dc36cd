/* SPDX-License-Identifier: Apache-2.0 */
/* Event-slot pool: chunk allocation and the free list.
 *
 * Chunks hold 1024 slots (64 KiB); the chunk table doubles when full. Slots
 * of a new chunk are chained in index order, so a fresh pool hands out 0, 1,
 * 2 ... and runs are reproducible slot for slot.
 */
#include "core/core-pool.h"

#include <glib.h>

void
sim_pool_init(SimPool *pool)
{
    *pool = (SimPool){.free_head = SIM_POOL_NONE};
}

void
sim_pool_clear(SimPool *pool)
{
    for (uint32_t i = 0; i < pool->n_chunks; i++)
        g_free(pool->chunks[i]);
    g_free(pool->chunks);
    sim_pool_init(pool);
}

void
sim_pool_grow(SimPool *pool)
{
    /* Slot indices are 32-bit and SIM_POOL_NONE is reserved. */
    g_assert(pool->n_slots <= UINT32_MAX - 2 * SIM_POOL_CHUNK_SLOTS);

    /* The chunk table grows by doubling, so its capacity is the next power of two. */
    if ((pool->n_chunks & (pool->n_chunks - 1)) == 0) {
        uint32_t capacity = pool->n_chunks ? 2 * pool->n_chunks : 1;
        pool->chunks = g_renew(SimEvent *, pool->chunks, capacity);
    }
    SimEvent *chunk = g_new0(SimEvent, SIM_POOL_CHUNK_SLOTS);
    pool->chunks[pool->n_chunks++] = chunk;

    uint32_t base = pool->n_slots;
    for (uint32_t i = 0; i < SIM_POOL_CHUNK_SLOTS - 1; i++)
        chunk[i].target = base + i + 1;
    chunk[SIM_POOL_CHUNK_SLOTS - 1].target = pool->free_head;
    pool->free_head = base;
    pool->n_slots += SIM_POOL_CHUNK_SLOTS;
    pool->n_grows++;
}
