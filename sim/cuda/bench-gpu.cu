/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim-bench gpu, device side: what one GPU of this machine does, as
 * nvlsim's GPU models describe it. On device 0:
 *   copy    cudaMemcpy device to device, 1 GiB; bytes = read + write
 *   reduce  c = a + b over 2^28 elements, fp32 and bf16, in 16-byte vectors as
 *           a streaming kernel loads them; bytes = 2 reads + 1 write
 *   launch  an empty kernel launched back to back, and the same replayed
 *           from a CUDA graph of 1000 launches; time_us per kernel. Last
 *           of all, the gap a launch leaves on the GPU when the CPU keeps
 *           ahead: 500 kernels of about 20 us each (every SM busy with
 *           dependent FMAs) back to back, against one kernel doing all
 *           their work; time_us is the difference per kernel (gap_stream;
 *           gap_graph with the 500 replayed from a CUDA graph). Written
 *           2026-12-04 and not yet run on a GPU
 *   sustain bf16 GEMMs of 8192^3 back to back for 10 s, timed 10 at a time:
 *           the rate of the first 10 (burst clocks) and of the last 2 s (the
 *           clock the GPU holds at its power cap, as under a training step's
 *           load); the GEMMs below then run at that sustained state
 *   gemm    cublasGemmEx, bf16 and fp16 in, fp32 accumulation, for
 *           transformer shapes: T tokens in {2048, 8192}, hidden h in
 *           {4096, 8192, 12288}: qkv [T,h]x[h,3h], proj [T,h]x[h,h],
 *           mlp_up [T,h]x[h,4h], mlp_down [T,4h]x[4h,h]; flops = 2 m n k.
 *           Operands hold random values (bench_random), not zeros.
 *           The same shapes in fp8 (e4m3 in, bf16 out) through cublasLt on
 *           SM 8.9 and later (dtype fp8; calibrate gemm fits
 *           gemm_ceiling_fp8 from them).
 * CSV columns: kind,name,dtype,m,n,k,bytes,time_us,bytes_per_s,flops_per_s
 * (m, n, k only for gemm and sustain; bytes_per_s for copy and reduce, flops_per_s for
 * gemm; empty otherwise). */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdlib.h>

#include "cuda/bench-cuda.cuh"
#include "cuda/bench-device.h"

struct GpuOut {
    FILE *table, *csv;
};

static void
gpu_row(GpuOut *o, const char *kind, const char *name, const char *dtype, long m, long n, long k,
        double bytes, double time_us, double flops)
{
    double bps = bytes > 0 ? bytes / (time_us * 1e-6) : 0;
    double fps = flops > 0 ? flops / (time_us * 1e-6) : 0;
    fprintf(o->table, "%-7s %-22s %-5s %12.3f us", kind, name, dtype, time_us);
    if (bps > 0)
        fprintf(o->table, " %10.1f GB/s", bps / 1e9);
    if (fps > 0)
        fprintf(o->table, " %10.1f TFLOP/s", fps / 1e12);
    fprintf(o->table, "\n");
    fprintf(o->csv, "%s,%s,%s,", kind, name, dtype);
    if (m)
        fprintf(o->csv, "%ld,%ld,%ld,", m, n, k);
    else
        fprintf(o->csv, ",,,");
    fprintf(o->csv, "%.0f,%.3f,", bytes, time_us);
    if (bps > 0)
        fprintf(o->csv, "%.6e", bps);
    fprintf(o->csv, ",");
    if (fps > 0)
        fprintf(o->csv, "%.6e", fps);
    fprintf(o->csv, "\n");
}

__global__ static void
empty_kernel(void)
{
}

