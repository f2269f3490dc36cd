/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim-bench: helpers shared by the .cu files (error reporting and the
 * input pattern on the device). */
#pragma once

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdarg.h>
#include <stdio.h>

/* Formats a one-line message into err and returns -1. */
static inline int
bench_fail(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && err_len)
        vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Evaluates a CUDA call; on failure formats "what: CUDA error" and returns -1
 * from the calling function. */
#define BENCH_CUDA(call, what)                                                                     \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            return bench_fail(err, err_len, "%s: %s (%s)", (what), cudaGetErrorString(e_),         \
                              cudaGetErrorName(e_));                                               \
    } while (0)

/* bench-host.h's pattern: rank r, element i (i counted from first). */
__global__ static void
bench_fill_kernel(float *buf, size_t count, unsigned rank, size_t first)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        buf[i] = (float)((rank + 1) * (((first + i) % 97) + 1));
}

static inline void
bench_fill(float *buf, size_t count, unsigned rank, cudaStream_t stream)
{
    if (count)
        bench_fill_kernel<<<1024, 256, 0, stream>>>(buf, count, rank, 0);
}

/* Counts the visible GPUs; -1 with err when there is none. */
static inline int
bench_visible_gpus(char *err, size_t err_len)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0)
        return bench_fail(err, err_len, "no GPU visible (%s)",
                          e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount: 0");
    return n;
}

/* GEMM operands of random values, not zeros: a tensor core's power, and
 * with it the clock the GPU holds, depends on the bits it multiplies. Each
 * 16-bit word is a bf16 of random sign and mantissa, magnitude in
 * [2^-7, 2); read a byte at a time it is two e4m3 values, neither a NaN
 * (mantissa 0x7f is made 0x7e). */
__global__ static void
bench_random_kernel(uint16_t *p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint32_t x = (uint32_t)i * 2654435761u ^ seed;
        x ^= x >> 15;
        x *= 2246822519u;
        x ^= x >> 13;
        uint32_t m = x & 0x7f, e = 120 + ((x >> 7) & 7), s = (x >> 10) & 1;
        p[i] = (uint16_t)(s << 15 | e << 7 | (m == 0x7f ? 0x7e : m));
    }
}

static inline void
bench_random(void *buf, size_t bytes, cudaStream_t stream)
{
    bench_random_kernel<<<4096, 256, 0, stream>>>((uint16_t *)buf, bytes / 2, 0x9e3779b9u);
}

/* c = a + b over n_vec 16-byte vectors of T (float or __nv_bfloat16): the
 * loads a streaming kernel (a norm, an activation, a cast) issues, one
 * vector a thread at a time, grid-stride. */
template <typename T>
__device__ static inline uint4
bench_add_vec(uint4 a, uint4 b)
{
    uint4 c;
    const T *x = (const T *)&a, *y = (const T *)&b;
    T *z = (T *)&c;
#pragma unroll
    for (int j = 0; j < (int)(sizeof(uint4) / sizeof(T)); j++)
        z[j] = x[j] + y[j];
    return c;
}

template <typename T>
__global__ static void
bench_add_kernel(uint4 *c, const uint4 *a, const uint4 *b, size_t n_vec)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n_vec;
         i += (size_t)gridDim.x * blockDim.x)
        c[i] = bench_add_vec<T>(a[i], b[i]);
}

/* Row-major C [m, n] = A [m, k] B [k, n] in a 16-bit type (CUDA_R_16BF or
 * CUDA_R_16F) with fp32 accumulation: column-major C^T = B^T A^T. */
static inline cublasStatus_t
bench_gemm_16(cublasHandle_t handle, cudaDataType_t type, long m, long n, long k, const void *a,
              const void *b, void *c)
{
    const float one = 1.0f, zero = 0.0f;
    return cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, b, type,
                        (int)n, a, type, (int)k, &zero, c, type, (int)n, CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT);
}

/* Times n_iters runs of what fn enqueues on s, after one warm-up run. */
template <typename F>
static int
bench_time(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, unsigned n_iters, F fn, double *us,
           char *err, size_t err_len)
{
    fn();
    BENCH_CUDA(cudaGetLastError(), "launch");
    BENCH_CUDA(cudaEventRecord(e0, s), "cudaEventRecord");
    for (unsigned i = 0; i < n_iters; i++)
        fn();
    BENCH_CUDA(cudaEventRecord(e1, s), "cudaEventRecord");
    BENCH_CUDA(cudaEventSynchronize(e1), "cudaEventSynchronize");
    BENCH_CUDA(cudaGetLastError(), "kernel");
    float ms = 0;
    BENCH_CUDA(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
    *us = ms * 1e3 / n_iters;
    return 0;
}
