/* SPDX-License-Identifier: Apache-2.0 */
/* A GPU model: the figures of one GPU product, loaded from
 * models/gpu/NAME.ini (group [gpu]). Description only: no behaviour. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "hw/hw-keys.h"

typedef struct HwGpu {
    char *name; /* "H100 SXM5" */
    /* The names CUDA gives it (cudaDeviceProp.name, as nvidia-smi and
     * nccl-tests' "#  Rank" lines print them), ';' between them; NULL when
     * the file lists none: a log naming it then needs --system. */
    char *device_names;
    /* The system a log of this GPU that names no system is replayed on (a
     * stated default, printed with the results); NULL: none. */
    char *reference_system;
    uint64_t n_sms;
    uint64_t fp32_flops_per_s; /* dense, non-tensor */
    uint64_t fp16_flops_per_s; /* dense fp16/bf16, tensor cores where present */
    uint64_t fp8_flops_per_s;  /* dense; 0 where the GPU has no fp8 */
    /* Dense fp4 tensor rate (Blackwell on); 0 where the GPU has no fp4
     * tensor cores. Listed by nvlsim list; no workload computes in fp4. */
    uint64_t fp4_flops_per_s;
    uint64_t hbm_bytes;
    uint64_t hbm_bytes_per_s;
    uint64_t nvlink_generation; /* 1 ... 5 */
    uint64_t n_nvlinks;
    uint64_t pcie_generation; /* 3 ... 6 */
    uint64_t sm_version;      /* CUDA compute capability x 10: 60, 70, 80, 90, 100 */
    /* Fitted for this GPU alone (nvlsim calibrate compute-efficiency
     * --system): the share of the kernel model's rate a training step
     * sustains; 0 when not given, and training steps take the one share of
     * every generation (WORK_COMPUTE_STEP_EFFICIENCY). */
    double training_efficiency;
    /* Fitted (nvlsim calibrate gemm, from nvlsim-bench gpu's GEMMs): the
     * largest share of peak a GEMM reaches in fp16/bf16 and in fp8; 0 when
     * not fitted (work-compute's table by generation). */
    double gemm_ceiling_fp16, gemm_ceiling_fp8;
    /* Measured (nvlsim calibrate memory, from nvlsim-bench gpu's reduction
     * kernel): the share of hbm_bytes_per_s a streaming kernel sustains;
     * HW_GPU_HBM_EFFICIENCY when the file gives none. */
    double hbm_efficiency;
} HwGpu;

/* The share of its HBM bandwidth a GPU's streaming kernels sustain, one
 * figure for every generation: an elementwise bf16 and fp32 add in 16-byte
 * vectors on one H200, 4167 and 4157 of 4800 GB/s (nvlsim calibrate memory
 * tests/data/measured/h200-2026-12-04/gpu.csv: 0.867; cudaMemcpy 0.889).
 * Ampere agrees: a read kernel on an A100 80GB SXM reaches 1.80 of 2.04 TB/s,
 * 88%, Nsight Compute concurring (NVIDIA developer forums, "Trouble to reach
 * peak bandwidth of A100", 2025, which cites about 90% as the best any
 * kernel shown at GTC reached). */
#define HW_GPU_HBM_EFFICIENCY 0.867

/* Loads and checks a GPU model file; NULL and error ("PATH: [gpu] key:
 * what was wrong") on failure. Free with hw_gpu_free. */
HwGpu *hw_gpu_load(const char *path, GError **error);
/* The same from the text of a model file (length bytes; (gsize)-1: up to
 * its NUL); path names it in messages. */
HwGpu *hw_gpu_load_data(const char *data, gsize length, const char *path, GError **error);

void hw_gpu_free(HwGpu *gpu);

/* What a streaming kernel (a reduction, an elementwise op) moves per
 * second: hbm_bytes_per_s x hbm_efficiency. */
uint64_t hw_gpu_stream_bytes_per_s(const HwGpu *gpu);

/* Whether gpu's per-tensor-scaled fp8 GEMMs take their operands in any
 * layout, not only TN (A transposed, B not): sm_version 100 to 119 and 130
 * on, as Transformer Engine asks cuBLASLt (nvte_is_non_tn_fp8_gemm_supported,
 * transformer_engine/common/transformer_engine.cpp). Where they do not, a
 * weight gradient's fp8 operands need a transposed copy. */
bool hw_gpu_fp8_gemm_any_layout(const HwGpu *gpu);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HwGpu, hw_gpu_free)

/* Whether CUDA's name for a device (trimmed) is one of gpu's
 * device_names. */
bool hw_gpu_has_device_name(const HwGpu *gpu, const char *device_name);

/* A GPU model's key table (for listings and tests). */
extern const HwKeyTable hw_gpu_key_table;
