/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim-bench loopback, device side: a ring all-reduce or all-gather over
 * K virtual ranks whose buffers live on one GPU, moving data the way NCCL's
 * ring Simple protocol does. One kernel launch, K persistent blocks (block r is rank r).
 * Rank r owns N_SLOTS receive slots of SLOT_FLOATS each; its predecessor
 * writes a chunk into slot (msg % N_SLOTS), fences, then raises
 * tail[r] (a volatile int in device memory); rank r waits on tail[r],
 * reduces or copies, forwards into its successor's slot and raises
 * head[r] when the slot may be reused. Per loop over the buffer, a rank
 * sends 2(K - 1) chunks: K - 1 reduce-scatter steps (send, recv-reduce-send
 * ..., recv-reduce-copy-send) and K - 1 all-gather steps (recv-copy-send
 * ..., recv-copy); an all-gather sends K - 1 (send, recv-copy-send ...,
 * recv-copy), its chunks whole 16-byte vectors. As NCCL: 8 slots of 512 KiB (its 4 MiB Simple
 * buffer in NCCL_STEPS = 8 steps). The K blocks must all be resident at once, so K is at most the
 * number of SMs. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/bench-cuda.cuh"
#include "cuda/bench-device.h"

enum { N_SLOTS = 8, SLOT_FLOATS = 128 * 1024, LB_THREADS = 512 };

struct BenchLoopback {
    int n_ranks;
    size_t cap_floats; /* per rank, a multiple of 4 */
    float *data;       /* n_ranks × cap_floats */
    float *slots;      /* n_ranks × N_SLOTS × SLOT_FLOATS */
    int *flags;        /* tail[n_ranks], then head[n_ranks] */
    cudaStream_t stream;
    cudaEvent_t start, stop;
    BenchDeviceInfo info;
};

/* One rank's view of the ring during a launch. */
struct Ring {
    int rank, next, n_ranks;
    float *slots;
    volatile int *tail, *head;
    int n_sent, n_recvd;
};

/* This block's rank of the ring: tail[n_ranks] then head[n_ranks] in
 * flags, nothing sent or received yet. */
__device__ static Ring
ring_of(float *slots, int *flags, int n_ranks)
{
    Ring g;
    g.rank = blockIdx.x;
    g.next = (g.rank + 1) % n_ranks;
    g.n_ranks = n_ranks;
    g.slots = slots;
    g.tail = flags;
    g.head = flags + n_ranks;
    g.n_sent = g.n_recvd = 0;
    return g;
}

/* One step: optionally receive a chunk (waiting on tail), combine it with
 * own[0 .. len) (sum when reduce), store the result into own when store,
 * and forward it into the successor's slot (waiting for room on head). */
__device__ static void
ring_step(Ring &g, float *own, size_t len, bool recv, bool reduce, bool store, bool send)
{
    if (threadIdx.x == 0) {
        if (recv)
            while (g.tail[g.rank] <= g.n_recvd) {
            }
        if (send)
            while (g.n_sent - g.head[g.next] >= N_SLOTS) {
            }
        __threadfence();
    }
    __syncthreads();
    const float *in = g.slots + ((size_t)g.rank * N_SLOTS + g.n_recvd % N_SLOTS) * SLOT_FLOATS;
    float *out = g.slots + ((size_t)g.next * N_SLOTS + g.n_sent % N_SLOTS) * SLOT_FLOATS;
    size_t n4 = len / 4;
    for (size_t i = threadIdx.x; i < n4; i += blockDim.x) {
        float4 v = ((float4 *)own)[i];
        if (recv) {
            float4 w = __ldcg((const float4 *)in + i);
            if (reduce) {
                v.x += w.x, v.y += w.y, v.z += w.z, v.w += w.w;
            } else {
                v = w;
            }
        }
        if (store)
            ((float4 *)own)[i] = v;
        if (send)
            __stcg((float4 *)out + i, v);
    }
    for (size_t i = n4 * 4 + threadIdx.x; i < len; i += blockDim.x) {
        float v = own[i];
        if (recv)
            v = reduce ? v + __ldcg(in + i) : __ldcg(in + i);
        if (store)
            own[i] = v;
        if (send)
            __stcg(out + i, v);
    }
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        if (send)
            g.tail[g.next] = g.n_sent + 1;
        if (recv)
            g.head[g.rank] = g.n_recvd + 1;
    }
    g.n_sent += send;
    g.n_recvd += recv;
}

