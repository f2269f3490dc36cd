/* SPDX-License-Identifier: Apache-2.0 */
/* nccl-tests' output as a cluster prints it, read into measured rows: the
 * text table (task prefixes of srun and mpirun, several tests in one log,
 * out-of-place and in-place groups, -G, -z, nvlsim coll's own output) and
 * nccl-tests' JSON (-J). Each test's header gives its collective, ranks,
 * hosts, GPU and NCCL version; what a header-less paste lacks comes from
 * hints (--system, --gpus, --nodes, --collective), and every field filled
 * by a hint or a rule is stated. The rows come out in the schema of
 * shared/reference/collectives.csv, so that validate replays them as it
 * replays the suite's.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll/coll-harness.h"
#include "coll/coll-run.h"
#include "core/core-csv.h"
#include "topo/topo-world.h"

/* What the command line says of a log (each unset when 0 or NULL). A hint
 * the log's header contradicts is an error. */
typedef struct JudgeLogHints {
    const char *system;     /* the nvlsim system it ran on */
    uint32_t n_gpus;        /* ranks */
    uint32_t n_nodes;       /* hosts, as the scheduler counts them */
    const char *collective; /* all_reduce ..., or nccl-tests' binary name all_reduce_perf */
    const char *nccl_env;   /* NCCL_* variables the run set (hw_nccl_env_parse), over the log's */
} JudgeLogHints;

/* One size of a test: nccl-tests' out-of-place [0] and in-place [1] groups. */
typedef struct JudgeLogRow {
    uint32_t line;
    uint64_t bytes;
    char type[16];  /* float, bfloat16 ... */
    char redop[16]; /* sum ..., none */
    int64_t root;   /* -1: none */
    bool has[2];
    double time_us[2], algbw[2], busbw[2];
    /* The values as printed, for their rounding. */
    char time_text[2][24], algbw_text[2][24], busbw_text[2][24];
} JudgeLogRow;

typedef struct JudgeLogTest {
    uint32_t line; /* the test's first line */
    CollOp op;
    char *system;       /* the nvlsim system its rows run on */
    char *device;       /* the GPU as the log names it; NULL when it does not */
    char *nccl_version; /* "2.27.5"; NULL when the log does not say */
    uint32_t n_ranks, n_hosts;
    uint32_t ranks_per_host;               /* 0: hosts hold different counts, or unknown */
    uint32_t n_threads, n_gpus_per_thread; /* nccl-tests -t and -g */
    bool cuda_graph, blocking;
    char *nccl_env;    /* the NCCL_* variables nvlsim models that the run set ("" none) */
    GArray *rows;      /* JudgeLogRow */
    GPtrArray *stated; /* char *: each field a hint or a rule filled, and from what */
} JudgeLogTest;

typedef struct JudgeLog {
    char *path;
    GPtrArray *tests;    /* JudgeLogTest *: those that can be replayed */
    GPtrArray *problems; /* char *: "PATH:LINE: what", one per malformed part */
} JudgeLog;

/* The largest log read whole (a log is read into memory; a larger file
 * is taken for a CSV table, which is read a row at a time). */
#define JUDGE_LOG_MAX_BYTES (UINT64_C(1) << 30)

/* Whether text (length bytes) is nccl-tests' output: a JSON object with
 * "results", or text holding its table header ("size count type ...
 * time algbw busbw"). */
bool judge_log_detect(const char *data, size_t length);

/* Errors of judge_log_open and judge_log_read (GLib's own where the file
 * cannot be read). */
#define JUDGE_LOG_ERROR (judge_log_error_quark())
GQuark judge_log_error_quark(void);
typedef enum JudgeLogError {
    JUDGE_LOG_ERROR_NOT_A_FILE, /* not a regular file, or larger than JUDGE_LOG_MAX_BYTES */
    JUDGE_LOG_ERROR_NOT_A_LOG,  /* judge_log_detect finds no nccl-tests output in it */
    JUDGE_LOG_ERROR_MALFORMED,  /* it looks like one and nothing in it can be read */
} JudgeLogError;

/* The nccl-tests log at path, read whole (a regular file of at most
 * JUDGE_LOG_MAX_BYTES) and parsed by judge_log_read; NULL and an error
 * naming path otherwise. */
JudgeLog *judge_log_open(const char *path, const JudgeLogHints *hints, GError **error);

/* Reads nccl-tests' output; path names it in messages. A malformed part
 * (a truncated table, a row whose columns do not add up, two GPU models,
 * a hint the header contradicts, a test whose collective or ranks cannot
 * be told) is a problem and its test or row is left out; the rest is read.
 * NULL and an error only when nothing in it is nccl-tests' output. */
JudgeLog *judge_log_read(const char *path, const char *data, size_t length,
                         const JudgeLogHints *hints, GError **error);
void judge_log_free(JudgeLog *log);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(JudgeLog, judge_log_free)

/* The rows of every test in the schema of shared/reference/collectives.csv
 * (a row per group and size; size 0 left out), each on its log line. */
SimCsv *judge_log_table(const JudgeLog *log);

/* How test t's calls were timed: blocking or back to back, one thread for
 * a host's GPUs (-g 2 or more) or a process each, in a CUDA graph (-G). */
CollHarness judge_log_test_harness(const JudgeLogTest *t);

/* The communicator of test t's ranks placed on system (taken: the world
 * made in *world owns it) as the log shows them (its hosts, GPUs a host;
 * the placement's defaults where it does not), NCCL run with the test's
 * nccl_env over the system's, and whether they cross NVLink domains
 * (networked, may be NULL). NULL and an error when the system cannot hold
 * them. */
CollComm *judge_log_test_comm(const JudgeLogTest *t, HwSystem *system, TopoWorld **world,
                              bool *networked, GError **error);

/* The collective nccl-tests' binary (or nvlsim's name) names: "all_reduce"
 * and "all_reduce_perf", "all_reduce_perf_mpi", a path to one; false when
 * it names none. */
bool judge_log_collective(const char *name, CollOp *op);