static int
gpu_memory(GpuOut *o, char *buf, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, unsigned n_iters,
           char *err, size_t err_len)
{
    const size_t copy_bytes = (size_t)1 << 30, n = (size_t)1 << 28;
    double us;
    if (bench_time(
            s, e0, e1, n_iters,
            [&] {
                cudaMemcpyAsync(buf + copy_bytes, buf, copy_bytes, cudaMemcpyDeviceToDevice, s);
            },
            &us, err, err_len) < 0)
        return -1;
    gpu_row(o, "copy", "memcpy_d2d", "byte", 0, 0, 0, 2.0 * copy_bytes, us, 0);
    /* 2^28 elements of fp32 then of bf16, as 16-byte vectors. */
    uint4 *v = (uint4 *)buf;
    size_t n_vec = n * sizeof(float) / sizeof(uint4);
    if (bench_time(
            s, e0, e1, n_iters,
            [&] {
                bench_add_kernel<float><<<4096, 256, 0, s>>>(v + 2 * n_vec, v, v + n_vec, n_vec);
            },
            &us, err, err_len) < 0)
        return -1;
    gpu_row(o, "reduce", "add", "fp32", 0, 0, 0, 3.0 * n * sizeof(float), us, 0);
    n_vec = n * sizeof(__nv_bfloat16) / sizeof(uint4);
    if (bench_time(
            s, e0, e1, n_iters,
            [&] {
                bench_add_kernel<__nv_bfloat16>
                    <<<4096, 256, 0, s>>>(v + 2 * n_vec, v, v + n_vec, n_vec);
            },
            &us, err, err_len) < 0)
        return -1;
    gpu_row(o, "reduce", "add", "bf16", 0, 0, 0, 3.0 * n * sizeof(__nv_bfloat16), us, 0);
    return 0;
}

/* Captures what fn enqueues on s into a CUDA graph and times n_replays
 * replays of it as bench_time does: *us a replay. */
template <typename F>
static int
graph_time(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, unsigned n_replays, F fn, double *us,
           char *err, size_t err_len)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    BENCH_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal),
               "cudaStreamBeginCapture");
    fn();
    BENCH_CUDA(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture");
    cudaError_t e = cudaGraphInstantiate(&exec, graph, 0);
    if (e != cudaSuccess) {
        cudaGraphDestroy(graph);
        return bench_fail(err, err_len, "cudaGraphInstantiate: %s", cudaGetErrorString(e));
    }
    int rc = bench_time(
        s, e0, e1, n_replays, [&] { cudaGraphLaunch(exec, s); }, us, err, err_len);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    return rc;
}

/* rounds dependent FMAs a thread (sinks its result where no one reads). */
__global__ static void
fma_kernel(float *sink, unsigned rounds)
{
    float x = threadIdx.x * 1e-3f, y = 1.0000001f;
    for (unsigned i = 0; i < rounds; i++)
        x = fmaf(x, y, 1e-7f);
    if (x == -1.0f)
        sink[threadIdx.x] = x;
}

/* The gap rows of the header comment. */
static int
gpu_gaps(GpuOut *o, char *buf, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, int n_sms, char *err,
         size_t err_len)
{
    const unsigned n_kernels = 500;
    float *sink = (float *)buf;
    dim3 grid(4 * n_sms), block(256);
    /* About 20 us a kernel: the rounds one takes, from a probe of 10^5. */
    double us;
    if (bench_time(
            s, e0, e1, 3, [&] { fma_kernel<<<grid, block, 0, s>>>(sink, 100000); }, &us, err,
            err_len) < 0)
        return -1;
    unsigned rounds = (unsigned)(100000 * 20.0 / us) + 1;
    /* The same work as one kernel, as n_kernels back to back in the stream,
     * and as those n_kernels in a CUDA graph. */
    auto many = [&] {
        for (unsigned i = 0; i < n_kernels; i++)
            fma_kernel<<<grid, block, 0, s>>>(sink, rounds);
    };
    double one_us, many_us, graph_us;
    if (bench_time(
            s, e0, e1, 1, [&] { fma_kernel<<<grid, block, 0, s>>>(sink, rounds * n_kernels); },
            &one_us, err, err_len) < 0 ||
        bench_time(s, e0, e1, 1, many, &many_us, err, err_len) < 0 ||
        graph_time(s, e0, e1, 1, many, &graph_us, err, err_len) < 0)
        return -1;
    gpu_row(o, "launch", "gap_stream", "-", 0, 0, 0, 0, (many_us - one_us) / n_kernels, 0);
    gpu_row(o, "launch", "gap_graph", "-", 0, 0, 0, 0, (graph_us - one_us) / n_kernels, 0);
    gpu_row(o, "launch", "fma_kernel", "-", 0, 0, 0, 0, one_us / n_kernels, 0);
    return 0;
}

static int
gpu_launch(GpuOut *o, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, char *err, size_t err_len)
{
    const unsigned n_launch = 10000, n_graph = 1000;
    double us;
    if (bench_time(
            s, e0, e1, n_launch, [&] { empty_kernel<<<1, 1, 0, s>>>(); }, &us, err, err_len) < 0)
        return -1;
    gpu_row(o, "launch", "empty_kernel", "-", 0, 0, 0, 0, us, 0);
    if (graph_time(
            s, e0, e1, 10,
            [&] {
                for (unsigned i = 0; i < n_graph; i++)
                    empty_kernel<<<1, 1, 0, s>>>();
            },
            &us, err, err_len) < 0)
        return -1;
    gpu_row(o, "launch", "empty_kernel_graph", "-", 0, 0, 0, 0, us / n_graph, 0);
    return 0;
}

