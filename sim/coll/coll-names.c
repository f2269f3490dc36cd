/* SPDX-License-Identifier: Apache-2.0 */
/* The words of sim/coll: collective, algorithm and protocol names as
 * nccl-tests and NCCL print them, the harness and launch-mode names of
 * the measurement schema, their parsers, and nccl-tests' bus
 * bandwidth factor. Pure functions of the enums; no state.
 *
 * Sources: the nccl-tests sources (binary names such as
 * all_reduce_perf; each test's getBw() sets busBw = algBw x factor), and
 * NCCL's ncclAlgoStr/ncclProtoStr (src/include/collectives.h) for the
 * spellings NCCL_ALGO and NCCL_PROTO accept.
 */
#include "coll/coll.h"

#include "coll/coll-harness.h"

/* Indexed by enum value; the first spelling is the one printed, the rest
 * are accepted by the parsers (compared case-insensitively after dropping
 * '_' and '-', so "AllReduce", "all-reduce" and "allreduce" are one name,
 * and NCCL's "CollNetDirect" is "collnet_direct"). */
static const char *const op_names[COLL_N_OPS] = {
    [COLL_OP_ALL_REDUCE] = "all_reduce",
    [COLL_OP_ALL_GATHER] = "all_gather",
    [COLL_OP_REDUCE_SCATTER] = "reduce_scatter",
    [COLL_OP_BROADCAST] = "broadcast",
    [COLL_OP_REDUCE] = "reduce",
    [COLL_OP_ALLTOALL] = "alltoall",
    [COLL_OP_SENDRECV] = "sendrecv",
};

static const char *const algo_names[COLL_N_ALGOS] = {
    [COLL_ALGO_AUTO] = "auto", [COLL_ALGO_RING] = "ring",           [COLL_ALGO_TREE] = "tree",
    [COLL_ALGO_NVLS] = "nvls", [COLL_ALGO_NVLS_TREE] = "nvls_tree", [COLL_ALGO_DIRECT] = "direct",
    [COLL_ALGO_PAT] = "pat",   [COLL_ALGO_COLLNET_DIRECT] = "collnet_direct",
    [COLL_ALGO_COLLNET_CHAIN] = "collnet_chain",
};

static const char *const proto_names[COLL_N_PROTOS] = {
    [COLL_PROTO_AUTO] = "auto",
    [COLL_PROTO_LL] = "LL",
    [COLL_PROTO_LL128] = "LL128",
    [COLL_PROTO_SIMPLE] = "Simple",
};

const char *
coll_op_name(CollOp op)
{
    g_return_val_if_fail((unsigned)op < COLL_N_OPS, "?");
    return op_names[op];
}

bool
coll_op_reduces(CollOp op)
{
    return op == COLL_OP_ALL_REDUCE || op == COLL_OP_REDUCE || op == COLL_OP_REDUCE_SCATTER;
}

bool
coll_op_sized_per_rank(CollOp op)
{
    return op == COLL_OP_ALL_GATHER || op == COLL_OP_REDUCE_SCATTER || op == COLL_OP_ALLTOALL;
}

uint64_t
coll_op_unit_bytes(CollOp op, uint32_t elem_bytes, uint32_t n_ranks)
{
    return (uint64_t)elem_bytes * (coll_op_sized_per_rank(op) ? n_ranks : 1);
}

const char *
coll_algo_name(CollAlgo algo)
{
    g_return_val_if_fail((unsigned)algo < COLL_N_ALGOS, "?");
    return algo_names[algo];
}

const char *
coll_proto_name(CollProto proto)
{
    g_return_val_if_fail((unsigned)proto < COLL_N_PROTOS, "?");
    return proto_names[proto];
}

