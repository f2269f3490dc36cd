/* SPDX-License-Identifier: Apache-2.0 */
/* The time of the per-layer compute model's kernels (work-compute.h) on a
 * GPU model: a GEMM at its generation's measured cuBLAS ceiling times the
 * useful share of its tile waves, or at the HBM roofline; FlashAttention
 * at its generation's ceiling over its waves of query blocks; a memory-
 * bound kernel at HBM bandwidth; each a launch more. Sources are given
 * where each figure is used.
 */
#include "work/work-compute.h"

#include <math.h>

#include "core/core-time.h"

static uint64_t
div_up(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

/* The best fraction of peak each generation reaches, by sm_version.
 *
 * gemm_fp16, gemm_fp8: the Maximum Achievable Matmul FLOPS (MAMF) of a
 * brute-force search over torch.matmul shapes (cuBLAS), mean of 100 runs,
 * measured over the GPU's sustained (power-limited) clocks: Bekman, "Machine
 * Learning Engineering", compute/accelerator/README.md, "Maximum Achievable
 * Matmul FLOPS comparison table" (github.com/stas00/ml-engineering):
 *   A100 SXM bf16 271.2 / 312 = 86.9% (torch 2.6.0+cu126);
 *   H100 SXM bf16 794.5 / 989 = 80.3% (2.7.0+cu126; "H200 is the same"),
 *        fp8 1402.6 / 1979 = 70.9%: a burst's fastest iterations. Hopper
 *        at its 700 W cap sustains less, and the generation's ceilings are
 *        what the finder's sustained search (MSMF, "matches sustained
 *        training throughput") holds over a 2 s window under full load on
 *        H200, the same GH100 at the same power: bf16 749 / 989 = 75.7%
 *        (2816 x 1536 x 6144), fp8 1337 / 1979 = 67.6% (1536 x 2816 x
 *        10240) (mamf-finder.py, benchmark version 4, msmf_k_walk).
 *        nvlsim-bench gpu on one H200 agrees within 4%: 0.726 and 0.653
 *        (nvlsim calibrate gemm tests/data/measured/h200-2026-12-04/
 *        gpu.csv --system dgx-h200; 48 and 24 shapes on random operands
 *        after 10 s of GEMMs at the 700 W cap);
 *   B200 SXM bf16 1745 / 2250 = 77.6%, fp8 3432.5 / 4500 = 76.3% (2.7.1+cu128;
 *        GB200 measured 72.9% and 72.3% with a pre-release torch, which
 *        gb200.ini gives as its own gemm_ceiling_fp16 and _fp8);
 *   B300 SXM (Blackwell Ultra, sm_103) bf16 1769 / 2250 = 78.6%, fp8 3353.3 /
 *        4500 = 74.5% (2.9.1+cu130).
 * V100: cuBLAS's fp16 GEMM of M = N = K = 8192 on a V100 PCIe "is able to
 * achieve ~101 TFLOPS, which is ~90% of the peak" at its 1.38 GHz boost
 * (NVIDIA developer forums, "Understanding IPC and Issue Slot Utilization
 * when using Tensor Cores", 2019, volta_h884gemm_128x128 kernel): 90%.
 * P100 (no tensor cores): no published cuBLAS search found; 80% [U],
 * A100's and H100's range.
 *
 * tensor_per_clock, exp_per_clock: what one SM does a clock, for
 * FlashAttention's model (flash_ceiling): dense fp16 tensor-core FLOPs, the
 * peak over SMs x boost clock of NVIDIA's datasheets (V100 125 T / (80 x
 * 1.53 GHz) = 1021, A100 312 T / (108 x 1.41 GHz) = 2049, H100 SXM 989.4 T /
 * (132 x 1.83 GHz) = 4096; Blackwell twice Hopper's [D/U: hardware.md §1];
 * P100's fp16 on CUDA cores, 64 FMA units x 2 x half2 = 256), and base-2
 * exponentials (MUFU.EX2): 16 on every generation through Blackwell (CUDA C
 * Programming Guide, "Arithmetic Instructions" throughput table; "the
 * exponential unit (MUFU) stayed at 16 ops/clock/SM" from Hopper to
 * Blackwell, Zadouri et al. 2026, FlashAttention-4, arXiv:2603.05451), and
 * twice that on Blackwell Ultra, which doubles the SFU throughput of
 * Blackwell (NVIDIA technical blog, "Making Softmax More Efficient with
 * NVIDIA Blackwell Ultra", 2025).
 */
typedef struct Ceiling {
    uint64_t sm_version;
    double gemm_fp16, gemm_fp8;
    double tensor_per_clock, exp_per_clock;
} Ceiling;

static const Ceiling ceilings[] = {
    {60, 0.80, 0, 256, 16},       {70, 0.90, 0, 1024, 16},       {80, 0.869, 0, 2048, 16},
    {90, 0.757, 0.676, 4096, 16}, {100, 0.776, 0.763, 8192, 16}, {103, 0.786, 0.745, 8192, 32},
};

/* SGEMM on CUDA cores: cuBLAS reaches about 90% of the fp32 peak [U]. */
#define FP32_CEILING 0.90

static const Ceiling *
ceiling_of(const HwGpu *gpu)
{
    const Ceiling *c = &ceilings[0];
    for (size_t i = 0; i < G_N_ELEMENTS(ceilings); i++)
        if (ceilings[i].sm_version <= gpu->sm_version)
            c = &ceilings[i];
    return c;
}

/* fp8 or fp4 on a GPU without such tensor cores runs at the fastest rate
 * it has below (Transformer Engine falls back; a scenario rejects it
 * first). */
static WorkMath
math_on(const HwGpu *gpu, WorkMath math)
{
    if (math == WORK_MATH_FP4 && gpu->fp4_flops_per_s == 0)
        math = WORK_MATH_FP8;
    return math == WORK_MATH_FP8 && gpu->fp8_flops_per_s == 0 ? WORK_MATH_FP16 : math;
}

static double
peak_of(const HwGpu *gpu, WorkMath math)
{
    switch (math_on(gpu, math)) {
    case WORK_MATH_FP4:
        return (double)gpu->fp4_flops_per_s;
    case WORK_MATH_FP8:
        return (double)gpu->fp8_flops_per_s;
    case WORK_MATH_FP32:
        return (double)gpu->fp32_flops_per_s;
    case WORK_MATH_FP16:
        break;
    }
    return (double)gpu->fp16_flops_per_s;
}

double
work_compute_peak(const HwGpu *gpu, WorkMath math)
{
    g_return_val_if_fail(gpu != NULL, 0);
    return peak_of(gpu, math);
}

double
work_compute_gemm_ceiling(const HwGpu *gpu, WorkMath math)
{
    g_return_val_if_fail(gpu != NULL, 0);
    const Ceiling *c = ceiling_of(gpu);
    double fp16 = gpu->gemm_ceiling_fp16 > 0 ? gpu->gemm_ceiling_fp16 : c->gemm_fp16;
    switch (math_on(gpu, math)) {
    case WORK_MATH_FP4:
        /* No fp4 GEMM search is published: the fp8 ceiling [U]. */
    case WORK_MATH_FP8:
        if (gpu->gemm_ceiling_fp8 > 0)
            return gpu->gemm_ceiling_fp8;
        return c->gemm_fp8 > 0 ? c->gemm_fp8 : fp16;
    case WORK_MATH_FP32:
        return FP32_CEILING;
    case WORK_MATH_FP16:
        break;
    }
    return fp16;
}

/* Wave and tile quantization (NVIDIA, "Matrix Multiplication Background
 * User's Guide", DU-09799-001, Section 3): cuBLAS covers each [m, n] output
 * with 128 x 256 tiles, one thread block a tile and one block an SM at a
 * time, so the kernel runs in ceil(tiles / SMs) waves and every wave lasts
 * as long as a full tile's K loop. The useful share is the outputs over the
 * tile slots the waves offer; of the two orientations, the one with fewer
 * waves is taken (cuBLAS picks its kernel by shape). */
static double
wave_share(uint64_t n_sms, uint64_t n_batch, uint64_t m, uint64_t n)
{
    const uint64_t ts = WORK_COMPUTE_TILE_SHORT, tl = WORK_COMPUTE_TILE_LONG;
    uint64_t tall = n_batch * div_up(m, tl) * div_up(n, ts);
    uint64_t wide = n_batch * div_up(m, ts) * div_up(n, tl);
    uint64_t waves = div_up(MIN(tall, wide), n_sms);
    return (double)n_batch * (double)m * (double)n / ((double)waves * n_sms * ts * tl);
}

/* A GEMM's seconds: compute at peak x ceiling x wave share, or the HBM
 * roofline (operands once, result once) where that is slower, i.e. where
 * the arithmetic intensity is below the ridge peak / bandwidth (A100 fp16:
 * 153 FLOP/B; H100: 295). */
typedef struct Terms {
    double compute, memory; /* seconds */
} Terms;

static Terms
gemm_terms(const HwGpu *gpu, WorkMath math, uint64_t n_batch, uint64_t m, uint64_t n, uint64_t k,
           double flops)
{
    math = math_on(gpu, math);
    double rate = peak_of(gpu, math) * work_compute_gemm_ceiling(gpu, math) *
                  wave_share(gpu->n_sms, n_batch, m, n);
    return (Terms){flops / rate, (double)work_compute_gemm_bytes(math, n_batch, m, n, k) /
                                     (double)hw_gpu_stream_bytes_per_s(gpu)};
}

static double
gemm_seconds(const HwGpu *gpu, WorkMath math, uint64_t n_batch, uint64_t m, uint64_t n, uint64_t k,
             double flops)
{
    Terms t = gemm_terms(gpu, math, n_batch, m, n, k, flops);
    return MAX(t.compute, t.memory);
}

double
work_compute_gemm_fit_ceiling(const HwGpu *gpu, WorkMath math, uint64_t m, uint64_t n, uint64_t k,
                              double flops_per_s)
{
    g_return_val_if_fail(gpu != NULL && gpu->n_sms > 0 && m >= 1 && n >= 1 && k >= 1, NAN);
    math = math_on(gpu, math);
    double flops = 2.0 * (double)m * (double)n * (double)k;
    double memory =
        (double)work_compute_gemm_bytes(math, 1, m, n, k) / (double)hw_gpu_stream_bytes_per_s(gpu);
    if (flops / flops_per_s <= memory)
        return NAN;
    return flops_per_s / (peak_of(gpu, math) * wave_share(gpu->n_sms, 1, m, n));
}

double
work_compute_gemm_efficiency(const HwGpu *gpu, WorkMath math, uint64_t n_batch, uint64_t m,
                             uint64_t n, uint64_t k)
{
    g_return_val_if_fail(gpu != NULL && gpu->n_sms > 0 && gpu->hbm_bytes_per_s > 0, 0);
    g_return_val_if_fail(n_batch >= 1 && m >= 1 && n >= 1 && k >= 1, 0);
    double flops = 2.0 * (double)n_batch * (double)m * (double)n * (double)k;
    return flops / (peak_of(gpu, math) * gemm_seconds(gpu, math, n_batch, m, n, k, flops));
}

/* FlashAttention's fraction of the fp16 peak on gpu at head size d, by
 * what its SMs do a clock: the two products of every score run on the
 * tensor cores (4 d FLOPs a score forward) at an efficiency eta, and of
 * the time the exponential units take for the score's exponential a share
 * kappa is not hidden under them, so
 *
 *   1 / ceiling = 1 / eta + kappa r,  r = tensor_per_clock / (exp_per_clock 4 d)
 *
 * r is the exponentials' time over the products' at full rate: A100 0.25,
 * H100 0.5, Blackwell 1 and Blackwell Ultra 0.5 at d = 128. eta and kappa
 * are the line through two published forward figures at d = 128, counting
 * the FLOPs the kernel executes:
 *   A100, FlashAttention-2: "50-73% of the theoretical maximum" (Dao 2023,
 *        arXiv:2307.08691, abstract): 73% at r = 0.25;
 *   H100 SXM5, FlashAttention-3 in bf16 (Shah et al. 2024, arXiv:2407.08608,
 *        Figure 5, 16k tokens): 648 / 989 = 65.5% at r = 0.5;
 * so eta = 0.824 (the products alone run near a GEMM's ceiling) and kappa
 * = 0.625. Checked on figures it was not drawn from: FlashAttention-3's
 * abstract, 740 TFLOP/s (75%) at d = 256 on H100 (r = 0.25), against 73.0%;
 * cuDNN 9.13 on B200 in bf16, which FlashAttention-4 beats by up to 1.3x at
 * its 1613 TFLOP/s (Zadouri et al. 2026, arXiv:2603.05451, abstract), so
 * about 1240 / 2250 = 55%, against 54.4% at r = 1 (Megatron-Bridge's
 * Transformer Engine runs cuDNN's kernels there). The backward pass runs at
 * the forward's 561 / 648 = 0.866 (FlashAttention-3's Figure 7 over Figure
 * 5; cuDNN 516 / 595 and FlashAttention-2 322 / 370 on H100 alike) [U on
 * other generations]. A GPU whose GEMM ceiling was measured on it apart
 * from its generation's (gb200.ini) runs attention at the same ratio:
 * both are its SMs at its sustained clock. These are a benchmark's rates,
 * not sustained under a whole step's load. */
#define FLASH_A100_FWD 0.73
#define FLASH_A100_R 0.25
#define FLASH_H100_FWD (648.0 / 989.0)
#define FLASH_H100_R 0.5
#define FLASH_BWD_OVER_FWD (561.0 / 648.0)

void
work_compute_flash_model(const HwGpu *gpu, uint64_t d, WorkFlashModel *out)
{
    g_return_if_fail(gpu != NULL && out != NULL);
    const Ceiling *c = ceiling_of(gpu);
    WorkFlashModel f = {.tensor_per_clock = c->tensor_per_clock,
                        .exp_per_clock = c->exp_per_clock,
                        .clock_scale = 1};
    f.kappa = (1.0 / FLASH_H100_FWD - 1.0 / FLASH_A100_FWD) / (FLASH_H100_R - FLASH_A100_R);
    f.eta = 1.0 / (1.0 / FLASH_A100_FWD - f.kappa * FLASH_A100_R);
    f.r = f.tensor_per_clock / (f.exp_per_clock * 4.0 * (double)MAX(d, 1));
    if (gpu->gemm_ceiling_fp16 > 0)
        f.clock_scale = gpu->gemm_ceiling_fp16 / c->gemm_fp16;
    f.forward = f.clock_scale / (1.0 / f.eta + f.kappa * f.r);
    f.backward = f.forward * FLASH_BWD_OVER_FWD;
    *out = f;
}

static double
flash_ceiling(const HwGpu *gpu, uint64_t d, WorkPass pass)
{
    WorkFlashModel f;
    work_compute_flash_model(gpu, d, &f);
    return pass == WORK_PASS_BACKWARD ? f.backward : f.forward;
}

/* FlashAttention's seconds. It executes the m x n products of its shape,
 * under the causal mask only those at or below the diagonal (query blocks
 * of 128 rows see the key blocks up to theirs: (nb + 1) / 2 nb of them for
 * nb blocks), and backward 5 / 2 of the forward's (five products to
 * forward's two, as FlashAttention's benchmarks count). Thread blocks are
 * (sequence, head, query block) triples, quantized into waves as GEMM
 * tiles are; then the roofline. */
double
work_compute_op_executed_flops(const WorkOp *op)
{
    g_return_val_if_fail(op != NULL, 0);
    if (op->kind != WORK_OP_ATTENTION)
        return (double)op->flops;
    uint64_t nb = div_up(op->m, WORK_COMPUTE_FLASH_BLOCK);
    double executed = 4.0 * (double)op->n_batch * (double)op->m * (double)op->n * (double)op->k;
    if (op->causal)
        executed *= (double)(nb + 1) / (2.0 * (double)nb);
    if (op->pass == WORK_PASS_BACKWARD)
        executed *= 5.0 / 2.0;
    return executed;
}

static Terms
flash_terms(const WorkOp *op, const HwGpu *gpu)
{
    const uint64_t block = WORK_COMPUTE_FLASH_BLOCK;
    uint64_t nb = div_up(op->m, block);
    double executed = work_compute_op_executed_flops(op);
    uint64_t waves = div_up(op->n_batch * nb, gpu->n_sms);
    double share = (double)op->n_batch * (double)op->m / ((double)waves * gpu->n_sms * block);
    double rate = peak_of(gpu, WORK_MATH_FP16) * flash_ceiling(gpu, op->k, op->pass) * share;
    return (Terms){executed / rate, (double)op->bytes / (double)hw_gpu_stream_bytes_per_s(gpu)};
}

static double
flash_seconds(const WorkOp *op, const HwGpu *gpu)
{
    Terms t = flash_terms(op, gpu);
    return MAX(t.compute, t.memory);
}

static uint64_t
seconds_to_ps(double seconds)
{
    double ps = ceil(seconds * (double)SIM_PS_PER_S);
    return ps >= (double)SIM_TIME_NEVER ? SIM_TIME_NEVER : (uint64_t)ps;
}

uint64_t
work_compute_op_ps(const WorkOp *op, const HwGpu *gpu)
{
    g_return_val_if_fail(op != NULL && gpu != NULL, 0);
    g_return_val_if_fail(gpu->n_sms > 0 && gpu->hbm_bytes_per_s > 0, 0);
    uint64_t ps = 0;
    switch (op->kind) {
    case WORK_OP_MEMORY:
        ps = sim_serialization_ps(op->bytes, hw_gpu_stream_bytes_per_s(gpu));
        break;
    case WORK_OP_GEMM:
        ps = seconds_to_ps(
            gemm_seconds(gpu, op->math, op->n_batch, op->m, op->n, op->k, (double)op->flops));
        break;
    case WORK_OP_ATTENTION:
        ps = seconds_to_ps(flash_seconds(op, gpu));
        break;
    }
    return ps + WORK_COMPUTE_LAUNCH_PS;
}

uint64_t
work_compute_ops_flops(const GArray *ops)
{
    g_return_val_if_fail(ops != NULL, 0);
    uint64_t flops = 0;
    for (guint i = 0; i < ops->len; i++)
        flops += g_array_index(ops, WorkOp, i).flops;
    return flops;
}

uint64_t
work_compute_ops_bytes(const GArray *ops)
{
    g_return_val_if_fail(ops != NULL, 0);
    uint64_t bytes = 0;
    for (guint i = 0; i < ops->len; i++)
        bytes += g_array_index(ops, WorkOp, i).bytes;
    return bytes;
}

uint64_t
work_compute_ops_ps(const GArray *ops, const HwGpu *gpu)
{
    g_return_val_if_fail(ops != NULL && gpu != NULL, 0);
    uint64_t ps = 0;
    for (guint i = 0; i < ops->len; i++)
        ps += work_compute_op_ps(&g_array_index(ops, WorkOp, i), gpu);
    return ps;
}

bool
work_compute_op_memory_bound(const WorkOp *op, const HwGpu *gpu)
{
    g_return_val_if_fail(op != NULL && gpu != NULL, false);
    g_return_val_if_fail(gpu->n_sms > 0 && gpu->hbm_bytes_per_s > 0, false);
    Terms t = {0, 0};
    switch (op->kind) {
    case WORK_OP_MEMORY:
        return true;
    case WORK_OP_GEMM:
        t = gemm_terms(gpu, op->math, op->n_batch, op->m, op->n, op->k, (double)op->flops);
        break;
    case WORK_OP_ATTENTION:
        t = flash_terms(op, gpu);
        break;
    }
    return t.memory >= t.compute;
}

uint64_t
work_compute_ops_memory_ps(const GArray *ops, const HwGpu *gpu)
{
    g_return_val_if_fail(ops != NULL && gpu != NULL, 0);
    uint64_t ps = 0;
    for (guint i = 0; i < ops->len; i++) {
        const WorkOp *op = &g_array_index(ops, WorkOp, i);
        if (work_compute_op_memory_bound(op, gpu))
            ps += work_compute_op_ps(op, gpu);
    }
    return ps;
}