/* The transformer GEMMs of the header comment: calls each(name, m, n, k)
 * for every shape, stopping at the first that fails. */
template <typename F>
static int
for_each_shape(F each)
{
    static const long tokens[] = {2048, 8192}, hidden[] = {4096, 8192, 12288};
    for (int ti = 0; ti < 2; ti++)
        for (int hi = 0; hi < 3; hi++) {
            long t = tokens[ti], h = hidden[hi];
            const struct {
                const char *name;
                long m, n, k;
            } shapes[] = {{"qkv", t, 3 * h, h},
                          {"proj", t, h, h},
                          {"mlp_up", t, 4 * h, h},
                          {"mlp_down", t, h, 4 * h}};
            for (int si = 0; si < 4; si++) {
                char name[64];
                snprintf(name, sizeof name, "%s_T%ld_h%ld", shapes[si].name, t, h);
                if (each(name, shapes[si].m, shapes[si].n, shapes[si].k) < 0)
                    return -1;
            }
        }
    return 0;
}

/* The sustain rows of the header comment. */
static int
gpu_sustain(GpuOut *o, char *buf, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, char *err,
            size_t err_len)
{
    enum { BATCH = 10, MAX_BATCHES = 4096 };
    const long n = 8192;
    const double soak_ms = 10000, tail_ms = 2000, flops = 2.0 * n * n * n;
    const double bytes = 3.0 * n * n * sizeof(__nv_bfloat16);
    cublasHandle_t handle;
    cublasStatus_t st = cublasCreate(&handle);
    if (st != CUBLAS_STATUS_SUCCESS)
        return bench_fail(err, err_len, "cublasCreate: %s", cublasGetStatusString(st));
    cublasSetStream(handle, s);
    const size_t operand = (size_t)n * n * sizeof(__nv_bfloat16);
    char *a = buf, *b = buf + operand, *c = buf + 2 * operand;
    static float batch_ms[MAX_BATCHES];
    unsigned n_batches = 0;
    double total_ms = 0;
    bench_gemm_16(handle, CUDA_R_16BF, n, n, n, a, b, c); /* cuBLAS's first call loads its kernel */
    while (total_ms < soak_ms && n_batches < MAX_BATCHES) {
        cublasStatus_t gs = CUBLAS_STATUS_SUCCESS;
        cudaEventRecord(e0, s);
        for (int i = 0; i < BATCH; i++) {
            cublasStatus_t r = bench_gemm_16(handle, CUDA_R_16BF, n, n, n, a, b, c);
            if (r != CUBLAS_STATUS_SUCCESS)
                gs = r;
        }
        cudaEventRecord(e1, s);
        cudaError_t e = cudaEventSynchronize(e1);
        if (e == cudaSuccess)
            e = cudaEventElapsedTime(&batch_ms[n_batches], e0, e1);
        if (e != cudaSuccess || gs != CUBLAS_STATUS_SUCCESS) {
            cublasDestroy(handle);
            if (e != cudaSuccess)
                return bench_fail(err, err_len, "sustained GEMMs: %s", cudaGetErrorString(e));
            return bench_fail(err, err_len, "cublasGemmEx: %s", cublasGetStatusString(gs));
        }
        total_ms += batch_ms[n_batches++];
    }
    cublasDestroy(handle);
    double tail = 0;
    unsigned n_tail = 0;
    while (n_tail < n_batches && tail < tail_ms)
        tail += batch_ms[n_batches - ++n_tail];
    gpu_row(o, "sustain", "gemm_first_10", "bf16", n, n, n, bytes, batch_ms[0] * 1e3 / BATCH,
            flops);
    gpu_row(o, "sustain", "gemm_last_2s", "bf16", n, n, n, bytes, tail * 1e3 / (n_tail * BATCH),
            flops);
    return 0;
}