/* True when text and name are equal ignoring case, '_' and '-'. */
static bool
same_word(const char *text, const char *name)
{
    for (;;) {
        while (*text == '_' || *text == '-')
            text++;
        while (*name == '_' || *name == '-')
            name++;
        if (*text == '\0' || *name == '\0')
            return *text == *name;
        if (g_ascii_tolower(*text) != g_ascii_tolower(*name))
            return false;
        text++;
        name++;
    }
}

/* The index of text among names[0..n), or -1. An empty text is no name. */
static int
find_word(const char *text, const char *const *names, int n)
{
    if (text == NULL || *text == '\0')
        return -1;
    for (int i = 0; i < n; i++)
        if (same_word(text, names[i]))
            return i;
    return -1;
}

bool
coll_op_parse(const char *text, CollOp *op)
{
    int i = find_word(text, op_names, COLL_N_OPS);
    if (i < 0)
        return false;
    *op = (CollOp)i;
    return true;
}

bool
coll_algo_parse(const char *text, CollAlgo *algo)
{
    int i = find_word(text, algo_names, COLL_N_ALGOS);
    if (i < 0)
        return false;
    *algo = (CollAlgo)i;
    return true;
}

bool
coll_proto_parse(const char *text, CollProto *proto)
{
    int i = find_word(text, proto_names, COLL_N_PROTOS);
    if (i < 0)
        return false;
    *proto = (CollProto)i;
    return true;
}

/* nccl-tests' getBw() per test: all_reduce 2(n-1)/n; all_gather,
 * reduce_scatter and alltoall (n-1)/n; broadcast, reduce and sendrecv 1. */
double
coll_busbw_factor(CollOp op, uint32_t n_ranks)
{
    g_return_val_if_fail(n_ranks > 0, 1.0);
    double n = n_ranks;
    switch (op) {
    case COLL_OP_ALL_REDUCE:
        return 2.0 * (n - 1.0) / n;
    case COLL_OP_ALL_GATHER:
    case COLL_OP_REDUCE_SCATTER:
    case COLL_OP_ALLTOALL:
        return (n - 1.0) / n;
    case COLL_OP_BROADCAST:
    case COLL_OP_REDUCE:
    case COLL_OP_SENDRECV:
        return 1.0;
    case COLL_N_OPS:
        break;
    }
    g_return_val_if_reached(1.0);
}

uint32_t
coll_dtype_bytes(const char *name)
{
    static const struct {
        const char *name;
        uint32_t bytes;
    } dtypes[] = {
        {"float", 4}, {"double", 8}, {"half", 2},   {"bfloat16", 2}, {"int8", 1},
        {"uint8", 1}, {"int32", 4},  {"uint32", 4}, {"int64", 8},    {"uint64", 8},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(dtypes); i++)
        if (g_ascii_strcasecmp(name, dtypes[i].name) == 0)
            return dtypes[i].bytes;
    return 0;
}

static const char *const harness_names[COLL_N_HARNESSES] = {"nccl-tests", "blocking"};
static const char *const launch_mode_names[COLL_N_LAUNCH_MODES] = {"mpi", "threads"};

const char *
coll_harness_kind_name(CollHarnessKind kind)
{
    g_return_val_if_fail((unsigned)kind < COLL_N_HARNESSES, "?");
    return harness_names[kind];
}

const char *
coll_launch_mode_name(CollLaunchMode mode)
{
    g_return_val_if_fail((unsigned)mode < COLL_N_LAUNCH_MODES, "?");
    return launch_mode_names[mode];
}

bool
coll_harness_kind_parse(const char *text, CollHarnessKind *kind)
{
    int i = find_word(text, harness_names, COLL_N_HARNESSES);
    if (i < 0)
        return false;
    *kind = (CollHarnessKind)i;
    return true;
}

bool
coll_launch_mode_parse(const char *text, CollLaunchMode *mode)
{
    int i = find_word(text, launch_mode_names, COLL_N_LAUNCH_MODES);
    if (i < 0)
        return false;
    *mode = (CollLaunchMode)i;
    return true;
}
