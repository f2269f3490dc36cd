/* SPDX-License-Identifier: Apache-2.0 */
/* GPU models from models/gpu/NAME.ini: the key table, the loader and the
 * checks a model must pass (positive counts and rates, generations in
 * range). Values and their sources live in the files, not here.
 */
#include "hw/hw-gpu.h"

#include <math.h>
#include <string.h>

#include "hw/hw-keys.h"

#define FIELD(f) offsetof(HwGpu, f)

static const HwKey gpu_keys[] = {
    {"name", HW_KEY_STRING, FIELD(name), true, "the product name, such as H100 SXM5"},
    {"sms", HW_KEY_COUNT, FIELD(n_sms), true, "the number of SMs, such as 132"},
    {"peak_fp32", HW_KEY_FLOPS_PER_S, FIELD(fp32_flops_per_s), true,
     "dense non-tensor fp32 rate, such as 67TFLOP/s"},
    {"peak_fp16", HW_KEY_FLOPS_PER_S, FIELD(fp16_flops_per_s), true,
     "dense fp16/bf16 rate, such as 989TFLOP/s"},
    {"peak_fp8", HW_KEY_FLOPS_PER_S, FIELD(fp8_flops_per_s), false,
     "dense fp8 rate, such as 1979TFLOP/s (omit where there is no fp8)"},
    {"peak_fp4", HW_KEY_FLOPS_PER_S, FIELD(fp4_flops_per_s), false,
     "dense fp4 tensor rate, such as 9PFLOP/s (omit where there are no fp4 tensor cores)"},
    {"hbm_capacity", HW_KEY_SIZE_BYTES, FIELD(hbm_bytes), true, "a size such as 80GB"},
    {"hbm_bandwidth", HW_KEY_BYTES_PER_S, FIELD(hbm_bytes_per_s), true,
     "a bandwidth such as 3.35TB/s"},
    {"nvlink_generation", HW_KEY_COUNT, FIELD(nvlink_generation), true, "1 to 6"},
    {"nvlinks", HW_KEY_COUNT, FIELD(n_nvlinks), true, "the number of NVLink links, such as 18"},
    {"pcie_generation", HW_KEY_COUNT, FIELD(pcie_generation), true, "3 to 6"},
    {"sm_version", HW_KEY_COUNT, FIELD(sm_version), true,
     "the CUDA compute capability times 10, such as 90 for SM 9.0 (30 to 200)"},
    {"training_efficiency", HW_KEY_FRACTION, FIELD(training_efficiency), false,
     "share of the kernel model's rate a training step sustains, fitted on this GPU's own "
     "steps (default: one share for every generation)"},
    {"gemm_ceiling_fp16", HW_KEY_FRACTION, FIELD(gemm_ceiling_fp16), false,
     "fitted share of the fp16/bf16 peak the largest GEMMs reach (default: by generation)"},
    {"gemm_ceiling_fp8", HW_KEY_FRACTION, FIELD(gemm_ceiling_fp8), false,
     "fitted share of the fp8 peak the largest GEMMs reach (default: by generation)"},
    {"hbm_efficiency", HW_KEY_FRACTION, FIELD(hbm_efficiency), false,
     "measured share of hbm_bandwidth a streaming kernel sustains (default 0.867, "
     "H200's)"},
    {"device_names", HW_KEY_STRING, FIELD(device_names), false,
     "the names CUDA reports for it (cudaDeviceProp.name, as nvidia-smi and nccl-tests print "
     "them), separated by ';', such as NVIDIA H100 80GB HBM3"},
    {"reference_system", HW_KEY_STRING, FIELD(reference_system), false,
     "the system a log of this GPU is replayed on when it names none, such as dgx-h100"},
};

const HwKeyTable hw_gpu_key_table = {"models/gpu/ID.ini", "gpu", gpu_keys, G_N_ELEMENTS(gpu_keys)};

void
hw_gpu_free(HwGpu *gpu)
{
    if (gpu == NULL)
        return;
    g_free(gpu->name);
    g_free(gpu->device_names);
    g_free(gpu->reference_system);
    g_free(gpu);
}

static bool
check_range(const char *path, const char *key, uint64_t value, uint64_t min, uint64_t max,
            GError **error)
{
    if (value >= min && value <= max)
        return true;
    g_set_error(error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                "%s: [gpu] %s: %" G_GUINT64_FORMAT " is out of range: expected %" G_GUINT64_FORMAT
                " to %" G_GUINT64_FORMAT,
                path, key, value, min, max);
    return false;
}