/* bf16 and fp16 through cublasGemmEx, fp32 accumulation. */
static int
gpu_gemm_16(GpuOut *o, char *buf, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, unsigned n_iters,
            char *err, size_t err_len)
{
    cublasHandle_t handle;
    cublasStatus_t st = cublasCreate(&handle);
    if (st != CUBLAS_STATUS_SUCCESS)
        return bench_fail(err, err_len, "cublasCreate: %s", cublasGetStatusString(st));
    cublasSetStream(handle, s);
    static const struct {
        cudaDataType_t type;
        const char *name;
    } dtypes[] = {{CUDA_R_16BF, "bf16"}, {CUDA_R_16F, "fp16"}};
    const size_t max_elems = (size_t)8192 * 4 * 12288; /* the largest operand: [T, 4h] or [4h, h] */
    char *a = buf, *b = buf + 2 * max_elems, *c = buf + 4 * max_elems;
    int rc = 0;
    for (int d = 0; d < 2 && rc == 0; d++)
        rc = for_each_shape([&](const char *name, long m, long n, long k) {
            cublasStatus_t gs = CUBLAS_STATUS_SUCCESS;
            double us;
            if (bench_time(
                    s, e0, e1, n_iters,
                    [&] {
                        cublasStatus_t r = bench_gemm_16(handle, dtypes[d].type, m, n, k, a, b, c);
                        if (r != CUBLAS_STATUS_SUCCESS)
                            gs = r;
                    },
                    &us, err, err_len) < 0)
                return -1;
            if (gs != CUBLAS_STATUS_SUCCESS)
                return bench_fail(err, err_len, "cublasGemmEx: %s", cublasGetStatusString(gs));
            gpu_row(o, "gemm", name, dtypes[d].name, m, n, k, 2.0 * (m * k + k * n + m * n), us,
                    2.0 * m * n * k);
            return 0;
        });
    cublasDestroy(handle);
    return rc;
}

/* One fp8 GEMM's cublasLt descriptors: e4m3 inputs in the TN layout fp8
 * requires, bf16 output, fp32 accumulation, scales left at 1. Shapes as the
 * 16-bit ones (the layout changes no count of bytes or FLOPs). */
typedef struct Fp8Gemm {
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t a, b, c;
    cublasLtMatmulHeuristicResult_t heuristic;
} Fp8Gemm;

static void
fp8_clear(Fp8Gemm *g)
{
    if (g->a)
        cublasLtMatrixLayoutDestroy(g->a);
    if (g->b)
        cublasLtMatrixLayoutDestroy(g->b);
    if (g->c)
        cublasLtMatrixLayoutDestroy(g->c);
    if (g->desc)
        cublasLtMatmulDescDestroy(g->desc);
}

/* C^T [n, m] = op(A) op(B) with A stored [k, n] (transposed) and B [k, m];
 * false when cublasLt has no algorithm for it. */
static bool
fp8_init(Fp8Gemm *g, cublasLtHandle_t lt, long m, long n, long k, size_t workspace)
{
    cublasOperation_t t = CUBLAS_OP_T, nop = CUBLAS_OP_N;
    int found = 0;
    cublasLtMatmulPreference_t pref = NULL;
    bool ok = cublasLtMatmulDescCreate(&g->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) ==
                  CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t) ==
                  CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulDescSetAttribute(g->desc, CUBLASLT_MATMUL_DESC_TRANSB, &nop,
                                             sizeof nop) == CUBLAS_STATUS_SUCCESS &&
              cublasLtMatrixLayoutCreate(&g->a, CUDA_R_8F_E4M3, k, n, k) == CUBLAS_STATUS_SUCCESS &&
              cublasLtMatrixLayoutCreate(&g->b, CUDA_R_8F_E4M3, k, m, k) == CUBLAS_STATUS_SUCCESS &&
              cublasLtMatrixLayoutCreate(&g->c, CUDA_R_16BF, n, m, n) == CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulPreferenceCreate(&pref) == CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                   &workspace,
                                                   sizeof workspace) == CUBLAS_STATUS_SUCCESS &&
              cublasLtMatmulAlgoGetHeuristic(lt, g->desc, g->a, g->b, g->c, g->c, pref, 1,
                                             &g->heuristic, &found) == CUBLAS_STATUS_SUCCESS &&
              found > 0;
    if (pref)
        cublasLtMatmulPreferenceDestroy(pref);
    return ok;
}

