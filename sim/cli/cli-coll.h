/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim coll's plan of a sweep (cli-coll.c parses it from the command
 * line) and the text nccl-tests prints for it (cli-coll-table.c).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "coll/coll-harness.h"
#include "coll/coll-run.h"
#include "net/net.h"
#include "topo/topo-fault.h"

typedef struct CollPlan {
    CollOp op;
    uint32_t n_gpus; /* 0: the system's GPUs per node */
    uint64_t min_bytes, max_bytes;
    uint64_t factor;     /* > 1: each size this times the last (nccl-tests -f) */
    uint64_t step_bytes; /* factor 1: each size this much more (nccl-tests -i) */
    CollAlgo algo;
    CollProto proto;
    NetFidelity fidelity;
    const char *dtype;
    uint32_t elem_bytes;
    const char *redop; /* nccl-tests -o: sum, prod, min, max, avg */
    uint32_t root;
    CollHarness harness;
    bool collnet; /* --collnet */
    /* nccl-tests' settings that change no simulated time, printed in its
     * first line as given: -t, -g (0: not given), -w, -c, -a. */
    uint32_t n_threads, n_gpus_per_thread;
    uint32_t n_warmup, n_check, average;
} CollPlan;

/* One size's row: the out-of-place and in-place groups of nccl-tests. */
typedef struct CollRowTime {
    double time_us, algbw_gb_per_s, busbw_gb_per_s; /* GB/s: 1e9 bytes/s */
} CollRowTime;

typedef struct CollRow {
    uint64_t n_bytes;    /* nccl-tests' size: the larger of send and receive buffers */
    uint64_t n_elements; /* nccl-tests' count: its per-rank parameter */
    const char *dtype;   /* "float" */
    const char *redop;   /* "none" where the collective reduces nothing */
    int root;            /* -1 where it has none */
    CollRowTime out_of_place, in_place;
    const CollResult *result; /* what ran */
} CollRow;

/* The collective of --collective (option) and the first argument (NULL:
 * not given; nccl-tests' all_reduce_perf names all_reduce); both given,
 * the same. */
bool cli_coll_parse_collective(const char *option, const char *argument, CollOp *op,
                               GError **error);
/* -o: nccl-tests' reduction (sum, prod, min, max, avg) into *redop. A
 * collective there is the old nvlsim -o: the message says where it went. */
bool cli_coll_parse_redop(const char *text, const char **redop, GError **error);

/* Whether bytes (given as text to --option) is at least unit; if not, a
 * usage error "expected at least UNIT B (a DTYPE[ for each rank])TAIL". */
bool cli_coll_check_unit(const char *option, const char *text, uint64_t bytes, uint64_t unit,
                         uint32_t elem_bytes, const char *dtype, const char *tail, GError **error);

/* nccl-tests' first lines for plan on comm: its settings, then "# Using
 * devices" and a line a rank, the GPUs the system model places them on
 * (no process or PCI bus: the line says so). */
void cli_coll_print_preamble(const CollPlan *plan, const CollComm *comm);

/* nvlsim's lines (what runs, how the time is taken, faults, --gpu-list's
 * rings; gpu_list NULL: none) and nccl-tests' three header lines with
 * nvlsim's columns after its own. */
void cli_coll_print_header(const CollPlan *plan, const CollComm *comm, const char *system_id,
                           const TopoFaults *faults, const uint32_t *gpu_list, uint32_t n_listed);

/* One data row as nccl-tests prints it, then nvlsim's columns. */
void cli_coll_print_row(const CollRow *row);

/* nccl-tests' footer: out-of-bounds values (none: nothing is checked)
 * and the mean bus bandwidth of every group of every row. */
void cli_coll_print_footer(double busbw_sum_gb_per_s, uint32_t n_groups);

/* The CSV header and a row of it (units in the column names). */
void cli_coll_csv_header(FILE *csv);
void cli_coll_csv_row(FILE *csv, const CollRow *row);
