/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim-bench interfere, device side: what a collective's CTAs take from
 * the compute beside it. NCCL runs a call as one CTA a channel, resident on
 * its SM for the whole call and streaming its bytes through HBM; here a
 * holder kernel of N CTAs of 512 threads does the same without a peer,
 * until the host stops it (a flag in device memory, set by a copy engine:
 * polling host memory from the SMs slows the GPU's other kernels by
 * itself), in one of three ways:
 *   spin   holds its SMs and moves nothing (a CTA waiting on a flag);
 *   paced  copies a 512 MiB buffer round and round at 20 GB/s a CTA (bytes
 *          read + written), about an NVLink channel's share;
 *   copy   copies as fast as it can.
 * On device 0, for each holder and N in 1, 4, 8, 16, 32 and 64:
 *   the holder alone for about 20 ms (bytes read + written per second);
 *   each victim timed over n_iters back-to-back runs alone, then beside the
 *   holder (started first, all N CTAs resident before the first victim is
 *   launched, stopped once the last has finished):
 *     gemm  cublasGemmEx, bf16 8192^3, fp32 accumulation (compute-bound),
 *           and gemm_MxNxK of other shapes: 4096^3, and 8192 tokens through
 *           Llama 3 70B's MLP up-projection at tp 8 (8192 x 3584 x 8192);
 *     add   c = a + b over 2^28 bf16 in 16-byte vectors (HBM-bound).
 * CSV columns: victim,holder,ctas,victim_us,victim_alone_us,slowdown,
 * copy_bytes_per_s (over the victims' window), copy_alone_bytes_per_s. */
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <time.h>

#include "cuda/bench-cuda.cuh"
#include "cuda/bench-device.h"

enum {
    COPY_THREADS = 512,
    COPY_UNROLL = 4,  /* vectors a thread has in flight */
    COPY_ROUNDS = 16, /* rounds between two looks at the stop flag: 512 KiB a CTA */
    MAX_CTAS = 64,
};

static const int cta_counts[] = {1, 4, 8, 16, 32, 64};

typedef enum Holder { HOLD_SPIN, HOLD_PACED, HOLD_COPY, N_HOLDERS } Holder;
static const char *const holder_names[] = {"spin", "paced", "copy"};
#define PACED_BYTES_PER_S 20e9

__device__ static inline unsigned long long
global_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Copies src to dst round and round, each thread COPY_UNROLL vectors a
 * round, a chunk of COPY_ROUNDS rounds at most every chunk_ns (0: no pause),
 * or copies nothing (spin), until *stop; adds the bytes it read and wrote
 * to *moved. */
__global__ static void
copy_loop_kernel(uint4 *dst, const uint4 *src, size_t n_vec, int spin, unsigned chunk_ns,
                 volatile int *stop, volatile int *started, unsigned long long *moved)
{
    __shared__ int halt;
    unsigned long long next = 0;
    if (threadIdx.x == 0) {
        started[blockIdx.x] = 1;
        __threadfence_system();
        next = global_ns();
    }
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned long long rounds = 0;
    for (;;) {
        if (threadIdx.x == 0 && (spin || chunk_ns)) {
            next += spin ? 1000 : chunk_ns;
            while (global_ns() < next)
                __nanosleep(500);
        }
        __syncthreads();
        for (int r = 0; r < COPY_ROUNDS && !spin; r++) {
            uint4 v[COPY_UNROLL];
            size_t at[COPY_UNROLL];
#pragma unroll
            for (int u = 0; u < COPY_UNROLL; u++) {
                at[u] = i;
                v[u] = src[i];
                i += stride;
                if (i >= n_vec)
                    i -= n_vec;
            }
#pragma unroll
            for (int u = 0; u < COPY_UNROLL; u++)
                dst[at[u]] = v[u];
        }
        rounds += spin ? 0 : COPY_ROUNDS;
        if (threadIdx.x == 0)
            halt = *stop;
        __syncthreads();
        if (halt)
            break;
        __syncthreads();
    }
    atomicAdd(moved, rounds * COPY_UNROLL * 2 * sizeof(uint4));
}

typedef struct Interfere {
    cudaStream_t victim, copy, signal;
    cudaEvent_t v0, v1, c0, c1;
    uint4 *src, *dst;
    size_t n_vec;
    int *flags; /* mapped host memory: [0] 1, the stop flag's source; [1 .. MAX_CTAS] started */
    int *stop;  /* device memory */
    unsigned long long *moved;
    cublasHandle_t blas;
    char *gemm; /* A, B, C of 8192 x 8192 bf16 */
    uint4 *add; /* a, b, c of add_n_vec vectors each */
    size_t add_n_vec;
} Interfere;

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Starts the holder of n_ctas CTAs and waits until all are resident. */
static int
copy_start(Interfere *x, Holder holder, int n_ctas, char *err, size_t err_len)
{
    volatile int *flags = x->flags;
    flags[0] = 1;
    for (int i = 1; i <= n_ctas; i++)
        flags[i] = 0;
    BENCH_CUDA(cudaMemsetAsync(x->stop, 0, sizeof *x->stop, x->copy), "cudaMemsetAsync");
    BENCH_CUDA(cudaMemsetAsync(x->moved, 0, sizeof *x->moved, x->copy), "cudaMemsetAsync");
    BENCH_CUDA(cudaEventRecord(x->c0, x->copy), "cudaEventRecord");
    int *dev_flags = NULL;
    BENCH_CUDA(cudaHostGetDevicePointer((void **)&dev_flags, x->flags, 0),
               "cudaHostGetDevicePointer");
    const double chunk_bytes = 2.0 * COPY_ROUNDS * COPY_UNROLL * COPY_THREADS * sizeof(uint4);
    unsigned chunk_ns =
        holder == HOLD_PACED ? (unsigned)(chunk_bytes / PACED_BYTES_PER_S * 1e9) : 0;
    copy_loop_kernel<<<n_ctas, COPY_THREADS, 0, x->copy>>>(
        x->dst, x->src, x->n_vec, holder == HOLD_SPIN, chunk_ns, x->stop, dev_flags + 1, x->moved);
    BENCH_CUDA(cudaGetLastError(), "copy kernel launch");
    BENCH_CUDA(cudaEventRecord(x->c1, x->copy), "cudaEventRecord");
    double deadline = now_s() + 2.0;
    for (int i = 1; i <= n_ctas; i++)
        while (!flags[i])
            if (now_s() > deadline) {
                /* The resident CTAs stop; the others find the flag set. */
                cudaMemcpyAsync(x->stop, x->flags, sizeof *x->stop, cudaMemcpyHostToDevice,
                                x->signal);
                cudaEventSynchronize(x->c1);
                return bench_fail(err, err_len, "copy kernel: %d of %d CTAs resident after 2 s",
                                  i - 1, n_ctas);
            }
    return 0;
}

/* Stops the copy kernel; its bytes per second since copy_start. */
static int
copy_stop(Interfere *x, double *bytes_per_s, char *err, size_t err_len)
{
    BENCH_CUDA(
        cudaMemcpyAsync(x->stop, x->flags, sizeof *x->stop, cudaMemcpyHostToDevice, x->signal),
        "cudaMemcpyAsync (stop flag)");
    BENCH_CUDA(cudaEventSynchronize(x->c1), "copy kernel");
    float ms = 0;
    unsigned long long moved = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, x->c0, x->c1), "cudaEventElapsedTime");
    BENCH_CUDA(cudaMemcpy(&moved, x->moved, sizeof moved, cudaMemcpyDeviceToHost), "cudaMemcpy");
    *bytes_per_s = moved / (ms * 1e-3);
    return 0;
}

