/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim-bench, device side: what the .cu files export to the host C code.
 * Plain C types only (no GLib, no CUDA header), so bench-main.c builds with
 * the C compiler and the .cu files with nvcc. Every call that can fail
 * returns 0 on success or -1 with a one-line message in err[0 .. err_len).
 * Buffers hold float; inputs follow bench-host.h's pattern exactly:
 * rank r, element i = (float)((r + 1) * ((i % 97) + 1)). */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What CUDA and NCCL say about this machine. */
typedef struct BenchDeviceInfo {
    char gpu_name[256];  /* device 0's name: "NVIDIA H200" */
    int n_gpus;          /* GPUs in use */
    int driver_version;  /* cudaDriverGetVersion: 13000 */
    int runtime_version; /* cudaRuntimeGetVersion */
    int nccl_version;    /* ncclGetVersion: 22703; 0 when NCCL is not used */
} BenchDeviceInfo;

/* The collectives bench_coll runs (sum, float; root 0). */
typedef enum BenchDevOp {
    BENCH_DEV_ALL_REDUCE,
    BENCH_DEV_ALL_GATHER,
    BENCH_DEV_REDUCE_SCATTER,
    BENCH_DEV_BROADCAST,
    BENCH_DEV_REDUCE,
} BenchDevOp;

/* Formats "major.minor.patch" of an ncclGetVersion or CUDA version code. */
void bench_version_string(int code, int is_nccl, char *out, size_t out_len);

/* ---- coll: NCCL over the GPUs of this process (ncclCommInitAll). ---- */
typedef struct BenchColl BenchColl;

/* Opens n_gpus GPUs (0: every visible one) with send and receive buffers of
 * max_bytes each. NULL with err when no GPU is visible, NCCL fails or
 * memory runs out. */
BenchColl *bench_coll_open(int n_gpus, uint64_t max_bytes, char *err, size_t err_len);
void bench_coll_info(const BenchColl *coll, BenchDeviceInfo *info);
int bench_coll_n_ranks(const BenchColl *coll);

/* n_bytes is nccl-tests' size: the larger of the send and receive buffers
 * (all_gather: the receive buffer, reduce_scatter: the send buffer). Runs
 * n_warmup then n_iters back to back (one NCCL group per iteration) and
 * sets *time_us to the time per iteration (CUDA events, the slowest GPU). */
int bench_coll_time(BenchColl *coll, BenchDevOp op, uint64_t n_bytes, int in_place,
                    unsigned n_warmup, unsigned n_iters, double *time_us, char *err,
                    size_t err_len);

/* Fills every rank's input with the pattern, runs op once and copies rank's
 * receive buffer (its recv count of floats) into out. */
int bench_coll_result(BenchColl *coll, BenchDevOp op, uint64_t n_bytes, int in_place, int rank,
                      float *out, char *err, size_t err_len);
void bench_coll_close(BenchColl *coll);

/* ---- loopback: a ring all-reduce or all-gather over K virtual ranks on
 * one GPU. ---- */
typedef struct BenchLoopback BenchLoopback;

/* K ranks with max_bytes of data each on device 0. */
BenchLoopback *bench_loopback_open(int n_ranks, uint64_t max_bytes, char *err, size_t err_len);
void bench_loopback_info(const BenchLoopback *lb, BenchDeviceInfo *info);
/* op (BENCH_DEV_ALL_REDUCE or BENCH_DEV_ALL_GATHER) in place on n_bytes per
 * rank (nccl-tests' size: all_gather's whole output, whole 16-byte vectors
 * from each rank); as bench_coll_time. */
int bench_loopback_time(BenchLoopback *lb, BenchDevOp op, uint64_t n_bytes, unsigned n_warmup,
                        unsigned n_iters, double *time_us, char *err, size_t err_len);
/* Copies rank's n_bytes / 4 floats into out after one checked run: rank 0
 * fills every rank's pattern (all_gather: its own segment) and runs; call
 * it for rank 0 first. */
int bench_loopback_result(BenchLoopback *lb, BenchDevOp op, uint64_t n_bytes, int rank,
                          float *out, char *err, size_t err_len);
void bench_loopback_close(BenchLoopback *lb);

/* ---- gpu: copy, reduction kernel, launch latency, GEMM on device 0. ---- */
/* Prints a table on table and writes CSV (header line, then one row per
 * measurement) on csv: kind,name,dtype,m,n,k,bytes,time_us,bytes_per_s,
 * flops_per_s. */
int bench_gpu_run(unsigned n_iters, FILE *table, FILE *csv, char *err, size_t err_len);

/* ---- interfere: a GEMM and a streaming kernel on device 0, alone and
 * beside a holder kernel of N CTAs that spins, copies at a channel's pace
 * or copies flat out (NCCL's channels take an SM each and stream through
 * HBM). Table and CSV as bench_gpu_run; the CSV's columns: victim,holder,
 * ctas,victim_us,victim_alone_us,slowdown,copy_bytes_per_s,
 * copy_alone_bytes_per_s. ---- */
int bench_interfere_run(unsigned n_iters, FILE *table, FILE *csv, char *err, size_t err_len);

#ifdef __cplusplus
}
#endif
