/* SPDX-License-Identifier: Apache-2.0 */
/* HwGpu: every shipped GPU model loads and carries its datasheet figures
 * exactly; malformed model files fail with file, group and key named. */
#include <glib/gstdio.h>
#include <string.h>

#include "hw/hw-gpu.h"
#include "hw-suites.h"

static const struct {
    const char *file;
    uint64_t n_sms;
    uint64_t fp16_flops_per_s;
    uint64_t fp8_flops_per_s;
    uint64_t hbm_bytes;
    uint64_t nvlink_generation;
    uint64_t n_nvlinks;
    uint64_t sm_version;
} shipped[] = {
    {"p100-sxm2.ini", 56, 21200000000000, 0, 16000000000, 1, 4, 60},
    {"v100-sxm2.ini", 80, 125000000000000, 0, 32000000000, 2, 6, 70},
    {"v100-sxm3.ini", 80, 130000000000000, 0, 32000000000, 2, 6, 70},
    {"a100-sxm4-40gb.ini", 108, 312000000000000, 0, 40000000000, 3, 12, 80},
    {"a100-sxm4-80gb.ini", 108, 312000000000000, 0, 80000000000, 3, 12, 80},
    {"h100-sxm5.ini", 132, 989400000000000, 1978900000000000, 80000000000, 4, 18, 90},
    {"h200.ini", 132, 989000000000000, 1979000000000000, 141000000000, 4, 18, 90},
    {"h800.ini", 132, 989400000000000, 1978900000000000, 80000000000, 4, 8, 90},
    {"b200.ini", 148, 2250000000000000, 4500000000000000, 180000000000, 5, 18, 100},
    {"gb200.ini", 148, 2500000000000000, 5000000000000000, 186000000000, 5, 18, 100},
    {"b300.ini", 160, 2250000000000000, 4500000000000000, 288000000000, 5, 18, 103},
    {"gb300.ini", 160, 2500000000000000, 5000000000000000, 288000000000, 5, 18, 103},
    {"rubin.ini", 160, 8300000000000000, 16700000000000000, 288000000000, 6, 36, 100},
};

START_TEST(shipped_models_load)
{
    g_autofree char *path = hw_test_model_path("gpu", shipped[_i].file);
    g_autoptr(GError) error = NULL;
    g_autoptr(HwGpu) gpu = hw_gpu_load(path, &error);
    ck_assert_msg(gpu != NULL, "%s: %s", shipped[_i].file, error ? error->message : "");
    ck_assert_uint_eq(gpu->n_sms, shipped[_i].n_sms);
    ck_assert_uint_eq(gpu->fp16_flops_per_s, shipped[_i].fp16_flops_per_s);
    ck_assert_uint_eq(gpu->fp8_flops_per_s, shipped[_i].fp8_flops_per_s);
    ck_assert_uint_eq(gpu->hbm_bytes, shipped[_i].hbm_bytes);
    ck_assert_uint_eq(gpu->nvlink_generation, shipped[_i].nvlink_generation);
    ck_assert_uint_eq(gpu->n_nvlinks, shipped[_i].n_nvlinks);
    ck_assert_uint_eq(gpu->sm_version, shipped[_i].sm_version);
    ck_assert(gpu->fp32_flops_per_s > 0 && gpu->fp32_flops_per_s < gpu->fp16_flops_per_s);
    /* fp4 tensor cores from Blackwell on, and faster than its fp8 there. */
    if (shipped[_i].sm_version >= 100)
        ck_assert_msg(gpu->fp4_flops_per_s > gpu->fp8_flops_per_s, "%s: no fp4 peak above fp8",
                      shipped[_i].file);
    else
        ck_assert_msg(gpu->fp4_flops_per_s == 0, "%s: an fp4 peak before Blackwell",
                      shipped[_i].file);
}
END_TEST

/* Blackwell Ultra and the fp4 peaks, by hand from hardware.md §1a. */
static HwGpu *
load_shipped(const char *file)
{
    g_autofree char *path = hw_test_model_path("gpu", file);
    g_autoptr(GError) error = NULL;
    HwGpu *gpu = hw_gpu_load(path, &error);
    ck_assert_msg(gpu != NULL, "%s: %s", file, error ? error->message : "");
    return gpu;
}

