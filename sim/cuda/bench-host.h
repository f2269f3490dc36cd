/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim-bench, host side: what the real-GPU backend does without a GPU.
 * Its command line (nccl-tests' options), the sweep of message sizes, the
 * timing reductions (median, algbw, busbw as nccl-tests defines them), the
 * rows it writes in the schema of shared/reference/collectives.csv, and the
 * reference results --check compares the device's output with. Plain C: no
 * CUDA header, so all of it builds and is unit-tested on any machine.
 *
 * The input pattern (the device code must fill its buffers with exactly
 * this): rank r, element i of its send buffer holds
 *     bench_input_value(r, i) = (float)((r + 1) * ((i % 97) + 1))
 * Every value is a small integer, so sums over ranks are exact in float in
 * any order as long as 97 * n(n + 1) / 2 < 2^24, that is up to 587 ranks;
 * --check can then demand equality (rel_tol 0) for float sums.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "coll/coll.h"

/* The subcommands. */
typedef enum BenchMode {
    BENCH_MODE_COLL,      /* one collective over GPUs, sweeping sizes */
    BENCH_MODE_GPU,       /* the GPUs and links of this machine */
    BENCH_MODE_LOOPBACK,  /* K ranks on one GPU: the harness without a fabric */
    BENCH_MODE_INTERFERE, /* kernels beside a copy kernel of N CTAs, as beside NCCL's */
} BenchMode;

/* The most rank counts one loopback run sweeps (--ranks 2,4,8). */
#define BENCH_MAX_RANK_COUNTS 16

/* A parsed command line. Strings are owned (bench_args_clear frees them). */
typedef struct BenchArgs {
    BenchMode mode;
    CollOp op;            /* coll, loopback: --op (loopback: all_reduce by default) */
    uint64_t min_bytes;   /* -b, default 32 MiB as nccl-tests */
    uint64_t max_bytes;   /* -e, default 32 MiB */
    uint64_t step_factor; /* -f, at least 2; default 2 */
    uint32_t n_gpus;      /* coll: --gpus; 0 = every visible GPU */
    uint32_t rank_counts[BENCH_MAX_RANK_COUNTS]; /* loopback: --ranks K[,K...], each >= 2 */
    uint32_t n_rank_counts;
    uint32_t n_iters, n_warmup; /* --iters (default 20), --warmup (default 5) */
    bool check;                 /* coll: --check */
    char *csv_path;             /* --csv; NULL = standard output */
    char *system;               /* coll, loopback: --system, nvlsim's id; NULL if not given */
    char *dtype;                /* coll: --datatype as nccl-tests names it; "float" */
    uint32_t dtype_bytes;       /* bytes per element of dtype */
} BenchArgs;

/* Parses argv[1] (the subcommand: coll, gpu, loopback or interfere) and its options:
 *   coll --op OP [-b MIN] [-e MAX] [-f FACTOR] [--gpus N] [--iters K]
 *        [--warmup W] [--check] [--csv FILE] [--system NAME] [--datatype T]
 *   gpu [--csv FILE] [--iters K]
 *   interfere [--csv FILE] [--iters K]
 *   loopback --ranks K[,K...] [--op all_reduce|all_gather] [-b MIN] [-e MAX]
 *        [-f FACTOR] [--iters K] [--csv FILE] [--system NAME]
 * Sizes are bytes ("8"), nccl-tests' suffixes K, M, G, T (powers of 1024:
 * "128M" = 134217728) or nvlsim's units ("4MiB", "1GB" = 10^9). argv is not
 * modified. On error sets a one-line error naming the option or argument,
 * returns false and leaves *out cleared (bench_args_clear is still safe). */
bool bench_parse_args(int argc, char **argv, BenchArgs *out, GError **error);

/* Frees the strings of args and zeroes it. */
void bench_args_clear(BenchArgs *args);

/* The sizes of a sweep in bytes, as nccl-tests runs them: min, min × factor,
 * min × factor², ... while <= max, each rounded down to a multiple of unit;
 * sizes that round to zero are dropped. Returns a new GArray of uint64_t
 * (the caller frees it). factor >= 2, unit >= 1. */
GArray *bench_sizes(uint64_t min_bytes, uint64_t max_bytes, uint64_t factor, uint64_t unit_bytes);

/* The unit sizes are rounded to: elem_bytes × n_ranks for all_gather,
 * reduce_scatter and alltoall (every rank's share is whole elements),
 * elem_bytes otherwise. */
uint64_t bench_size_unit_bytes(CollOp op, uint32_t n_ranks, uint32_t elem_bytes);

/* The same for the loopback kernel, which moves 16-byte vectors: an
 * all_gather's share of each rank is whole vectors (16 × n_ranks). */
uint64_t bench_loopback_unit_bytes(CollOp op, uint32_t n_ranks);

/* nvlsim's id of the loopback model of a GPU CUDA names gpu_name:
 * "loopback-" and the model's first word after "NVIDIA", in lower case
 * ("NVIDIA H200" gives "loopback-h200"). Newly allocated. */
char *bench_loopback_system_id(const char *gpu_name);

/* The median of n > 0 samples (mean of the two middle ones when n is even);
 * samples is not modified. */
double bench_median_us(const double *samples_us, guint n);

/* nccl-tests' algorithm bandwidth: bytes / time, in bytes per second. */
double bench_algbw_bytes_per_s(uint64_t n_bytes, double time_us);

/* nccl-tests' bus bandwidth: algbw × coll_busbw_factor(op, n_ranks), in
 * bytes per second. */
double bench_busbw_bytes_per_s(CollOp op, uint32_t n_ranks, uint64_t n_bytes, double time_us);

/* One measured row. NULL strings are written as empty fields. */
typedef struct BenchRow {
    const char *system;        /* column system: the machine in words */
    const char *nvlsim_system; /* column nvlsim_system: the id of models/system */
    const char *gpu;           /* column gpu: the device name CUDA reports */
    const char *generation;    /* column generation: "Hopper" */
    const char *nvlink_gen;    /* column nvlink_gen: "NVLink4 + NVSwitch gen3" */
    uint32_t n_gpus, n_nodes;
    const char *collective; /* "all_reduce" (coll_op_name) or a p2p_* measure */
    const char *algorithm;  /* "Ring" where the kernel is fixed; NULL: NCCL's choice */
    const char *protocol;   /* "Simple" likewise */
    const char *dtype;      /* "float"; empty for p2p rows */
    uint64_t n_bytes;
    double time_us;
    double algbw_bytes_per_s, busbw_bytes_per_s; /* written in GB/s (10^9 bytes) */
    bool in_place;
    const char *nccl_version;                  /* column nccl_version: "2.21.5" */
    const char *bench_version;                 /* with gpu and date, column source_url */
    const char *date;                          /* "2025-01-31" */
    const char *driver_version, *cuda_version; /* no columns: into source_note */
    const char *note;                          /* more text for source_note */
} BenchRow;

/* The header line (without newline): exactly that of collectives.csv. */
const char *bench_csv_header(void);

/* Writes the header and n rows to out in the schema of collectives.csv.
 * The algorithm and protocol columns are empty (NCCL's own choice) unless
 * the row names them;
 * source_url holds "nvlsim-bench VERSION on GPU, DATE" (the row was measured
 * here, there is no address); source_note holds "driver X; CUDA Y; NOTE"
 * for the parts given. Times are in us, bandwidths in GB/s, in_place 1 or
 * 0; fields are quoted as sim_csv_put quotes them (a comma, quote or
 * line break, or a blank at either end). Sets error (G_FILE_ERROR) and returns false if writing
 * fails. */
bool bench_csv_write(FILE *out, const BenchRow *rows, guint n, GError **error);

/* The input pattern of the header comment: rank's element i. */
float bench_input_value(uint32_t rank, size_t i);

/* Fills buf[0 .. count) with rank's input pattern. */
void bench_input_fill(float *buf, uint32_t rank, size_t count);

/* The result of a sum all-reduce of count elements over n_ranks ranks
 * holding the input pattern, into out[0 .. count). */
void bench_expected_allreduce(float *out, uint32_t n_ranks, size_t count);

/* The result of an all-gather of count_per_rank elements from each of
 * n_ranks ranks (rank r sends its pattern's first count_per_rank elements),
 * into out[0 .. n_ranks × count_per_rank). */
void bench_expected_allgather(float *out, uint32_t n_ranks, size_t count_per_rank);

/* What rank receives from a sum reduce-scatter of n_ranks × count_per_rank
 * elements (every rank's send buffer holds the pattern over the whole
 * length), into out[0 .. count_per_rank): its slice of the all-reduce. */
void bench_expected_reduce_scatter(float *out, uint32_t n_ranks, uint32_t rank,
                                   size_t count_per_rank);

/* Compares got with want element by element: an element is bad when it is
 * NaN or |got - want| > rel_tol × |want| (rel_tol 0: exact). Returns true
 * when all n are good; *first_bad (if not NULL) gets the index of the first
 * bad element, or n when there is none. */
bool bench_check_floats(const float *got, const float *want, size_t n, double rel_tol,
                        size_t *first_bad);