/* The kernels timed beside the holders: bf16 GEMMs of m x n x k (operands
 * of at most 8192 x 8192), and the add (m = 0). */
static const struct {
    const char *name;
    long m, n, k;
} victims[] = {
    {"gemm", 8192, 8192, 8192},
    {"gemm_4096x4096x4096", 4096, 4096, 4096},
    {"gemm_8192x3584x8192", 8192, 3584, 8192},
    {"add", 0, 0, 0},
};

/* One run of victim v on the victim stream. */
static cublasStatus_t
victim_run(Interfere *x, int v)
{
    if (victims[v].m == 0) {
        bench_add_kernel<__nv_bfloat16><<<4096, 256, 0, x->victim>>>(
            x->add + 2 * x->add_n_vec, x->add, x->add + x->add_n_vec, x->add_n_vec);
        return CUBLAS_STATUS_SUCCESS;
    }
    const size_t operand = (size_t)8192 * 8192 * sizeof(__nv_bfloat16);
    return bench_gemm_16(x->blas, CUDA_R_16BF, victims[v].m, victims[v].n, victims[v].k, x->gemm,
                         x->gemm + operand, x->gemm + 2 * operand);
}

static int
victim_time(Interfere *x, int v, unsigned n_iters, double *us, char *err, size_t err_len)
{
    cublasStatus_t gs = CUBLAS_STATUS_SUCCESS;
    if (bench_time(
            x->victim, x->v0, x->v1, n_iters,
            [&] {
                cublasStatus_t r = victim_run(x, v);
                if (r != CUBLAS_STATUS_SUCCESS)
                    gs = r;
            },
            us, err, err_len) < 0)
        return -1;
    if (gs != CUBLAS_STATUS_SUCCESS)
        return bench_fail(err, err_len, "cublasGemmEx: %s", cublasGetStatusString(gs));
    return 0;
}

