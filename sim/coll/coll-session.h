/* SPDX-License-Identifier: Apache-2.0 */
/* A collective session: the calls of a run that shares one engine and one
 * network with other work (a training step's compute, its other calls and
 * transfers): CODES' request and completion, one level up.
 *
 * Before the run, each call shape is prepared once: its time alone
 * (coll_run: NCCL's choice and its schedule, on GPUs that sit in their
 * nodes as the call's do, on the first nodes) and the traffic of that
 * schedule, one flow per connection of the algorithm NCCL picked (ring,
 * tree, NVLS, NVLS-tree, direct ...; coll_run_traffic), with how long
 * those flows take alone. A transfer (one rank's send to another) is
 * prepared the same way: one flow, and its kernel's launch.
 *
 * During the run (coll_session_attach: the caller's engine and network,
 * borrowed) a prepared call starts on its own GPUs: its flows go on the
 * network relocated there (a rank's flows to its GPU, a node's switches
 * to the node of the call's ranks), and it ends as much later than alone
 * as its flows take longer than alone:
 *     end = start + alone + max(0, flows here - flows alone),
 * so a call alone ends exactly when coll_run says, and one whose links
 * are shared ends later by what the sharing costs its traffic. Starting
 * allocates nothing and looks nothing up.
 *
 * What a shared network sees of a call is its connections' bytes, each
 * over the call's time as a fluid flow, not its messages one by one (a
 * training step makes thousands of calls; their messages would be most
 * of its events). Symmetric systems are assumed: a shape's cost is
 * measured once, where its GPUs sit in their nodes.
 *
 * Analytic (no flows on the network, and none simulated but a transfer's
 * own): each call and copy in flight asks of every link its traffic
 * crosses the rate of its bytes over its time alone; a call starting when
 * some link of its own is asked for more than it carries (its rate less
 * its packets' headers) by everything in flight, itself included, is
 * slowed by the worst such ratio r: end = start + alone x r. A closed
 * form, one event a call: what it leaves out is that a call starting
 * later slows the ones already running, and max-min's sharing between
 * unequal flows. What a call and its copies ask is summed per link when
 * they are placed, before the run; a start adds it, with no route.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll/coll.h"
#include "core/core-engine.h"
#include "hw/hw-system.h"
#include "net/net.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

#define COLL_SESSION_NONE UINT32_MAX

typedef struct CollSession CollSession;

/* Shapes prepared once for the sessions of many runs on one system's graph
 * and routing (a sweep's points on one system and node count, on any
 * threads): a session given them takes a shape that another has prepared
 * at its tier (fidelity, analytic, launch) instead of simulating it again,
 * and gives them those it simulates. Thread-safe; they outlive the
 * sessions. coll_shapes_size: how many they hold. */
typedef struct CollShapes CollShapes;
CollShapes *coll_shapes_new(void);
void coll_shapes_free(CollShapes *shapes);
guint coll_shapes_size(CollShapes *shapes);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CollShapes, coll_shapes_free)

/* Calls on system's graph at fidelity. analytic: calls put nothing on the
 * network and take their time alone, stretched by a closed form of what
 * their links are asked for. launch_ps: what a transfer's kernel adds to
 * its flow. shared: shapes shared with other sessions on the same graph
 * (borrowed), or NULL. */
CollSession *coll_session_new(const HwSystem *system, const TopoGraph *graph,
                              const TopoRouter *router, NetFidelity fidelity, bool analytic,
                              uint64_t launch_ps, CollShapes *shared);
void coll_session_free(CollSession *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CollSession, coll_session_free)

/* Prepares op of n_bytes (nccl-tests' size, 2-byte elements) on the n
 * GPUs gpus (ascending global numbers, as coll_comm_new_gpus takes them)
 * and returns its shape, the one of every call of the same op and size
 * whose GPUs sit in their nodes alike; COLL_SESSION_NONE and error when
 * the collectives layer cannot run it. One GPU: a call of no time. */
uint32_t coll_session_prepare(CollSession *s, CollOp op, uint64_t n_bytes, const uint32_t *gpus,
                              uint32_t n, GError **error);
/* Prepares a transfer of n_bytes from GPU src to GPU dst. */
uint32_t coll_session_prepare_transfer(CollSession *s, uint32_t src, uint32_t dst,
                                       uint64_t n_bytes);

uint32_t coll_session_n_shapes(const CollSession *s);
/* A shape's time alone, and the channels its kernel runs (one CTA each on
 * every GPU of the call; 0 for a transfer). */
uint64_t coll_session_alone_ps(const CollSession *s, uint32_t shape);
uint32_t coll_session_channels(const CollSession *s, uint32_t shape);
/* How long its flows take alone (0 analytic, but for a transfer), and
 * how many there are. */
uint64_t coll_session_flows_ps(const CollSession *s, uint32_t shape);
uint32_t coll_session_n_flows(const CollSession *s, uint32_t shape);

/* Where shape's calls run: on gpus (the call's ranks' GPUs, as prepared,
 * valid while the session is; or a transfer's source and destination,
 * copied), each with the copies replicas make of it on gpus[i] +
 * shifts[k] for k < n_shifts (their traffic on the network too, which may
 * slow it; analytic, what they ask of the links). Before attach. */
uint32_t coll_session_place(CollSession *s, uint32_t shape, const uint32_t *gpus,
                            const uint32_t *shifts, uint32_t n_shifts);

/* Runs calls on engine and net (borrowed; net on engine, of the session's
 * fidelity): a started call's end is an event of handler on_end with the
 * call's tag as target; tags are below n_tags. Once, after every place. */
void coll_session_attach(CollSession *s, SimEngine *engine, NetModel *net, SimHandlerId on_end,
                         uint32_t n_tags);
/* Starts a call of place now, tagged tag, and its replicas' copies. */
void coll_session_start(CollSession *s, uint32_t place, uint32_t tag);
/* The caller has handled the end of the call tagged tag: analytic, what
 * it and its copies asked of their links is free again. */
void coll_session_end(CollSession *s, uint32_t tag);
/* The links shape's traffic on gpus[i] + shift crosses: set in bits when
 * it is not NULL; true when one of them is set in test (not NULL). */
bool coll_session_links(const CollSession *s, uint32_t shape, const uint32_t *gpus, uint32_t shift,
                        guint8 *bits, const guint8 *test);
/* Flows put on the network since attach: by started calls, and by their
 * copies. */
void coll_session_counts(const CollSession *s, uint64_t *n_flows, uint64_t *n_load_flows);
