/* SPDX-License-Identifier: Apache-2.0 */
/* Lists of a node's GPUs ("0,3,4,7"): parsed in the listed order against
 * a system's GPUs per node, formatted back; every malformed list an error
 * that quotes the list and names what is wrong in it.
 */
#include <string.h>

#include "hw-suites.h"
#include "hw/hw-gpu-list.h"

static HwSystem *
load_dgx1(void)
{
    g_autofree char *dir = hw_test_models_dir();
    g_autoptr(GError) error = NULL;
    HwSystem *system = hw_system_load_by_id("dgx1-v100", dir, &error);
    ck_assert_msg(system != NULL, "%s", error ? error->message : "");
    return system;
}

START_TEST(parses_in_order)
{
    g_autoptr(HwSystem) system = load_dgx1();
    g_autofree uint32_t *gpus = NULL;
    uint32_t n = 0;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(hw_gpu_list_parse(system, "7, 4,3 ,0", &gpus, &n, &error), "%s",
                  error ? error->message : "");
    ck_assert_uint_eq(n, 4);
    const uint32_t want[] = {7, 4, 3, 0};
    ck_assert(memcmp(gpus, want, sizeof want) == 0);
    g_autofree char *text = hw_gpu_list_format(gpus, n);
    ck_assert_str_eq(text, "7,4,3,0");
}
END_TEST

static const struct {
    const char *text, *message;
} bad_lists[] = {
    {"", "'': no GPU named"},
    {" ", "' ': no GPU named"},
    {"0,", "'0,': an empty entry"},
    {"0,,3", "'0,,3': an empty entry"},
    {"0,x", "'0,x': 'x' is not a GPU number"},
    {"0,-1", "'0,-1': '-1' is not a GPU number"},
    {"0,1e1", "'0,1e1': '1e1' is not a GPU number"},
    {"0,8", "'0,8': dgx1-v100 has GPUs 0 to 7 on a node, not 8"},
    {"99999999999", "'99999999999': '99999999999' is not a GPU number"},
    {"3,0,3", "'3,0,3': GPU 3 is listed twice"},
};

START_TEST(rejects_bad_lists)
{
    g_autoptr(HwSystem) system = load_dgx1();
    g_autofree uint32_t *gpus = NULL;
    uint32_t n = 7;
    g_autoptr(GError) error = NULL;
    ck_assert_msg(!hw_gpu_list_parse(system, bad_lists[_i].text, &gpus, &n, &error), "'%s' parsed",
                  bad_lists[_i].text);
    ck_assert(gpus == NULL && n == 0);
    ck_assert(g_error_matches(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE));
    ck_assert_msg(g_str_has_prefix(error->message, bad_lists[_i].message), "'%s': %s",
                  bad_lists[_i].text, error->message);
}
END_TEST

Suite *
hw_gpu_list_suite(void)
{
    Suite *s = suite_create("hw-gpu-list");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, parses_in_order);
    tcase_add_loop_test(tc, rejects_bad_lists, 0, G_N_ELEMENTS(bad_lists));
    suite_add_tcase(s, tc);
    return s;
}
