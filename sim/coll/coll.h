/* SPDX-License-Identifier: Apache-2.0 */
/* Collectives as NCCL runs them: the vocabulary shared by the tuner (NCCL's
 * own cost model, which picks algorithm, protocol and channels) and the
 * executor (which turns a call into the transfers and reductions NCCL would
 * issue and runs them through net.h).
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum CollOp {
    COLL_OP_ALL_REDUCE,
    COLL_OP_ALL_GATHER,
    COLL_OP_REDUCE_SCATTER,
    COLL_OP_BROADCAST,
    COLL_OP_REDUCE,
    COLL_OP_ALLTOALL,
    COLL_OP_SENDRECV,
    COLL_N_OPS,
} CollOp;

typedef enum CollAlgo {
    COLL_ALGO_AUTO, /* NCCL's choice */
    COLL_ALGO_RING,
    COLL_ALGO_TREE,
    COLL_ALGO_NVLS,
    COLL_ALGO_NVLS_TREE,
    COLL_ALGO_DIRECT, /* all-pairs: alltoall, sendrecv */
    COLL_ALGO_PAT,
    COLL_ALGO_COLLNET_DIRECT, /* in-network reduction (SHARP): every GPU to the node's heads */
    COLL_ALGO_COLLNET_CHAIN,  /* in-network reduction (SHARP): a chain to one head per channel */
    COLL_N_ALGOS,
} CollAlgo;

typedef enum CollProto {
    COLL_PROTO_AUTO,
    COLL_PROTO_LL,    /* 8 B of data per 16 B line, flag in the line */
    COLL_PROTO_LL128, /* 120 B of data per 128 B line, flag in the line */
    COLL_PROTO_SIMPLE,
    COLL_N_PROTOS,
} CollProto;

/* NCCL's path types (src/include/graph.h:117-154), nearest first: how a
 * GPU reaches another GPU or its NIC. LL128 is enabled and latencies are
 * picked by them. */
typedef enum CollPath {
    COLL_PATH_LOC = 0, /* the same device */
    COLL_PATH_NVL = 1, /* NVLink, directly or through NVSwitch */
    COLL_PATH_NVB = 2, /* NVLink through an intermediate GPU */
    COLL_PATH_C2C = 3,
    COLL_PATH_PIX = 4, /* one PCIe switch */
    COLL_PATH_PXB = 5, /* several PCIe switches, not the CPU */
    COLL_PATH_P2C = 6, /* GPU to CPU over C2C, then PCIe */
    COLL_PATH_PXN = 7, /* through another GPU's PCIe (PXN) */
    COLL_PATH_PHB = 8, /* through the CPU's root complex */
    COLL_PATH_SYS = 9, /* across CPU sockets */
    COLL_PATH_NET = 10,
} CollPath;

/* Names as nccl-tests and NCCL spell them: "all_reduce", "ring", "LL128". */
const char *coll_op_name(CollOp op);
/* Whether op reduces (all_reduce, reduce, reduce_scatter). */
bool coll_op_reduces(CollOp op);
/* Whether nccl-tests' size of op is the whole buffer, a part for each
 * rank (all_gather, reduce_scatter, alltoall), so that it rounds sizes
 * down to an element for every rank. */
bool coll_op_sized_per_rank(CollOp op);
/* The bytes nccl-tests rounds op's sizes down to a whole number of: an
 * element, or one for every rank where the size is the whole buffer. */
uint64_t coll_op_unit_bytes(CollOp op, uint32_t elem_bytes, uint32_t n_ranks);
const char *coll_algo_name(CollAlgo algo);
const char *coll_proto_name(CollProto proto);
/* Parse a name (case-insensitive; ops also accept nccl-tests' short names
 * such as "allreduce"); false if unknown. */
bool coll_op_parse(const char *text, CollOp *op);
bool coll_algo_parse(const char *text, CollAlgo *algo);
bool coll_proto_parse(const char *text, CollProto *proto);

/* Bytes per element of a data type as nccl-tests names it ("float",
 * "bfloat16", "int64" ...; case-insensitive); 0 if unknown. */
uint32_t coll_dtype_bytes(const char *name);

/* nccl-tests' bus bandwidth factor: busbw = algbw × factor. */
double coll_busbw_factor(CollOp op, uint32_t n_ranks);