static int
interfere_open(Interfere *x, char *err, size_t err_len)
{
    x->n_vec = ((size_t)512 << 20) / sizeof(uint4);
    x->add_n_vec = ((size_t)1 << 28) * sizeof(__nv_bfloat16) / sizeof(uint4);
    const size_t gemm_bytes = (size_t)3 * 8192 * 8192 * sizeof(__nv_bfloat16);
    BENCH_CUDA(cudaStreamCreateWithFlags(&x->victim, cudaStreamNonBlocking), "cudaStreamCreate");
    BENCH_CUDA(cudaStreamCreateWithFlags(&x->copy, cudaStreamNonBlocking), "cudaStreamCreate");
    BENCH_CUDA(cudaStreamCreateWithFlags(&x->signal, cudaStreamNonBlocking), "cudaStreamCreate");
    cudaEvent_t *events[] = {&x->v0, &x->v1, &x->c0, &x->c1};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        BENCH_CUDA(cudaEventCreate(events[i]), "cudaEventCreate");
    BENCH_CUDA(cudaMalloc(&x->src, x->n_vec * sizeof(uint4)), "cudaMalloc (copy source)");
    BENCH_CUDA(cudaMalloc(&x->dst, x->n_vec * sizeof(uint4)), "cudaMalloc (copy destination)");
    BENCH_CUDA(cudaMalloc(&x->moved, sizeof *x->moved), "cudaMalloc");
    BENCH_CUDA(cudaMalloc(&x->stop, sizeof *x->stop), "cudaMalloc");
    BENCH_CUDA(cudaMalloc(&x->gemm, gemm_bytes), "cudaMalloc (GEMM operands)");
    BENCH_CUDA(cudaMalloc(&x->add, 3 * x->add_n_vec * sizeof(uint4)), "cudaMalloc (add operands)");
    BENCH_CUDA(cudaMemset(x->src, 0, x->n_vec * sizeof(uint4)), "cudaMemset");
    bench_random(x->gemm, gemm_bytes, x->victim);
    bench_random(x->add, 3 * x->add_n_vec * sizeof(uint4), x->victim);
    BENCH_CUDA(cudaStreamSynchronize(x->victim), "filling the operands");
    BENCH_CUDA(cudaHostAlloc(&x->flags, (MAX_CTAS + 1) * sizeof(int), cudaHostAllocMapped),
               "cudaHostAlloc (flags)");
    cublasStatus_t st = cublasCreate(&x->blas);
    if (st != CUBLAS_STATUS_SUCCESS)
        return bench_fail(err, err_len, "cublasCreate: %s", cublasGetStatusString(st));
    cublasSetStream(x->blas, x->victim);
    return 0;
}

