/* SPDX-License-Identifier: Apache-2.0 */
/* The event: a fixed-size record the engine queues and hands to a handler.
 *
 * The engine gives meaning only to time_ps and handler; target and arg are
 * the handler's (a link id, a byte count, a flow id ...), so the engine
 * names no hardware type. 64 bytes: one cache line.
 */
#pragma once

#include <stdint.h>

/* Index into the engine's handler table (see sim_engine_register). */
typedef uint32_t SimHandlerId;

/* Tie-break class among events at the same time: lower phases run first;
 * within a phase, events run in the order they were scheduled. */
typedef uint8_t SimPhase;

#define SIM_EVENT_N_ARGS 6

typedef struct SimEvent {
    uint64_t time_ps;               /* when it fires (set by the engine) */
    SimHandlerId handler;           /* which handler runs it */
    uint32_t target;                /* the component it is for; the handler's meaning */
    uint64_t arg[SIM_EVENT_N_ARGS]; /* payload; the handler's meaning */
} SimEvent;
