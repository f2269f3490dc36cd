/* SPDX-License-Identifier: Apache-2.0 */
/* nvlsim-bench: helpers shared by the .cu files (error reporting and the
 * input pattern on the device). */
#pragma once

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