__global__ static void
ring_allreduce_kernel(float *data, size_t stride, size_t count, float *slots, int *flags,
                      int n_ranks)
{
    Ring g = ring_of(slots, flags, n_ranks);
    float *mine = data + (size_t)g.rank * stride;
    int k = n_ranks;
    for (size_t base = 0; base < count;) {
        size_t per = (count - base + k - 1) / k;
        size_t cs = per < SLOT_FLOATS ? (per + 3) / 4 * 4 : SLOT_FLOATS;
#define SEG(s)                                                                                     \
    mine + base + (size_t)(s)*cs,                                                                  \
        (base + (size_t)(s)*cs >= count                                                            \
             ? 0                                                                                   \
             : (count - base - (size_t)(s)*cs < cs ? count - base - (size_t)(s)*cs : cs))
        ring_step(g, SEG(g.rank), false, false, false, true);
        for (int j = 1; j < k - 1; j++)
            ring_step(g, SEG((g.rank - j + k) % k), true, true, false, true);
        ring_step(g, SEG((g.rank + 1) % k), true, true, true, true);
        for (int t = 0; t < k - 2; t++)
            ring_step(g, SEG((g.rank - t + k) % k), true, false, true, true);
        ring_step(g, SEG((g.rank + 2) % k), true, false, true, false);
#undef SEG
        base += (size_t)k * cs;
    }
}

/* Each rank's buffer holds the whole output: K segments of per floats
 * (a multiple of 4), its own at rank × per. */
__global__ static void
ring_allgather_kernel(float *data, size_t stride, size_t per, float *slots, int *flags, int n_ranks)
{
    Ring g = ring_of(slots, flags, n_ranks);
    float *mine = data + (size_t)g.rank * stride;
    int k = n_ranks;
    for (size_t base = 0; base < per;) {
        size_t cs = per - base < SLOT_FLOATS ? per - base : SLOT_FLOATS;
        ring_step(g, mine + (size_t)g.rank * per + base, cs, false, false, false, true);
        for (int j = 1; j < k - 1; j++)
            ring_step(g, mine + (size_t)((g.rank - j + k) % k) * per + base, cs, true, false, true,
                      true);
        ring_step(g, mine + (size_t)((g.rank + 1) % k) * per + base, cs, true, false, true, false);
        base += cs;
    }
}

extern "C" BenchLoopback *
bench_loopback_open(int n_ranks, uint64_t max_bytes, char *err, size_t err_len)
{
    if (bench_visible_gpus(err, err_len) < 0)
        return NULL;
    cudaDeviceProp prop;
    if (cudaSetDevice(0) != cudaSuccess || cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        bench_fail(err, err_len, "cannot open GPU 0");
        return NULL;
    }
    if (n_ranks < 2 || n_ranks > prop.multiProcessorCount) {
        bench_fail(err, err_len, "--ranks %d: between 2 and the %d SMs of %s", n_ranks,
                   prop.multiProcessorCount, prop.name);
        return NULL;
    }
    BenchLoopback *lb = (BenchLoopback *)calloc(1, sizeof *lb);
    lb->n_ranks = n_ranks;
    lb->cap_floats = (max_bytes / sizeof(float) + 3) / 4 * 4;
    if (lb->cap_floats == 0)
        lb->cap_floats = 4;
    lb->info.n_gpus = 1;
    snprintf(lb->info.gpu_name, sizeof lb->info.gpu_name, "%s", prop.name);
    cudaDriverGetVersion(&lb->info.driver_version);
    cudaRuntimeGetVersion(&lb->info.runtime_version);
    cudaError_t e;
    const char *what = "cudaMalloc (data)";
    if ((e = cudaMalloc(&lb->data, (size_t)n_ranks * lb->cap_floats * sizeof(float))) ==
            cudaSuccess &&
        (what = "cudaMalloc (slots)",
         e = cudaMalloc(&lb->slots, (size_t)n_ranks * N_SLOTS * SLOT_FLOATS * sizeof(float))) ==
            cudaSuccess &&
        (what = "cudaMalloc (flags)", e = cudaMalloc(&lb->flags, 2 * n_ranks * sizeof(int))) ==
            cudaSuccess &&
        (what = "cudaStreamCreate", e = cudaStreamCreate(&lb->stream)) == cudaSuccess &&
        (what = "cudaEventCreate", e = cudaEventCreate(&lb->start)) == cudaSuccess &&
        (e = cudaEventCreate(&lb->stop)) == cudaSuccess)
        return lb;
    bench_fail(err, err_len, "%s: %s", what, cudaGetErrorString(e));
    bench_loopback_close(lb);
    return NULL;
}

extern "C" void
bench_loopback_info(const BenchLoopback *lb, BenchDeviceInfo *info)
{
    *info = lb->info;
}

