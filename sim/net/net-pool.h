/* SPDX-License-Identifier: Apache-2.0 */
/* Fixed-size records in one growable array, with a free list of indices
 * threaded through each record's first field (a uint32_t the record must
 * start with). Taking and giving back are O(1) and allocate only when the
 * pool doubles, so engines take a record per packet without a malloc per
 * packet. Callers keep indices, never pointers, across net_pool_take. */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#define NET_POOL_NONE UINT32_MAX

typedef struct NetPool {
    char *items;
    size_t item_bytes;
    uint32_t n_items, free_head;
} NetPool;

static inline void
net_pool_init(NetPool *pool, size_t item_bytes)
{
    *pool = (NetPool){.item_bytes = item_bytes, .free_head = NET_POOL_NONE};
}

/* Doubles the pool and threads the new records onto the free list. */
static inline void
net_pool_grow(NetPool *pool)
{
    uint32_t old = pool->n_items, n = old ? 2 * old : 256;
    g_assert(n > old && n < NET_POOL_NONE);
    pool->items = g_realloc_n(pool->items, n, pool->item_bytes);
    for (uint32_t i = old; i < n; i++)
        *(uint32_t *)(pool->items + i * pool->item_bytes) = i + 1 < n ? i + 1 : pool->free_head;
    pool->free_head = old;
    pool->n_items = n;
}

static inline uint32_t
net_pool_take(NetPool *pool)
{
    if (pool->free_head == NET_POOL_NONE)
        net_pool_grow(pool);
    uint32_t id = pool->free_head;
    pool->free_head = *(uint32_t *)(pool->items + id * pool->item_bytes);
    return id;
}

static inline void
net_pool_give(NetPool *pool, uint32_t id)
{
    *(uint32_t *)(pool->items + id * pool->item_bytes) = pool->free_head;
    pool->free_head = id;
}