static void
interfere_close(Interfere *x)
{
    if (x->blas)
        cublasDestroy(x->blas);
    cudaFreeHost(x->flags);
    cudaFree(x->add);
    cudaFree(x->gemm);
    cudaFree(x->stop);
    cudaFree(x->moved);
    cudaFree(x->dst);
    cudaFree(x->src);
    cudaEvent_t events[] = {x->v0, x->v1, x->c0, x->c1};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if (events[i])
            cudaEventDestroy(events[i]);
    if (x->signal)
        cudaStreamDestroy(x->signal);
    if (x->copy)
        cudaStreamDestroy(x->copy);
    if (x->victim)
        cudaStreamDestroy(x->victim);
}

/* The rows of one holder and CTA count: the holder alone, then each victim
 * alone and beside it. */
static int
interfere_ctas(Interfere *x, Holder holder, int n_ctas, unsigned n_iters, FILE *table, FILE *csv,
               char *err, size_t err_len)
{
    double alone_bps;
    if (copy_start(x, holder, n_ctas, err, err_len) < 0)
        return -1;
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL);
    if (copy_stop(x, &alone_bps, err, err_len) < 0)
        return -1;
    for (int v = 0; v < (int)(sizeof victims / sizeof victims[0]); v++) {
        double alone_us, beside_us, beside_bps;
        if (victim_time(x, v, n_iters, &alone_us, err, err_len) < 0 ||
            copy_start(x, holder, n_ctas, err, err_len) < 0)
            return -1;
        int rc = victim_time(x, v, n_iters, &beside_us, err, err_len);
        if (copy_stop(x, &beside_bps, err, err_len) < 0 || rc < 0)
            return -1;
        fprintf(table,
                "%-19s %-5s %3d CTAs  %10.3f us  alone %10.3f us  x%.3f  copy %7.1f GB/s"
                "  alone %7.1f GB/s\n",
                victims[v].name, holder_names[holder], n_ctas, beside_us, alone_us,
                beside_us / alone_us, beside_bps / 1e9, alone_bps / 1e9);
        fprintf(csv, "%s,%s,%d,%.3f,%.3f,%.4f,%.6e,%.6e\n", victims[v].name, holder_names[holder],
                n_ctas, beside_us, alone_us, beside_us / alone_us, beside_bps, alone_bps);
    }
    return 0;
}

extern "C" int
bench_interfere_run(unsigned n_iters, FILE *table, FILE *csv, char *err, size_t err_len)
{
    fprintf(csv, "victim,holder,ctas,victim_us,victim_alone_us,slowdown,copy_bytes_per_s,"
                 "copy_alone_bytes_per_s\n");
    if (bench_visible_gpus(err, err_len) < 0)
        return -1;
    BENCH_CUDA(cudaSetDevice(0), "cudaSetDevice");
    cudaDeviceProp prop;
    BENCH_CUDA(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    fprintf(table, "# nvlsim-bench interfere: %s (%d SMs), copy kernel of %d threads a CTA\n",
            prop.name, prop.multiProcessorCount, COPY_THREADS);
    Interfere x = {};
    int rc = interfere_open(&x, err, err_len);
    for (int h = 0; rc == 0 && h < N_HOLDERS; h++)
        for (size_t i = 0; rc == 0 && i < sizeof cta_counts / sizeof cta_counts[0]; i++)
            rc = interfere_ctas(&x, (Holder)h, cta_counts[i], n_iters, table, csv, err, err_len);
    interfere_close(&x);
    return rc;
}