START_TEST(blackwell_ultra_figures)
{
    g_autoptr(HwGpu) gb300 = load_shipped("gb300.ini");
    ck_assert_str_eq(gb300->name, "GB300");
    ck_assert_uint_eq(gb300->n_sms, 160);                         /* [S: B300-3] */
    ck_assert_uint_eq(gb300->fp4_flops_per_s, 15000000000000000); /* 15 PFLOP/s dense */
    ck_assert_uint_eq(gb300->fp32_flops_per_s, 80000000000000);
    ck_assert_uint_eq(gb300->hbm_bytes_per_s, 8000000000000);
    ck_assert_uint_eq(gb300->pcie_generation, 6);
    g_autoptr(HwGpu) b300 = load_shipped("b300.ini");
    ck_assert_str_eq(b300->name, "B300");
    /* B300-1's 13.125 PFLOP/s, the lower of it and B300-2's 14, exactly. */
    ck_assert_uint_eq(b300->fp4_flops_per_s, 13125000000000000);
    ck_assert_uint_eq(b300->fp32_flops_per_s, 75000000000000);
    ck_assert_uint_eq(b300->hbm_bytes_per_s, 7700000000000);
    ck_assert_double_eq(b300->training_efficiency, 0); /* the one share of every generation */
    g_autoptr(HwGpu) b200 = load_shipped("b200.ini");
    ck_assert_uint_eq(b200->fp4_flops_per_s, 9000000000000000);
    g_autoptr(HwGpu) gb200 = load_shipped("gb200.ini");
    ck_assert_uint_eq(gb200->fp4_flops_per_s, 10000000000000000);
    g_autoptr(HwGpu) h100 = load_shipped("h100-sxm5.ini");
    ck_assert_uint_eq(h100->fp4_flops_per_s, 0);
}
END_TEST

/* A valid file, then the lines each bad case changes. */
static const char *valid_gpu = "[gpu]\nname = Test GPU\nsms = 10\n"
                               "peak_fp32 = 1TFLOP/s\npeak_fp16 = 2TFLOP/s\n"
                               "hbm_capacity = 1GB\nhbm_bandwidth = 1TB/s\n"
                               "nvlink_generation = 4\nnvlinks = 2\npcie_generation = 5\n"
                               "sm_version = 90\n";

static const struct {
    const char *name;
    const char *from; /* text of valid_gpu to replace, NULL to use `to` as the file */
    const char *to;
    const char *message_part; /* after the path */
} bad[] = {
    {"unknown key", "sms = 10\n", "sms = 10\nsmz = 10\n",
     ": [gpu] smz: unknown key; expected one of: name, sms"},
    {"no unit", "hbm_bandwidth = 1TB/s", "hbm_bandwidth = 3.35",
     ": [gpu] hbm_bandwidth: '3.35' has no unit: expected a bandwidth"},
    {"bits for bytes", "hbm_bandwidth = 1TB/s", "hbm_bandwidth = 400Gbps",
     ": [gpu] hbm_bandwidth: '400Gbps' has an unknown unit 'Gbps'"},
    {"missing key", "sms = 10\n", "", ": [gpu] sms: missing; expected the number of SMs"},
    {"zero bandwidth", "hbm_bandwidth = 1TB/s", "hbm_bandwidth = 0GB/s",
     ": [gpu] hbm_bandwidth: '0GB/s' is not positive"},
    {"negative count", "nvlinks = 2", "nvlinks = -2", ": [gpu] nvlinks: '-2' is negative"},
    {"generation out of range", "nvlink_generation = 4", "nvlink_generation = 7",
     ": [gpu] nvlink_generation: 7 is out of range: expected 1 to 6"},
    {"no links", "nvlinks = 2", "nvlinks = 0", ": [gpu] nvlinks: 0 is out of range"},
    {"no sm version", "sm_version = 90\n", "",
     ": [gpu] sm_version: missing; expected the CUDA compute capability times 10"},
    {"sm version as a dotted number", "sm_version = 90", "sm_version = 9.0",
     ": [gpu] sm_version: 9 is out of range: expected 30 to 200"},
    {"sm version out of range", "sm_version = 90", "sm_version = 9",
     ": [gpu] sm_version: 9 is out of range: expected 30 to 200"},
    {"fractional bytes", "hbm_capacity = 1GB", "hbm_capacity = 0.5B",
     ": [gpu] hbm_capacity: '0.5B' is not a whole number of bytes"},
    {"a misspelt group", NULL, "[gpus]\nname = x\n",
     ": [gpus]: unknown group; expected [gpu] only"},
    {"negative fp4 peak", "sm_version = 90\n", "sm_version = 90\npeak_fp4 = -9PFLOP/s\n",
     ": [gpu] peak_fp4: '-9PFLOP/s' is negative"},
    {"fp4 peak not a number", "sm_version = 90\n", "sm_version = 90\npeak_fp4 = fastPFLOP/s\n",
     ": [gpu] peak_fp4: 'fastPFLOP/s' is not a number"},
    {"fp4 peak without a unit", "sm_version = 90\n", "sm_version = 90\npeak_fp4 = 9\n",
     ": [gpu] peak_fp4: '9' has no unit"},
    {"optional key not UTF-8", "sm_version = 90\n", "sm_version = 90\npeak_fp8 = 2TFLOP/s\xff\n",
     ": not text"},
    {"malformed escape", "name = Test GPU", "name = Test\\q",
     ": [gpu] name: 'Test\\\\q' is not UTF-8 text or has a bad escape sequence"},
    {"a backslash escaping nothing", "name = Test GPU", "name = Test\\q\\",
     ": [gpu] name: 'Test\\\\q\\\\' is not UTF-8 text or has a bad escape sequence"},
    {"not a key file", NULL, "\x01\x02 garbage without a group\n", ": "},
    {"empty file", NULL, "", ": no [gpu] group"},
};