/* fp8 (e4m3) through cublasLt, on GPUs that have it (SM 8.9 and later). */
static int
gpu_gemm_fp8(GpuOut *o, char *buf, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, unsigned n_iters,
             int sm, char *err, size_t err_len)
{
    if (sm < 89) {
        fprintf(o->table, "# gemm fp8: not measured (SM %d.%d has no fp8 tensor cores)\n", sm / 10,
                sm % 10);
        return 0;
    }
    cublasLtHandle_t lt;
    cublasStatus_t st = cublasLtCreate(&lt);
    if (st != CUBLAS_STATUS_SUCCESS)
        return bench_fail(err, err_len, "cublasLtCreate: %s", cublasGetStatusString(st));
    const size_t max_elems = (size_t)8192 * 4 * 12288, workspace = (size_t)32 << 20;
    char *a = buf, *b = buf + max_elems, *c = buf + 2 * max_elems, *ws = buf + 4 * max_elems;
    const float one = 1.0f, zero = 0.0f;
    int rc = for_each_shape([&](const char *name, long m, long n, long k) {
        Fp8Gemm g = {};
        if (!fp8_init(&g, lt, m, n, k, workspace)) {
            fp8_clear(&g);
            fprintf(o->table, "# gemm fp8 %s: cublasLt has no algorithm; not measured\n", name);
            return 0;
        }
        cublasStatus_t gs = CUBLAS_STATUS_SUCCESS;
        double us;
        int r = bench_time(
            s, e0, e1, n_iters,
            [&] {
                cublasStatus_t x = cublasLtMatmul(lt, g.desc, &one, a, g.a, b, g.b, &zero, c, g.c,
                                                  c, g.c, &g.heuristic.algo, ws, workspace, s);
                if (x != CUBLAS_STATUS_SUCCESS)
                    gs = x;
            },
            &us, err, err_len);
        fp8_clear(&g);
        if (r < 0)
            return -1;
        if (gs != CUBLAS_STATUS_SUCCESS)
            return bench_fail(err, err_len, "cublasLtMatmul: %s", cublasGetStatusString(gs));
        gpu_row(o, "gemm", name, "fp8", m, n, k, (double)(m * k + k * n) + 2.0 * m * n, us,
                2.0 * m * n * k);
        return 0;
    });
    cublasLtDestroy(lt);
    return rc;
}

extern "C" int
bench_gpu_run(unsigned n_iters, FILE *table, FILE *csv, char *err, size_t err_len)
{
    /* The header first: a run that fails at once still leaves a CSV. */
    fprintf(csv, "kind,name,dtype,m,n,k,bytes,time_us,bytes_per_s,flops_per_s\n");
    if (bench_visible_gpus(err, err_len) < 0)
        return -1;
    BENCH_CUDA(cudaSetDevice(0), "cudaSetDevice");
    cudaDeviceProp prop;
    BENCH_CUDA(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    char dv[32], rv[32];
    bench_version_string(driver, 0, dv, sizeof dv);
    bench_version_string(runtime, 0, rv, sizeof rv);
    fprintf(table, "# nvlsim-bench gpu: %s (%d SMs, %.1f GiB), driver CUDA %s, runtime %s\n",
            prop.name, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, dv, rv);
    GpuOut o = {table, csv};
    /* 4 GiB: the memory tests (3 GiB) and the largest GEMM's A, B and C
     * (3 × 805 MB of bf16). */
    size_t buf_bytes = (size_t)4 << 30;
    char *buf = NULL;
    cudaStream_t s;
    cudaEvent_t e0, e1;
    BENCH_CUDA(cudaMalloc(&buf, buf_bytes), "cudaMalloc (work buffer)");
    BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    bench_random(buf, buf_bytes, s);
    BENCH_CUDA(cudaStreamSynchronize(s), "filling the work buffer");
    BENCH_CUDA(cudaEventCreate(&e0), "cudaEventCreate");
    BENCH_CUDA(cudaEventCreate(&e1), "cudaEventCreate");
    int rc = gpu_memory(&o, buf, s, e0, e1, n_iters, err, err_len);
    if (rc == 0)
        rc = gpu_launch(&o, s, e0, e1, err, err_len);
    if (rc == 0)
        rc = gpu_sustain(&o, buf, s, e0, e1, err, err_len);
    if (rc == 0)
        rc = gpu_gemm_16(&o, buf, s, e0, e1, n_iters, err, err_len);
    if (rc == 0)
        rc = gpu_gemm_fp8(&o, buf, s, e0, e1, n_iters, prop.major * 10 + prop.minor, err, err_len);
    if (rc == 0)
        rc = gpu_gaps(&o, buf, s, e0, e1, prop.multiProcessorCount, err, err_len);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaStreamDestroy(s);
    cudaFree(buf);
    return rc;
}
