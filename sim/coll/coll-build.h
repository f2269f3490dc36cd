/* Schedules: the programs NCCL's algorithms run, laid out on an executor
 * (coll-exec) for a communicator and a call plan. */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "coll/coll-exec.h"
#include "coll/coll-run.h"

typedef struct CollBuild {
    const CollComm *comm;
    const CollCall *call;
    CollAlgo algo;
    CollProto proto;
    CollTunePlan plan;
    CollExec *ex;
    uint32_t *rank_part; /* [n_ranks]: participant of each rank */
} CollBuild;

/* Each lays out call's schedule on b->ex; false and error when the
 * algorithm cannot run this call on this communicator. */
bool coll_build_ring(CollBuild *b, GError **error);
bool coll_build_tree(CollBuild *b, GError **error);
bool coll_build_nvls(CollBuild *b, GError **error);
bool coll_build_direct(CollBuild *b, GError **error);

/* The wire bytes per data byte of a protocol: LL 16/8, LL128 128/120. */
double coll_proto_wire_factor(CollProto proto);
