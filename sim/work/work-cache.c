/* SPDX-License-Identifier: Apache-2.0 */
/* The runs' shared cache (see work-cache.h): worlds by system and node
 * count, each with its call shapes, behind one lock. A world is built
 * outside the lock; when two threads build the same one at once, the
 * first kept is everyone's. */
#include "work/work-cache.h"

typedef struct CacheWorld {
    TopoWorld *world;
    CollShapes *shapes;
} CacheWorld;

struct WorkCache {
    GMutex lock;
    GHashTable *worlds; /* "NODES/KEY" -> CacheWorld */
};

static void
cache_world_free(gpointer data)
{
    CacheWorld *w = data;
    topo_world_unref(w->world);
    coll_shapes_free(w->shapes);
    g_free(w);
}

WorkCache *
work_cache_new(void)
{
    WorkCache *cache = g_new0(WorkCache, 1);
    g_mutex_init(&cache->lock);
    cache->worlds = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, cache_world_free);
    return cache;
}

void
work_cache_free(WorkCache *cache)
{
    if (cache == NULL)
        return;
    g_hash_table_unref(cache->worlds);
    g_mutex_clear(&cache->lock);
    g_free(cache);
}

/* The cached world of name, a reference and its shapes; NULL if none. */
static TopoWorld *
find(WorkCache *cache, const char *name, CollShapes **shapes)
{
    CacheWorld *w = g_hash_table_lookup(cache->worlds, name);
    if (w == NULL)
        return NULL;
    *shapes = w->shapes;
    return topo_world_ref(w->world);
}

TopoWorld *
work_cache_world(WorkCache *cache, const char *key, HwSystem *system, uint32_t n_nodes,
                 CollShapes **shapes, GError **error)
{
    g_autoptr(HwSystem) owned = system;
    g_autofree char *name = g_strdup_printf("%u/%s", n_nodes, key);
    g_mutex_lock(&cache->lock);
    TopoWorld *world = find(cache, name, shapes);
    g_mutex_unlock(&cache->lock);
    if (world != NULL)
        return world;
    g_autoptr(TopoWorld) built =
        topo_world_for_gpus(g_steal_pointer(&owned), n_nodes, 0, NULL, error);
    if (built == NULL)
        return NULL;
    g_mutex_lock(&cache->lock);
    world = find(cache, name, shapes);
    if (world == NULL) {
        CacheWorld *w = g_new(CacheWorld, 1);
        w->world = topo_world_ref(built);
        w->shapes = coll_shapes_new();
        g_hash_table_insert(cache->worlds, g_steal_pointer(&name), w);
        *shapes = w->shapes;
        world = g_steal_pointer(&built);
    }
    g_mutex_unlock(&cache->lock);
    return world;
}

void
work_cache_counts(WorkCache *cache, guint *n_worlds, guint *n_shapes)
{
    g_mutex_lock(&cache->lock);
    *n_worlds = g_hash_table_size(cache->worlds);
    *n_shapes = 0;
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, cache->worlds);
    while (g_hash_table_iter_next(&it, NULL, &value))
        *n_shapes += coll_shapes_size(((CacheWorld *)value)->shapes);
    g_mutex_unlock(&cache->lock);
}
