/* SPDX-License-Identifier: Apache-2.0 */
/* What the runs of a sweep share: the world of each system and node count
 * (its graph and routing built once) and, in each world, the collective
 * session's call shapes (each simulated once, whichever point asks
 * first). Runs on any number of threads may share one cache; a run with
 * faults builds its own world. Results are the same bytes with or without
 * it: a shape's times depend only on its key, its world and its tier.
 */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "coll/coll-session.h"
#include "hw/hw-system.h"
#include "topo/topo-world.h"

typedef struct WorkCache WorkCache;

WorkCache *work_cache_new(void);
void work_cache_free(WorkCache *cache);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(WorkCache, work_cache_free)

/* The world of n_nodes of system (taken; key: the id or path it was loaded
 * by), from the cache or built and kept (a reference for the caller), and
 * its shared call shapes (the cache's). NULL and an error as
 * topo_world_for_gpus. */
TopoWorld *work_cache_world(WorkCache *cache, const char *key, HwSystem *system, uint32_t n_nodes,
                            CollShapes **shapes, GError **error);
/* Worlds built, and call shapes held in all of them. */
void work_cache_counts(WorkCache *cache, guint *n_worlds, guint *n_shapes);
