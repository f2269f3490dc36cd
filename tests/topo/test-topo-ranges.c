/* SPDX-License-Identifier: Apache-2.0 */
/* Ranges of every key table of the hardware models and of [faults]: each
 * key of a kind with a range is set, in a shipped model file that loads
 * (or in --fault items checked against DGX H100), to values at, inside
 * and outside each bound, and exactly the documented range must load
 * (range-walk.h). The scenario groups' tables are walked by test-work. */
#include <glib/gstdio.h>
#include <string.h>

#include "hw/hw-gpu.h"
#include "hw/hw-link.h"
#include "hw/hw-nic.h"
#include "hw/hw-runtime.h"
#include "hw/hw-switch.h"
#include "hw/hw-system.h"
#include "range-walk.h"
#include "topo-suites.h"
#include "topo/topo-fault.h"

/* The shipped file each table is tried in: KIND/FILE under models/. */
static const struct {
    const char *group, *kind, *file;
} bases[] = {
    {"gpu", "gpu", "h100-sxm5.ini"},       {"link", "link", "nvlink4.ini"},
    {"switch", "switch", "nvswitch3.ini"}, {"nic", "nic", "cx7-ndr.ini"},
    {"system", "system", "dgx-h100.ini"},  {"nvlink", "system", "dgx-h100.ini"},
    {"host", "system", "dgx-h100.ini"},    {"network", "system", "dgx-h100.ini"},
    {"nccl", "system", "dgx-h100.ini"},    {"loopback", "system", "loopback-h200.ini"},
    {"runtime", "runtime", "nccl.ini"},     {"transport", "transport", "ib-verbs.ini"},
};

static char *scratch; /* a folder for the patched files */

/* Loads the base file of t's group with [group] key = value, by the
 * loader of its kind. */
static bool
load_model(const HwKeyTable *t, const HwKey *key, const char *value, GError **error)
{
    size_t b = 0;
    while (b < G_N_ELEMENTS(bases) && strcmp(bases[b].group, t->group) != 0)
        b++;
    ck_assert_msg(b < G_N_ELEMENTS(bases), "[%s]: no base file to try it in", t->group);
    g_autofree char *models = topo_test_models_dir();
    g_autofree char *base = g_build_filename(models, bases[b].kind, bases[b].file, NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    ck_assert(g_key_file_load_from_file(kf, base, G_KEY_FILE_NONE, NULL));
    g_key_file_set_value(kf, t->group, key->name, value);
    gsize length = 0;
    g_autofree char *text = g_key_file_to_data(kf, &length, NULL);
    g_autofree char *path = g_build_filename(scratch, bases[b].file, NULL);
    ck_assert(g_file_set_contents(path, text, (gssize)length, NULL));
    const char *kind = bases[b].kind;
    void *loaded = NULL;
    if (strcmp(kind, "gpu") == 0)
        hw_gpu_free(loaded = hw_gpu_load(path, error));
    else if (strcmp(kind, "link") == 0)
        hw_link_free(loaded = hw_link_load(path, error));
    else if (strcmp(kind, "switch") == 0)
        hw_switch_free(loaded = hw_switch_load(path, models, error));
    else if (strcmp(kind, "nic") == 0)
        hw_nic_free(loaded = hw_nic_load(path, models, error));
    else if (strcmp(kind, "runtime") == 0)
        hw_runtime_free(loaded = hw_runtime_load(path, error));
    else if (strcmp(kind, "transport") == 0)
        hw_transport_free(loaded = hw_transport_load(path, error));
    else
        hw_system_free(loaded = hw_system_load(path, models, error));
    g_unlink(path);
    return loaded != NULL;
}

static HwSystem *dgx_h100;

/* --fault KEY=VALUE with the bundle list the key needs, checked against
 * DGX H100 as coll and run check it. */
static bool
load_faults(const HwKeyTable *t, const HwKey *key, const char *value, GError **error)
{
    (void)t;
    g_autofree char *item = g_strdup_printf("%s=%s", key->name, value);
    const char *list = strcmp(key->name, "slow_rate") == 0        ? "slow_links=0:0"
                       : strcmp(key->name, "crc_error_rate") == 0 ? "crc_links=0:0"
                                                                  : NULL;
    char *sets[] = {item, (char *)list, NULL};
    g_autoptr(TopoFaults) faults = topo_faults_from_sets(sets, "--fault", error);
    return faults != NULL && topo_faults_check(faults, dgx_h100, error);
}

static void
setup(void)
{
    scratch = g_dir_make_tmp("topo-ranges-XXXXXX", NULL);
    ck_assert_ptr_nonnull(scratch);
    dgx_h100 = topo_test_load_system("dgx-h100");
}

static void
teardown(void)
{
    g_rmdir(scratch);
    g_clear_pointer(&scratch, g_free);
    g_clear_pointer(&dgx_h100, hw_system_free);
}

static unsigned
n_model_tables(void)
{
    unsigned n = 0;
    while (hw_model_key_tables[n] != NULL)
        n++;
    return n;
}

/* Every hardware table; together they hold the probability and share
 * keys of the models (packet_error_rate, the GPU's efficiencies and GEMM
 * ceilings). */
START_TEST(model_table_ranges)
{
    const HwKeyTable *t = hw_model_key_tables[_i];
    bool ranged = false;
    for (size_t k = 0; k < t->n_keys; k++)
        ranged = ranged || hw_key_range(t->keys[k].kind) != NULL;
    unsigned n = range_walk(t, load_model);
    ck_assert_msg(n > 0 || !ranged, "[%s]: no value tried", t->group);
}
END_TEST

START_TEST(fault_ranges)
{
    ck_assert_uint_gt(range_walk(&topo_fault_key_table, load_faults), 0);
}
END_TEST

/* The probability and share keys are where the walk reaches them: a
 * key that changed kind would drop out of the property silently. */
START_TEST(rate_keys_are_ranged)
{
    const struct {
        const HwKeyTable *table;
        const char *key;
        HwKeyKind kind;
    } rates[] = {
        {&hw_link_key_table, "packet_error_rate", HW_KEY_PROBABILITY},
        {&hw_gpu_key_table, "training_efficiency", HW_KEY_FRACTION},
        {&hw_gpu_key_table, "hbm_efficiency", HW_KEY_FRACTION},
        {&hw_gpu_key_table, "gemm_ceiling_fp16", HW_KEY_FRACTION},
        {&hw_gpu_key_table, "gemm_ceiling_fp8", HW_KEY_FRACTION},
        {&topo_fault_key_table, "slow_rate", HW_KEY_FRACTION},
        {&topo_fault_key_table, "crc_error_rate", HW_KEY_PROBABILITY},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(rates); i++) {
        const HwKey *found = NULL;
        for (size_t k = 0; k < rates[i].table->n_keys; k++)
            if (strcmp(rates[i].table->keys[k].name, rates[i].key) == 0)
                found = &rates[i].table->keys[k];
        ck_assert_msg(found != NULL && found->kind == rates[i].kind, "[%s] %s: not of its kind",
                      rates[i].table->group, rates[i].key);
    }
}
END_TEST

Suite *
topo_ranges_suite(void)
{
    Suite *s = suite_create("topo-ranges");
    TCase *tc = tcase_create("ranges");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, model_table_ranges, 0, (int)n_model_tables());
    tcase_add_test(tc, fault_ranges);
    tcase_add_test(tc, rate_keys_are_ranged);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