static bool
check(const HwGpu *gpu, const char *path, GError **error)
{
    return check_range(path, "sms", gpu->n_sms, 1, 1024, error) &&
           check_range(path, "nvlink_generation", gpu->nvlink_generation, 1, 6, error) &&
           check_range(path, "nvlinks", gpu->n_nvlinks, 1, 64, error) &&
           check_range(path, "pcie_generation", gpu->pcie_generation, 3, 6, error) &&
           check_range(path, "sm_version", gpu->sm_version, 30, 200, error) &&
           check_range(path, "hbm_capacity", gpu->hbm_bytes, 1, UINT64_MAX, error);
}

/* A fitted share may not take a rate below what a model may have (the
 * bottom of the rate's range): near 0 a kernel would outlast the
 * simulated clock, or stream at 0 bytes per second. */
static bool
check_share(const char *path, const char *key, double share, const char *base, uint64_t rate,
            uint64_t min, const char *unit, GError **error)
{
    double kept = (double)rate * share;
    if (share <= 0 || kept >= (double)min)
        return true;
    g_autofree char *value = hw_keys_number_text(share);
    return hw_keys_fail(error, path, "gpu", key,
                        "%s leaves %.3g %s of %s's %.3g: expected a share that leaves at least "
                        "%.3g %s",
                        value, kept, unit, base, (double)rate, (double)min, unit);
}

static bool
check_shares(const HwGpu *gpu, const char *path, GError **error)
{
    bool fp8 = gpu->fp8_flops_per_s > 0;
    return check_share(path, "training_efficiency", gpu->training_efficiency, "peak_fp16",
                       gpu->fp16_flops_per_s, HW_KEYS_MIN_FLOPS_PER_S, "FLOP/s", error) &&
           check_share(path, "gemm_ceiling_fp16", gpu->gemm_ceiling_fp16, "peak_fp16",
                       gpu->fp16_flops_per_s, HW_KEYS_MIN_FLOPS_PER_S, "FLOP/s", error) &&
           check_share(path, "gemm_ceiling_fp8", gpu->gemm_ceiling_fp8,
                       fp8 ? "peak_fp8" : "peak_fp16",
                       fp8 ? gpu->fp8_flops_per_s : gpu->fp16_flops_per_s, HW_KEYS_MIN_FLOPS_PER_S,
                       "FLOP/s", error) &&
           check_share(path, "hbm_efficiency", gpu->hbm_efficiency, "hbm_bandwidth",
                       gpu->hbm_bytes_per_s, HW_KEYS_MIN_BYTES_PER_S, "B/s", error);
}

static HwGpu *
gpu_load(const char *path, const char *data, gsize length, GError **error)
{
    g_autoptr(GKeyFile) kf = hw_keys_open(path, "a model file", "gpu", data, length, error);
    if (kf == NULL)
        return NULL;
    g_autoptr(HwGpu) gpu = g_new0(HwGpu, 1);
    gpu->hbm_efficiency = HW_GPU_HBM_EFFICIENCY;
    if (!hw_keys_load(kf, path, "gpu", gpu_keys, G_N_ELEMENTS(gpu_keys), gpu, error) ||
        !check(gpu, path, error) || !check_shares(gpu, path, error))
        return NULL;
    return g_steal_pointer(&gpu);
}

HwGpu *
hw_gpu_load(const char *path, GError **error)
{
    return gpu_load(path, NULL, 0, error);
}

HwGpu *
hw_gpu_load_data(const char *data, gsize length, const char *path, GError **error)
{
    g_return_val_if_fail(data != NULL, NULL);
    return gpu_load(path, data, length, error);
}

uint64_t
hw_gpu_stream_bytes_per_s(const HwGpu *gpu)
{
    return (uint64_t)llround((double)gpu->hbm_bytes_per_s * gpu->hbm_efficiency);
}

bool
hw_gpu_fp8_gemm_any_layout(const HwGpu *gpu)
{
    g_return_val_if_fail(gpu != NULL, false);
    return (gpu->sm_version >= 100 && gpu->sm_version < 120) || gpu->sm_version >= 130;
}

bool
hw_gpu_has_device_name(const HwGpu *gpu, const char *device_name)
{
    if (gpu->device_names == NULL)
        return false;
    g_autofree char *want = g_strstrip(g_strdup(device_name));
    g_auto(GStrv) names = g_strsplit(gpu->device_names, ";", -1);
    for (char **n = names; *n != NULL; n++)
        if (strcmp(g_strstrip(*n), want) == 0)
            return true;
    return false;
}
