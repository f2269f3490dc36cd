/* SPDX-License-Identifier: Apache-2.0 */
/* judge-log's parts (internal to sim/judge): a test as the log gives it,
 * before its fields are resolved and checked (judge-log-resolve.c), and
 * the state of one read. */
#pragma once

#include "hw/hw-gpu.h"
#include "judge/judge-log.h"

/* The columns of a table, as its header names them (-1: absent). */
typedef struct JudgeColumns {
    int size, type, redop, root;
    int time[2]; /* each group's time column; algbw, busbw, #wrong follow */
    int n_groups;
    int n_fields; /* the fields a row needs */
    bool cputime; /* nccl-tests -C: CPU time, not the GPU's */
} JudgeColumns;

typedef struct JudgeRank {
    uint32_t rank, line;
    char *host, *device;
} JudgeRank;

typedef struct JudgeRaw {
    uint32_t first_line, header_line, table_line;
    bool in_table;
    JudgeColumns columns;
    bool op_set;
    CollOp op;
    char *op_from;     /* what named it, "the command line (line 3)" */
    char *op_conflict; /* a second name that disagrees, or NULL */
    char *system;      /* nvlsim coll's own header names it; else NULL */
    uint32_t system_line;
    char *nccl_version;
    uint32_t n_threads, n_gpus_per_thread;
    bool cuda_graph, blocking;
    GPtrArray *env; /* char *: "NAME=VALUE", NCCL's "NAME set by environment to VALUE" lines */
    GArray *ranks;  /* JudgeRank */
    GArray *rows;   /* JudgeLogRow */
} JudgeRaw;

typedef struct JudgeParse {
    JudgeLog *log;
    const JudgeLogHints *hints;
    JudgeRaw *raw;   /* the test being gathered, or NULL */
    GPtrArray *gpus; /* HwGpu *: the GPU models, loaded when first needed */
} JudgeParse;

JudgeRaw *judge_raw_new(uint32_t line);
void judge_raw_free(JudgeRaw *raw);
void judge_raw_add_rank(JudgeRaw *raw, uint32_t rank, const char *host, const char *device,
                        uint32_t line);
/* The collective as from names it; a second that disagrees is kept to be
 * reported. */
void judge_raw_set_op(JudgeRaw *raw, CollOp op, const char *from, uint32_t line);

/* Resolves a gathered test (its collective, ranks, hosts, GPU and system,
 * from the log, the hints, or a stated rule) and checks its rows; a test
 * that resolves goes to p->log->tests, else a problem says why. */
void judge_resolve(JudgeParse *p, JudgeRaw *raw);

/* Reads nccl-tests' JSON output (-J) into p->log; false and an error when
 * it is not JSON or not nccl-tests'. */
bool judge_log_read_json(JudgeParse *p, const char *data, size_t length, GError **error);

/* "2.27.5" from NCCL's version code (22705; 2.8 and before: 2805); newly
 * allocated. */
char *judge_nccl_version_text(uint64_t code);

/* A malformed part: "PATH:LINE: what" into the log's problems. */
void judge_problem(JudgeParse *p, uint32_t line, const char *format, ...) G_GNUC_PRINTF(3, 4);

void judge_test_free(gpointer test);
void judge_parse_clear(JudgeParse *p);