static int
lb_launch(BenchLoopback *lb, BenchDevOp op, size_t count, char *err, size_t err_len)
{
    BENCH_CUDA(cudaMemsetAsync(lb->flags, 0, 2 * lb->n_ranks * sizeof(int), lb->stream),
               "cudaMemset (flags)");
    if (op == BENCH_DEV_ALL_GATHER)
        ring_allgather_kernel<<<lb->n_ranks, LB_THREADS, 0, lb->stream>>>(
            lb->data, lb->cap_floats, count / lb->n_ranks, lb->slots, lb->flags, lb->n_ranks);
    else
        ring_allreduce_kernel<<<lb->n_ranks, LB_THREADS, 0, lb->stream>>>(
            lb->data, lb->cap_floats, count, lb->slots, lb->flags, lb->n_ranks);
    BENCH_CUDA(cudaGetLastError(), "ring kernel launch");
    return 0;
}

/* The sizes the kernels take: whole floats; for all_gather whole 16-byte
 * vectors from each rank. */
static int
lb_check_size(const BenchLoopback *lb, BenchDevOp op, uint64_t n_bytes, char *err, size_t err_len)
{
    size_t count = n_bytes / sizeof(float);
    if (count > lb->cap_floats)
        return bench_fail(err, err_len, "size %llu exceeds the buffers",
                          (unsigned long long)n_bytes);
    if (op != BENCH_DEV_ALL_REDUCE && op != BENCH_DEV_ALL_GATHER)
        return bench_fail(err, err_len, "the loopback kernel runs all_reduce and all_gather only");
    if (n_bytes % sizeof(float) != 0 ||
        (op == BENCH_DEV_ALL_GATHER && n_bytes % (16 * (uint64_t)lb->n_ranks) != 0))
        return bench_fail(err, err_len, "size %llu is not whole %s", (unsigned long long)n_bytes,
                          op == BENCH_DEV_ALL_GATHER ? "16-byte vectors from every rank"
                                                     : "floats");
    return 0;
}

extern "C" int
bench_loopback_time(BenchLoopback *lb, BenchDevOp op, uint64_t n_bytes, unsigned n_warmup,
                    unsigned n_iters, double *time_us, char *err, size_t err_len)
{
    if (lb_check_size(lb, op, n_bytes, err, err_len) < 0)
        return -1;
    size_t count = n_bytes / sizeof(float);
    for (unsigned i = 0; i < n_warmup; i++)
        if (lb_launch(lb, op, count, err, err_len) < 0)
            return -1;
    BENCH_CUDA(cudaEventRecord(lb->start, lb->stream), "cudaEventRecord");
    for (unsigned i = 0; i < n_iters; i++)
        if (lb_launch(lb, op, count, err, err_len) < 0)
            return -1;
    BENCH_CUDA(cudaEventRecord(lb->stop, lb->stream), "cudaEventRecord");
    BENCH_CUDA(cudaEventSynchronize(lb->stop), "ring kernel");
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, lb->start, lb->stop), "cudaEventElapsedTime");
    *time_us = n_iters ? ms * 1e3 / n_iters : 0;
    return 0;
}

extern "C" int
bench_loopback_result(BenchLoopback *lb, BenchDevOp op, uint64_t n_bytes, int rank, float *out,
                      char *err, size_t err_len)
{
    if (lb_check_size(lb, op, n_bytes, err, err_len) < 0)
        return -1;
    size_t count = n_bytes / sizeof(float);
    if (rank == 0) { /* fill once; every rank's copy comes from the same run */
        BENCH_CUDA(cudaMemsetAsync(lb->data, 0,
                                   (size_t)lb->n_ranks * lb->cap_floats * sizeof(float),
                                   lb->stream),
                   "cudaMemset (data)");
        size_t per = op == BENCH_DEV_ALL_GATHER ? count / lb->n_ranks : count;
        for (int r = 0; r < lb->n_ranks; r++) {
            float *own = lb->data + (size_t)r * lb->cap_floats;
            bench_fill(op == BENCH_DEV_ALL_GATHER ? own + (size_t)r * per : own, per, r,
                       lb->stream);
        }
        BENCH_CUDA(cudaGetLastError(), "fill kernel");
        if (lb_launch(lb, op, count, err, err_len) < 0)
            return -1;
        BENCH_CUDA(cudaStreamSynchronize(lb->stream), "ring kernel");
    }
    BENCH_CUDA(cudaMemcpy(out, lb->data + (size_t)rank * lb->cap_floats, count * sizeof(float),
                          cudaMemcpyDeviceToHost),
               "cudaMemcpy (result)");
    return 0;
}

extern "C" void
bench_loopback_close(BenchLoopback *lb)
{
    if (!lb)
        return;
    cudaFree(lb->data);
    cudaFree(lb->slots);
    cudaFree(lb->flags);
    if (lb->start)
        cudaEventDestroy(lb->start);
    if (lb->stop)
        cudaEventDestroy(lb->stop);
    if (lb->stream)
        cudaStreamDestroy(lb->stream);
    free(lb);
}
