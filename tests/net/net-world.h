/* SPDX-License-Identifier: Apache-2.0 */
/* The hand-made worlds the sim/net suites run traffic in: a few GPUs,
 * switches and CPUs joined by test links, an engine and a network of either
 * fidelity, and the checks every run must pass. */
#pragma once

#include <check.h>

#include "core/core-engine.h"
#include "core/core-time.h"
#include "net/net-packet.h"
#include "net/net.h"
#include "topo/topo-graph.h"
#include "topo/topo-route.h"

#define RATE UINT64_C(25000000000) /* bytes/s per link and direction */
#define LAT UINT64_C(100000)       /* link latency, 100 ns */
#define SW_LAT UINT64_C(250000)    /* switch port to port, 250 ns */
#define HEADER UINT64_C(16)
#define PAYLOAD UINT64_C(256) /* copy-engine packets */
#define REPLAY UINT64_C(1000000)
#define PCIE_LAT UINT64_C(120000) /* PCIe switch port to port */
#define CPU_LAT UINT64_C(80000)   /* crossing the CPU's root complex */
#define MAX_SENDS 64

/* What the on_done handler saw, by cookie. */
typedef struct Done {
    uint64_t time_ps[MAX_SENDS];
    uint64_t bytes[MAX_SENDS];
    uint32_t n_calls[MAX_SENDS];
    uint32_t n;
} Done;

/* A hand-made system: the specs live here, the graph borrows them. */
typedef struct World {
    NetFidelity fidelity; /* packet unless set after world_init */
    HwLink link;
    HwSwitch sw;
    SimEngine *engine;
    TopoGraph *graph;
    TopoRouter *router;
    NetModel *net;
    SimHandlerId done_handler;
    Done done;
    NetStats stats;
    uint64_t trace_hash;
} World;

/* An empty graph and the test link and switch. */
void world_init(World *w);
/* Graphs: two GPUs by one bundle; n GPUs around one switch; two switches
 * joined by a bundle of 2 with n GPUs each; GPUs 0-3 behind two PCIe
 * switches on one CPU (returns the CPU's vertex). */
void world_pair(World *w, uint32_t n_links);
void world_star(World *w, uint32_t n_gpus, uint32_t n_links);
void world_two_switches(World *w, uint32_t n_per_leaf);
uint32_t world_host(World *w);
/* Engine, router and network of w->fidelity, with seed. */
void world_start(World *w, uint64_t seed);
/* Sends n_bytes now; the landing time is done.time_ps[cookie]. */
void world_send_as(World *w, uint32_t src, uint32_t dst, uint64_t n_bytes, uint64_t cookie,
                   NetIssuer issuer);
void world_send(World *w, uint32_t src, uint32_t dst, uint64_t n_bytes, uint64_t cookie);
/* The same, copy-engine packets, produced at max_bytes_per_s (0: at once)
 * and in send queue (0: none). */
void world_send_paced(World *w, uint32_t src, uint32_t dst, uint64_t n_bytes, uint64_t cookie,
                      uint64_t max_bytes_per_s, uint32_t queue);
/* Runs to the end; checks every send landed once, bytes sent == bytes
 * delivered and, at packet fidelity, credits never below 0 and all back. */
void world_run(World *w);
void world_free(World *w);
/* Serialization of wire_bytes (ps). */
uint64_t ser(uint64_t wire_bytes, uint64_t bytes_per_s);
/* What a full packet adds after the last one left its source on
 * GPU-switch-GPU at one rate: its second hop, two latencies, the switch. */
uint64_t star_tail_ps(uint64_t bytes_per_s);