START_TEST(bad_models_fail_with_context)
{
    g_autofree char *dir = g_dir_make_tmp(NULL, NULL);
    g_autofree char *path = g_build_filename(dir, "bad.ini", NULL);
    g_autofree char *text = NULL;
    if (bad[_i].from == NULL) {
        text = g_strdup(bad[_i].to);
    } else {
        g_auto(GStrv) parts = g_strsplit(valid_gpu, bad[_i].from, 2);
        ck_assert_msg(parts[1] != NULL, "%s: fixture text not found", bad[_i].name);
        text = g_strconcat(parts[0], bad[_i].to, parts[1], NULL);
    }
    ck_assert(g_file_set_contents(path, text, -1, NULL));
    g_autoptr(GError) error = NULL;
    g_autoptr(HwGpu) gpu = hw_gpu_load(path, &error);
    ck_assert_msg(gpu == NULL, "%s: accepted", bad[_i].name);
    g_autofree char *expect = g_strconcat(path, bad[_i].message_part, NULL);
    ck_assert_msg(g_str_has_prefix(error->message, path) &&
                      strstr(error->message, bad[_i].message_part) != NULL,
                  "%s: message '%s' lacks '%s'", bad[_i].name, error->message, expect);
    g_unlink(path);
    g_rmdir(dir);
}
END_TEST

/* A new model file must get a row in `shipped`. */
START_TEST(every_shipped_model_is_in_the_table)
{
    ck_assert_uint_eq(hw_test_count_models("gpu"), G_N_ELEMENTS(shipped));
}
END_TEST

START_TEST(unreadable_path_is_named)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(HwGpu) gpu = hw_gpu_load("/nonexistent/nvlsim/gpu.ini", &error);
    ck_assert(gpu == NULL);
    ck_assert_msg(g_str_has_prefix(error->message, "/nonexistent/nvlsim/gpu.ini: "), "%s",
                  error->message);
}
END_TEST

Suite *
hw_gpu_suite(void)
{
    Suite *s = suite_create("hw-gpu");
    TCase *tc = tcase_create("gpu");
    tcase_add_loop_test(tc, shipped_models_load, 0, G_N_ELEMENTS(shipped));
    tcase_add_test(tc, every_shipped_model_is_in_the_table);
    tcase_add_test(tc, blackwell_ultra_figures);
    tcase_add_loop_test(tc, bad_models_fail_with_context, 0, G_N_ELEMENTS(bad));
    tcase_add_test(tc, unreadable_path_is_named);
    suite_add_tcase(s, tc);
    return s;
}
