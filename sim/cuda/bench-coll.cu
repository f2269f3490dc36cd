/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim-bench coll, device side: one process drives every GPU through
 * ncclCommInitAll, as nccl-tests does with -g N. Timing follows
 * nccl-tests: n_warmup iterations, then n_iters back to back, each one NCCL
 * group over all ranks; the time per iteration is the slowest GPU's
 * event-timed span divided by n_iters. */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/bench-cuda.cuh"
#include "cuda/bench-device.h"

struct BenchColl {
    int n_ranks;
    uint64_t max_bytes;
    ncclComm_t *comms;
    cudaStream_t *streams;
    cudaEvent_t *starts, *stops;
    float **send, **recv;
    BenchDeviceInfo info;
};

#define BENCH_NCCL(call, what)                                                                     \
    do {                                                                                           \
        ncclResult_t r_ = (call);                                                                  \
        if (r_ != ncclSuccess)                                                                     \
            return bench_fail(err, err_len, "%s: %s", (what), ncclGetErrorString(r_));             \
    } while (0)

extern "C" void
bench_version_string(int code, int is_nccl, char *out, size_t out_len)
{
    if (is_nccl) /* NCCL >= 2.9: major * 10000 + minor * 100 + patch */
        snprintf(out, out_len, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
    else /* CUDA: major * 1000 + minor * 10 */
        snprintf(out, out_len, "%d.%d", code / 1000, code % 1000 / 10);
}

static int
coll_alloc(BenchColl *c, char *err, size_t err_len)
{
    for (int r = 0; r < c->n_ranks; r++) {
        BENCH_CUDA(cudaSetDevice(r), "cudaSetDevice");
        BENCH_CUDA(cudaStreamCreateWithFlags(&c->streams[r], cudaStreamNonBlocking),
                   "cudaStreamCreate");
        BENCH_CUDA(cudaEventCreate(&c->starts[r]), "cudaEventCreate");
        BENCH_CUDA(cudaEventCreate(&c->stops[r]), "cudaEventCreate");
        BENCH_CUDA(cudaMalloc(&c->send[r], c->max_bytes), "cudaMalloc (send buffer)");
        BENCH_CUDA(cudaMalloc(&c->recv[r], c->max_bytes), "cudaMalloc (receive buffer)");
    }
    return 0;
}

extern "C" BenchColl *
bench_coll_open(int n_gpus, uint64_t max_bytes, char *err, size_t err_len)
{
    int visible = bench_visible_gpus(err, err_len);
    if (visible < 0)
        return NULL;
    if (n_gpus > visible) {
        bench_fail(err, err_len, "--gpus %d: only %d GPUs visible", n_gpus, visible);
        return NULL;
    }
    int n = n_gpus > 0 ? n_gpus : visible;
    if (n <= 0 || n > 4096)
        return NULL;
    BenchColl *c = (BenchColl *)calloc(1, sizeof *c);
    c->n_ranks = n;
    c->max_bytes = max_bytes < 64 ? 64 : max_bytes;
    c->comms = (ncclComm_t *)calloc((size_t)c->n_ranks, sizeof *c->comms);
    c->streams = (cudaStream_t *)calloc((size_t)c->n_ranks, sizeof *c->streams);
    c->starts = (cudaEvent_t *)calloc((size_t)c->n_ranks, sizeof *c->starts);
    c->stops = (cudaEvent_t *)calloc((size_t)c->n_ranks, sizeof *c->stops);
    c->send = (float **)calloc((size_t)c->n_ranks, sizeof *c->send);
    c->recv = (float **)calloc((size_t)c->n_ranks, sizeof *c->recv);

    cudaDeviceProp prop;
    c->info.n_gpus = c->n_ranks;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        snprintf(c->info.gpu_name, sizeof c->info.gpu_name, "%s", prop.name);
    cudaDriverGetVersion(&c->info.driver_version);
    cudaRuntimeGetVersion(&c->info.runtime_version);
    ncclGetVersion(&c->info.nccl_version);

    if (coll_alloc(c, err, err_len) < 0) {
        bench_coll_close(c);
        return NULL;
    }
    int *devs = (int *)calloc((size_t)n, sizeof *devs);
    for (int r = 0; r < c->n_ranks; r++)
        devs[r] = r;
    ncclResult_t nr = ncclCommInitAll(c->comms, c->n_ranks, devs);
    free(devs);
    if (nr != ncclSuccess) {
        bench_fail(err, err_len, "ncclCommInitAll over %d GPUs: %s", c->n_ranks,
                   ncclGetErrorString(nr));
        memset(c->comms, 0, c->n_ranks * sizeof *c->comms);
        bench_coll_close(c);
        return NULL;
    }
    return c;
}

extern "C" void
bench_coll_info(const BenchColl *c, BenchDeviceInfo *info)
{
    *info = c->info;
}

extern "C" int
bench_coll_n_ranks(const BenchColl *c)
{
    return c->n_ranks;
}

/* Send and receive counts of op for nccl-tests' size n_bytes. */
static void
coll_counts(const BenchColl *c, BenchDevOp op, uint64_t n_bytes, size_t *send, size_t *recv)
{
    size_t count = n_bytes / sizeof(float);
    *send = *recv = count;
    if (op == BENCH_DEV_ALL_GATHER)
        *send = count / c->n_ranks;
    else if (op == BENCH_DEV_REDUCE_SCATTER)
        *recv = count / c->n_ranks;
}

/* Where rank's input lives: in place, inside the receive buffer as NCCL
 * defines it (all_gather: recv + rank × sendcount; reduce_scatter: the
 * receive is at send + rank × recvcount, so the input is the whole buffer). */
static float *
coll_sendbuf(const BenchColl *c, BenchDevOp op, int r, int in_place, size_t send)
{
    if (!in_place)
        return c->send[r];
    if (op == BENCH_DEV_ALL_GATHER)
        return c->recv[r] + (size_t)r * send;
    return c->recv[r];
}

static float *
coll_recvbuf(const BenchColl *c, BenchDevOp op, int r, int in_place, size_t recv)
{
    if (in_place && op == BENCH_DEV_REDUCE_SCATTER)
        return c->recv[r] + (size_t)r * recv;
    return c->recv[r];
}

static int
coll_launch(BenchColl *c, BenchDevOp op, uint64_t n_bytes, int in_place, char *err, size_t err_len)
{
    size_t send, recv;
    coll_counts(c, op, n_bytes, &send, &recv);
    BENCH_NCCL(ncclGroupStart(), "ncclGroupStart");
    for (int r = 0; r < c->n_ranks; r++) {
        const float *sb = coll_sendbuf(c, op, r, in_place, send);
        float *rb = coll_recvbuf(c, op, r, in_place, recv);
        ncclResult_t nr = ncclSuccess;
        switch (op) {
        case BENCH_DEV_ALL_REDUCE:
            nr = ncclAllReduce(sb, rb, send, ncclFloat, ncclSum, c->comms[r], c->streams[r]);
            break;
        case BENCH_DEV_ALL_GATHER:
            nr = ncclAllGather(sb, rb, send, ncclFloat, c->comms[r], c->streams[r]);
            break;
        case BENCH_DEV_REDUCE_SCATTER:
            nr = ncclReduceScatter(sb, rb, recv, ncclFloat, ncclSum, c->comms[r], c->streams[r]);
            break;
        case BENCH_DEV_BROADCAST:
            nr = ncclBroadcast(sb, rb, send, ncclFloat, 0, c->comms[r], c->streams[r]);
            break;
        case BENCH_DEV_REDUCE:
            nr = ncclReduce(sb, rb, send, ncclFloat, ncclSum, 0, c->comms[r], c->streams[r]);
            break;
        }
        if (nr != ncclSuccess) {
            ncclGroupEnd();
            return bench_fail(err, err_len, "NCCL launch on rank %d: %s", r,
                              ncclGetErrorString(nr));
        }
    }
    BENCH_NCCL(ncclGroupEnd(), "ncclGroupEnd");
    return 0;
}

static int
coll_sync(BenchColl *c, char *err, size_t err_len)
{
    for (int r = 0; r < c->n_ranks; r++) {
        BENCH_CUDA(cudaSetDevice(r), "cudaSetDevice");
        BENCH_CUDA(cudaStreamSynchronize(c->streams[r]), "cudaStreamSynchronize");
    }
    return 0;
}

extern "C" int
bench_coll_time(BenchColl *c, BenchDevOp op, uint64_t n_bytes, int in_place, unsigned n_warmup,
                unsigned n_iters, double *time_us, char *err, size_t err_len)
{
    if (n_bytes > c->max_bytes)
        return bench_fail(err, err_len, "size %llu exceeds the buffers (%llu bytes)",
                          (unsigned long long)n_bytes, (unsigned long long)c->max_bytes);
    for (unsigned i = 0; i < n_warmup; i++)
        if (coll_launch(c, op, n_bytes, in_place, err, err_len) < 0)
            return -1;
    if (coll_sync(c, err, err_len) < 0)
        return -1;
    for (int r = 0; r < c->n_ranks; r++) {
        BENCH_CUDA(cudaSetDevice(r), "cudaSetDevice");
        BENCH_CUDA(cudaEventRecord(c->starts[r], c->streams[r]), "cudaEventRecord");
    }
    for (unsigned i = 0; i < n_iters; i++)
        if (coll_launch(c, op, n_bytes, in_place, err, err_len) < 0)
            return -1;
    float worst_ms = 0;
    for (int r = 0; r < c->n_ranks; r++) {
        float ms = 0;
        BENCH_CUDA(cudaSetDevice(r), "cudaSetDevice");
        BENCH_CUDA(cudaEventRecord(c->stops[r], c->streams[r]), "cudaEventRecord");
        BENCH_CUDA(cudaEventSynchronize(c->stops[r]), "cudaEventSynchronize");
        BENCH_CUDA(cudaEventElapsedTime(&ms, c->starts[r], c->stops[r]), "cudaEventElapsedTime");
        if (ms > worst_ms)
            worst_ms = ms;
    }
    *time_us = n_iters ? worst_ms * 1e3 / n_iters : 0;
    return 0;
}

extern "C" int
bench_coll_result(BenchColl *c, BenchDevOp op, uint64_t n_bytes, int in_place, int rank, float *out,
                  char *err, size_t err_len)
{
    size_t send, recv;
    coll_counts(c, op, n_bytes, &send, &recv);
    for (int r = 0; r < c->n_ranks; r++) {
        BENCH_CUDA(cudaSetDevice(r), "cudaSetDevice");
        BENCH_CUDA(cudaMemsetAsync(c->recv[r], 0, c->max_bytes, c->streams[r]), "cudaMemset");
        bench_fill(coll_sendbuf(c, op, r, in_place, send), send, r, c->streams[r]);
        BENCH_CUDA(cudaGetLastError(), "fill kernel");
    }
    if (coll_launch(c, op, n_bytes, in_place, err, err_len) < 0 || coll_sync(c, err, err_len) < 0)
        return -1;
    BENCH_CUDA(cudaSetDevice(rank), "cudaSetDevice");
    BENCH_CUDA(cudaMemcpy(out, coll_recvbuf(c, op, rank, in_place, recv), recv * sizeof(float),
                          cudaMemcpyDeviceToHost),
               "cudaMemcpy (result)");
    return 0;
}

extern "C" void
bench_coll_close(BenchColl *c)
{
    if (!c)
        return;
    for (int r = 0; r < c->n_ranks; r++) {
        if (c->comms[r])
            ncclCommDestroy(c->comms[r]);
        cudaSetDevice(r);
        if (c->send[r])
            cudaFree(c->send[r]);
        if (c->recv[r])
            cudaFree(c->recv[r]);
        if (c->starts[r])
            cudaEventDestroy(c->starts[r]);
        if (c->stops[r])
            cudaEventDestroy(c->stops[r]);
        if (c->streams[r])
            cudaStreamDestroy(c->streams[r]);
    }
    free(c->comms);
    free(c->streams);
    free(c->starts);
    free(c->stops);
    free(c->send);
    free(c->recv);
    free(c);
}
